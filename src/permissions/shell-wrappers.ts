import type { ShellAssign, ShellWord } from "./shell.js";

/**
 * Wrappers: commands that run other commands (`env`, `sh -c`, `xargs`, `nice`, `timeout`, `nohup`,
 * `stdbuf`, `ionice`, `setsid`, `time`, `command`, `builtin`, `exec`, `eval`, `sudo`, `doas`,
 * `find -exec`). `unwrap` says which command(s) a wrapper runs, so each is checked on its own.
 */

/** A list of words written as one string. */
const list = (words: string): string[] => words.split(/\s+/).filter(Boolean);

export type Unwrapped = {
  name: string;
  /** Runs its commands with more power or in a way we do not model: must itself be allowed. */
  opaque?: boolean;
  /** Runs commands that cannot be seen before it runs (a computed script, commands on stdin). */
  hidden?: boolean;
  problem?: string;
  commands: { words: ShellWord[]; assigns: ShellAssign[] }[];
  /** Script texts the wrapper runs (`sh -c`, `eval`). */
  scripts: string[];
};

const SHELLS = new Set(["sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash"]);
const ASSIGNMENT_WORD = /^[A-Za-z_][A-Za-z0-9_]*=/;

/** A word standing for arguments computed at run time (`xargs` input, `{}` of `find -exec`). */
function computedWord(raw: string): ShellWord {
  return { raw, glob: false, brace: false, procSubst: false };
}

/** If `words` runs another command (`timeout 5 ls`), says which. Undefined when it is a plain command. */
export function unwrap(words: readonly ShellWord[]): Unwrapped | undefined {
  const written = words[0]?.value;
  if (written === undefined) return undefined;
  // `/usr/bin/env rm x` is unwrapped too (deny rules must see `rm`), but a wrapper named by a path
  // could be any program (`./timeout`), so it must itself be allowed.
  const name = written.includes("/") ? written.slice(written.lastIndexOf("/") + 1) : written;
  const result = unwrapNamed(name, words.slice(1));
  return result && written.includes("/") ? { ...result, opaque: true } : result;
}

function unwrapNamed(name: string, rest: ShellWord[]): Unwrapped | undefined {
  switch (name) {
    case "env":
      return unwrapEnv(rest);
    case "xargs":
      return unwrapXargs(rest);
    case "nice":
      return unwrapOptions(name, rest, { valued: ["-n", "--adjustment"], flags: [], numericFlag: true });
    case "timeout": {
      const result = unwrapOptions(name, rest, {
        valued: ["-k", "--kill-after", "-s", "--signal"],
        flags: ["--preserve-status", "--foreground", "-v", "--verbose"],
        skipOperands: 1,
      });
      return result;
    }
    case "nohup":
    case "builtin":
      return unwrapOptions(name, rest, { valued: [], flags: [] });
    case "stdbuf":
      return unwrapOptions(name, rest, {
        valued: ["-i", "-o", "-e", "--input", "--output", "--error"],
        flags: [],
      });
    case "ionice":
      return unwrapOptions(name, rest, {
        valued: ["-c", "--class", "-n", "--classdata"],
        flags: ["-t", "--ignore"],
      });
    case "setsid":
      return unwrapOptions(name, rest, {
        valued: [],
        flags: ["-f", "--fork", "-w", "--wait", "-c", "--ctty"],
      });
    case "time":
      return unwrapOptions(name, rest, {
        valued: ["-f", "--format"],
        flags: ["-p", "--portability", "-v", "--verbose", "-q", "--quiet", "-a", "--append"],
        problems: { "-o": "time -o writes a file", "--output": "time -o writes a file" },
      });
    case "command":
      if (rest[0]?.value === "-v" || rest[0]?.value === "-V") return undefined;
      return unwrapOptions(name, rest, { valued: [], flags: ["-p"] });
    case "exec":
      return unwrapOptions(name, rest, { valued: ["-a"], flags: ["-c", "-l", "-cl", "-lc"] });
    case "sudo":
      return opaque(
        unwrapOptions(name, rest, {
          valued: list(
            "-u --user -g --group -C --close-from -D --chdir -h --host -p --prompt -r --role -t --type -T --command-timeout -U --other-user -R --chroot",
          ),
          flags: list(
            "-A --askpass -b --background -E --preserve-env -H --set-home -k --reset-timestamp -n --non-interactive -P --preserve-groups -S --stdin -i --login -s --shell -B --bell -N --no-update",
          ),
        }),
      );
    case "doas":
      return opaque(unwrapOptions(name, rest, { valued: ["-u", "-C"], flags: ["-n", "-s", "-L"] }));
    case "eval": {
      if (rest.some((word) => word.value === undefined))
        return {
          name,
          problem: "eval of text computed at run time",
          hidden: true,
          commands: [],
          scripts: [],
        };
      return { name, commands: [], scripts: [rest.map((word) => word.value).join(" ")] };
    }
    case "find":
      return unwrapFind(rest);
    default:
      if (SHELLS.has(name)) return unwrapShell(name, rest);
      return undefined;
  }
}

function opaque(result: Unwrapped | undefined): Unwrapped | undefined {
  return result ? { ...result, opaque: true } : result;
}

type OptionSpec = {
  valued: string[];
  flags: string[];
  /** `nice -10`: a numeric flag. */
  numericFlag?: boolean;
  /** Operands before the command (`timeout DURATION cmd`). */
  skipOperands?: number;
  problems?: Record<string, string>;
};

/** The common shape: `wrapper [options] [operands] command args...`. */
function unwrapOptions(name: string, rest: ShellWord[], spec: OptionSpec): Unwrapped | undefined {
  let i = 0;
  let problem: string | undefined;
  while (i < rest.length) {
    const value = rest[i]!.value;
    if (value === undefined) {
      problem ??= `${name} option computed at run time`;
      i += 1;
      continue;
    }
    if (value === "--") {
      i += 1;
      break;
    }
    if (!value.startsWith("-") || value === "-") break;
    const [flag, attached] = splitOption(value);
    if (spec.problems?.[flag]) {
      problem ??= spec.problems[flag];
      i += attached === undefined ? 2 : 1;
      continue;
    }
    if (spec.valued.includes(flag)) {
      i += attached === undefined ? 2 : 1;
      continue;
    }
    const short = spec.valued.find((v) => v.length === 2 && value.startsWith(v) && value.length > 2);
    if (short) {
      i += 1;
      continue;
    }
    if (spec.flags.includes(value) || (spec.numericFlag && /^-\d+$/.test(value))) {
      i += 1;
      continue;
    }
    problem ??= `${name} option ${value} is not understood`;
    i += 1;
  }
  i += spec.skipOperands ?? 0;
  const inner = rest.slice(i);
  if (inner.length === 0) return undefined;
  return { name, ...(problem ? { problem } : {}), commands: [{ words: inner, assigns: [] }], scripts: [] };
}

function splitOption(value: string): [string, string | undefined] {
  if (value.startsWith("--")) {
    const eq = value.indexOf("=");
    return eq === -1 ? [value, undefined] : [value.slice(0, eq), value.slice(eq + 1)];
  }
  return [value, undefined];
}

function unwrapEnv(rest: ShellWord[]): Unwrapped | undefined {
  const assigns: ShellAssign[] = [];
  let problem: string | undefined;
  let i = 0;
  let options = true;
  const scripts: string[] = [];
  while (i < rest.length) {
    const word = rest[i]!;
    const value = word.value;
    if (value === undefined) {
      problem ??= "env argument computed at run time";
      i += 1;
      continue;
    }
    if (options && value === "--") {
      options = false;
      i += 1;
      continue;
    }
    if (
      options &&
      (value === "-" || ["-i", "--ignore-environment", "-0", "--null", "-v", "--debug"].includes(value))
    ) {
      i += 1;
      continue;
    }
    if (options && (value === "-u" || value === "--unset")) {
      i += 2;
      continue;
    }
    if (options && (value.startsWith("--unset=") || /^-u.+/.test(value))) {
      i += 1;
      continue;
    }
    if (options && (value === "-S" || value.startsWith("--split-string") || /^-S.+/.test(value))) {
      problem ??= "env -S splits a string into a command";
      const text =
        value === "-S" || value === "--split-string"
          ? rest[i + 1]?.value
          : value.replace(/^(-S|--split-string=)/, "");
      if (text !== undefined) scripts.push(text);
      i += value === "-S" || value === "--split-string" ? 2 : 1;
      continue;
    }
    if (options && value.startsWith("-")) {
      problem ??=
        value.startsWith("-C") || value.startsWith("--chdir")
          ? "env -C changes directory"
          : `env option ${value} is not understood`;
      i += value === "-C" || value === "--chdir" ? 2 : 1;
      continue;
    }
    if (ASSIGNMENT_WORD.test(value)) {
      const eq = value.indexOf("=");
      assigns.push({ name: value.slice(0, eq) });
      i += 1;
      continue;
    }
    break;
  }
  const inner = rest.slice(i);
  if (inner.length === 0 && scripts.length === 0) return undefined;
  return {
    name: "env",
    ...(problem ? { problem } : {}),
    commands: inner.length ? [{ words: inner, assigns }] : [],
    scripts,
  };
}

function unwrapShell(name: string, rest: ShellWord[]): Unwrapped | undefined {
  let i = 0;
  let sawC = false;
  let problem: string | undefined;
  while (i < rest.length) {
    const value = rest[i]!.value;
    if (value === undefined) break;
    if (value === "--" || value === "-") {
      i += 1;
      break;
    }
    if (!/^[-+]/.test(value) || value.length < 2) break;
    if (value.startsWith("--")) {
      if (["--norc", "--noprofile", "--posix", "--login", "--noediting"].includes(value)) {
        i += 1;
        continue;
      }
      if (value === "--rcfile" || value === "--init-file") {
        problem ??= `${name} ${value} runs another start-up file`;
        i += 2;
        continue;
      }
      problem ??= `${name} option ${value} is not understood`;
      i += 1;
      continue;
    }
    let takesValue = false;
    for (const flag of value.slice(1)) {
      if (flag === "c") sawC = true;
      else if (flag === "o" || flag === "O") takesValue = true;
      else if (flag === "i") problem ??= `${name} -i starts an interactive shell`;
      else if (flag === "s") problem ??= `${name} -s reads commands from standard input`;
      else if (!"euxlvfhBCEHPTabmnkt".includes(flag)) problem ??= `${name} option -${flag} is not understood`;
    }
    i += takesValue ? 2 : 1;
  }
  if (!sawC) {
    // `sh` with no script file reads its commands from standard input (`... | sh`, `sh <<EOF`).
    if (i >= rest.length)
      return {
        name,
        problem: `${name} reads commands from standard input`,
        opaque: true,
        hidden: true,
        commands: [],
        scripts: [],
      };
    return undefined;
  }
  const script = rest[i];
  if (!script) return { name, problem: `${name} -c without a command`, commands: [], scripts: [] };
  if (script.value === undefined)
    return {
      name,
      problem: `${name} -c runs a script computed at run time`,
      hidden: true,
      commands: [],
      scripts: [],
    };
  return { name, ...(problem ? { problem } : {}), commands: [], scripts: [script.value] };
}

function unwrapXargs(rest: ShellWord[]): Unwrapped {
  const valued = list(
    "-n -L -P -s -d -I -E --max-args --max-lines --max-procs --max-chars --delimiter --replace --eof --process-slot-var",
  );
  const flags = list("-0 --null -r --no-run-if-empty -t --verbose -x --exit -p --interactive --show-limits");
  let problem: string | undefined;
  let replace: string | undefined;
  let i = 0;
  while (i < rest.length) {
    const value = rest[i]!.value;
    if (value === undefined) {
      problem ??= "xargs option computed at run time";
      i += 1;
      continue;
    }
    if (value === "--") {
      i += 1;
      break;
    }
    if (!value.startsWith("-") || value === "-") break;
    const [flag, attached] = splitOption(value);
    if (flag === "-I" || flag === "--replace") {
      replace = attached ?? rest[i + 1]?.value ?? "{}";
      i += attached === undefined ? 2 : 1;
      continue;
    }
    if (/^-i/.test(value)) {
      replace = value.length > 2 ? value.slice(2) : "{}";
      i += 1;
      continue;
    }
    if (/^-I./.test(value)) {
      replace = value.slice(2);
      i += 1;
      continue;
    }
    if (valued.includes(flag)) {
      i += attached === undefined ? 2 : 1;
      continue;
    }
    if (/^-[nLPsdE]./.test(value) || /^-[el]/.test(value) || flags.includes(value)) {
      i += 1;
      continue;
    }
    if (flag === "-a" || flag === "--arg-file" || /^-a./.test(value)) {
      problem ??= "xargs -a reads arguments from a file";
      i += value === "-a" || (flag === "--arg-file" && attached === undefined) ? 2 : 1;
      continue;
    }
    problem ??= `xargs option ${value} is not understood`;
    i += 1;
  }
  const command = rest.slice(i);
  const words =
    command.length > 0
      ? command
      : [{ raw: "echo", value: "echo", glob: false, brace: false, procSubst: false }];
  const inner = words.map((word) =>
    replace !== undefined && word.value?.includes(replace) ? computedWord(word.raw) : word,
  );
  if (replace === undefined) inner.push(computedWord("<xargs input>"));
  return {
    name: "xargs",
    ...(problem ? { problem } : {}),
    commands: [{ words: inner, assigns: [] }],
    scripts: [],
  };
}

/** `find ... -exec cmd {} ;`: the commands are children, find itself is checked by its own rules. */
function unwrapFind(rest: ShellWord[]): Unwrapped | undefined {
  const commands: Unwrapped["commands"] = [];
  for (let i = 0; i < rest.length; i += 1) {
    const value = rest[i]!.value;
    if (value !== "-exec" && value !== "-execdir" && value !== "-ok" && value !== "-okdir") continue;
    const words: ShellWord[] = [];
    let j = i + 1;
    for (; j < rest.length; j += 1) {
      const v = rest[j]!.value;
      if (v === ";" || v === "+") break;
      words.push(v?.includes("{}") ? computedWord(rest[j]!.raw) : rest[j]!);
    }
    commands.push({ words, assigns: [] });
    i = j;
  }
  if (commands.length === 0) return undefined;
  return { name: "find", opaque: true, commands, scripts: [] };
}
