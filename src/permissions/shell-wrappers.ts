import { scanWrapperOptions, type WrapperOptions } from "./getopt.js";
import type { ScriptShell, ShellAssign, ShellWord } from "./shell-types.js";

/**
 * Wrappers: commands that run other commands. `unwrap` says which command(s) or script(s) a
 * wrapper runs, so each is checked on its own, and whether the wrapper itself adds anything
 * (`transparent` ones do not: `timeout 5 ls` is `ls`).
 *
 * The rule for everything here: when the inner command cannot be located for sure (an option that
 * is not understood, an argument computed at run time, a script file, a shell cairn does not
 * parse), the wrapper is `hidden`: nobody can see what it runs before it runs, so it is never
 * allowed without a rule, and with `--force` it is asked about while shell deny/ask rules are in force.
 */

/** A list of words written as one string. */
const list = (words: string): string[] => words.split(/\s+/).filter(Boolean);
const flags = (words: string): Record<string, "flag"> =>
  Object.fromEntries(list(words).map((word) => [word, "flag" as const]));
const valued = (words: string): Record<string, "value"> =>
  Object.fromEntries(list(words).map((word) => [word, "value" as const]));
const optional = (words: string): Record<string, "optional"> =>
  Object.fromEntries(list(words).map((word) => [word, "optional" as const]));

export type Unwrapped = {
  name: string;
  /** Runs its commands with more power or in a way we do not model: must itself be allowed. */
  opaque?: boolean;
  /** Runs commands that cannot be seen before it runs (a computed script, a script file, stdin). */
  hidden?: boolean;
  problem?: string;
  commands: { words: ShellWord[]; assigns: ShellAssign[] }[];
  /** Script texts the wrapper runs (`sh -c`, `eval`), with the shell that reads them. */
  scripts: { text: string; shell: ScriptShell }[];
};

/** Shells whose scripts cairn parses: bash itself, and `sh` (dash or bash: read as both). */
const PARSED_SHELLS: Record<string, ScriptShell> = {
  bash: "bash",
  rbash: "bash",
  sh: "sh",
  dash: "sh",
  ash: "sh",
};
/** Shells whose language differs from bash's: their scripts are not parsed. */
const OTHER_SHELLS = new Set(
  list("zsh ksh ksh93 mksh pdksh yash fish csh tcsh pwsh nu elvish xonsh oksh posh"),
);
/** Programs that run a command in ways this table does not follow (the command cannot be located). */
const HIDING = new Set(
  list(
    "nsenter prlimit strace ltrace valgrind perf gdb lldb systemd-run firejail bwrap parallel sem at batch ssh expect socat proxychains proxychains4 torsocks torify xvfb-run dbus-run-session dbus-launch fakeroot faketime numactl cgexec pkexec newgrp setarch linux32 linux64 chpst softlimit unbuffer rlwrap catchsegv cpulimit caffeinate entr inotifywait daemonize start-stop-daemon script-run",
  ),
);

const ASSIGNMENT_WORD = /^[A-Za-z_][A-Za-z0-9_]*=/;

/** A word standing for arguments computed at run time (`xargs` input, `{}` of `find -exec`). */
function computedWord(raw: string): ShellWord {
  return { raw, glob: false, brace: false, procSubst: false };
}

type CommandWrapper = {
  options: WrapperOptions;
  /** Operands between the options and the command (`timeout DURATION cmd`, `chroot DIR cmd`). */
  operands?: number;
  /** Adds nothing: its decision is that of its command. */
  transparent?: boolean;
  /** Options that mean something must be asked about, with the reason. */
  problems?: Readonly<Record<string, string>>;
  /** Options after which there is no command (`taskset -p`, `ionice -p`). */
  noCommand?: readonly string[];
  /** Without a command it starts a shell reading standard input. */
  shellWithoutCommand?: boolean;
  /** Options whose value is a script for `sh -c` (`script -c`, `su -c`). */
  scriptOptions?: readonly string[];
  /** Its operands are files, not a command (`script -c CMD FILE`). */
  operandsAreFiles?: boolean;
};

/** `su`'s options (and `runuser`'s, which adds `-u USER`). */
const SU_OPTIONS = {
  shortFlags: "flmpP",
  shortValued: "cgGsw",
  long: {
    ...valued("--command --session-command --group --supp-group --shell --whitelist-environment"),
    ...flags("--fast --login --preserve-environment --pty"),
  },
} satisfies WrapperOptions;
const SU_SCRIPTS = ["-c", "--command", "--session-command"];

// Built on first use (a Bash call to check): the option tables of 24 wrappers, which cost about
// 0.5 ms of every start of the CLI when they were built as the module loaded.
let wrapperTable: Record<string, CommandWrapper> | undefined;
function wrappers(): Record<string, CommandWrapper> {
  wrapperTable ??= {
    timeout: {
      options: {
        shortFlags: "v",
        shortValued: "ks",
        long: { ...flags("--preserve-status --foreground --verbose"), ...valued("--kill-after --signal") },
      },
      operands: 1,
      transparent: true,
    },
    nice: { options: { shortValued: "n", long: valued("--adjustment"), numeric: true }, transparent: true },
    nohup: { options: {}, transparent: true },
    builtin: { options: {}, transparent: true },
    stdbuf: { options: { shortValued: "ioe", long: valued("--input --output --error") }, transparent: true },
    ionice: {
      options: {
        shortFlags: "t",
        shortValued: "cnpPu",
        long: { ...valued("--class --classdata --pid --pgid --uid"), ...flags("--ignore") },
      },
      noCommand: list("-p -P -u --pid --pgid --uid"),
      transparent: true,
    },
    setsid: { options: { shortFlags: "fwc", long: flags("--fork --wait --ctty") }, transparent: true },
    time: {
      options: {
        shortFlags: "pvqa",
        shortValued: "fo",
        long: { ...valued("--format --output"), ...flags("--portability --verbose --quiet --append") },
      },
      problems: { "-o": "time -o writes a file", "--output": "time -o writes a file" },
      transparent: true,
    },
    command: { options: { shortFlags: "pvV" }, noCommand: ["-v", "-V"], transparent: true },
    exec: { options: { shortFlags: "cl", shortValued: "a" }, transparent: true },
    taskset: {
      options: { shortFlags: "acp", long: flags("--all-tasks --cpu-list --pid") },
      operands: 1,
      noCommand: ["-p", "--pid"],
      transparent: true,
    },
    chrt: {
      options: {
        shortFlags: "bdfiorRamvp",
        shortValued: "TPD",
        long: {
          ...flags(
            "--batch --deadline --fifo --idle --other --rr --reset-on-fork --all-tasks --max --verbose --pid",
          ),
          ...valued("--sched-runtime --sched-period --sched-deadline"),
        },
      },
      operands: 1,
      noCommand: ["-p", "--pid", "-m", "--max"],
      transparent: true,
    },
    sudo: {
      options: {
        shortFlags: "AbEHknPSisBNe",
        shortValued: "ugCDhprtTUR",
        long: {
          ...valued(
            "--user --group --close-from --chdir --host --prompt --role --type --command-timeout --other-user --chroot",
          ),
          ...flags(
            "--askpass --background --preserve-env --set-home --reset-timestamp --non-interactive --preserve-groups --stdin --login --shell --bell --no-update --edit",
          ),
        },
      },
      shellWithoutCommand: true,
    },
    doas: { options: { shortFlags: "nsL", shortValued: "uC" }, shellWithoutCommand: true },
    chroot: {
      options: { long: { ...valued("--groups --userspec"), ...flags("--skip-chdir") } },
      operands: 1,
      shellWithoutCommand: true,
    },
    unshare: {
      options: {
        shortFlags: "muinpUCTfrc",
        shortValued: "SGRwl",
        long: {
          ...optional("--mount --uts --ipc --net --pid --user --cgroup --time --kill-child --mount-proc"),
          ...flags("--fork --map-root-user --map-current-user --map-auto --keep-caps --mount-binfmt"),
          ...valued(
            "--setuid --setgroups --root --wd --load-interp --propagation --map-user --map-group --map-users --map-groups --monotonic --boottime",
          ),
        },
      },
      shellWithoutCommand: true,
    },
    setpriv: {
      options: {
        shortFlags: "d",
        long: {
          ...flags("--dump --nnp --no-new-privs --keep-groups --clear-groups --init-groups --reset-env"),
          ...valued(
            "--reuid --regid --ruid --rgid --euid --egid --groups --inh-caps --ambient-caps --bounding-set --securebits --pdeathsig --selinux-label --apparmor-profile --landlock-access --landlock-rule",
          ),
        },
      },
    },
    script: {
      options: {
        shortFlags: "aefqwt",
        shortValued: "cEIOBTmo",
        long: {
          ...flags("--append --return --flush --force --quiet"),
          ...valued(
            "--command --echo --log-io --log-in --log-out --log-timing --logging-format --output-limit",
          ),
          ...optional("--timing"),
        },
      },
      scriptOptions: ["-c", "--command"],
      shellWithoutCommand: true,
      operandsAreFiles: true,
    },
    watch: {
      options: {
        shortFlags: "dtbegcxpwr",
        shortValued: "nq",
        long: {
          ...valued("--interval --equexit"),
          ...optional("--differences"),
          ...flags(
            "--no-title --beep --errexit --chgexit --color --no-color --exec --precise --no-wrap --no-rerun",
          ),
        },
      },
    },
    su: { options: SU_OPTIONS, scriptOptions: SU_SCRIPTS },
    runuser: {
      options: {
        ...SU_OPTIONS,
        shortValued: `${SU_OPTIONS.shortValued}u`,
        long: { ...SU_OPTIONS.long, "--user": "value" },
      },
      scriptOptions: SU_SCRIPTS,
    },
    flock: {
      options: {
        shortFlags: "sexnouFc",
        shortValued: "wE",
        long: {
          ...flags("--shared --exclusive --unlock --nonblock --nb --close --no-fork --verbose --command"),
          ...valued("--timeout --wait --conflict-exit-code"),
        },
      },
      operands: 1,
    },
    sg: { options: {}, operands: 1 },
    busybox: { options: {} },
  };
  return wrapperTable;
}

/** Reasons the non-transparent wrappers are asked about. */
const WHY: Record<string, string> = {
  sudo: "runs a command as another user",
  doas: "runs a command as another user",
  su: "runs a command as another user",
  runuser: "runs a command as another user",
  sg: "runs a command with another group",
  chroot: "runs a command under another root directory",
  unshare: "runs a command in new namespaces",
  setpriv: "runs a command with other privileges",
  script: "records a terminal session to a file",
  watch: "runs a command again and again",
  flock: "creates a lock file",
  busybox: "runs a busybox applet, which is not the checked GNU tool",
};

/**
 * If `words` runs another command (`timeout 5 ls`), says which. Undefined when it is a plain command.
 * `shell` is the shell reading the words (for `eval`).
 */
export function unwrap(words: readonly ShellWord[], shell: ScriptShell = "bash"): Unwrapped | undefined {
  const written = words[0]?.value;
  if (written === undefined) return undefined;
  // `/usr/bin/env rm x` is unwrapped too (deny rules must see `rm`), but a wrapper named by a path
  // could be any program (`./timeout`), so it must itself be allowed.
  const name = written.includes("/") ? written.slice(written.lastIndexOf("/") + 1) : written;
  const result = unwrapNamed(name, words.slice(1), shell);
  return result && written.includes("/") ? { ...result, opaque: true } : result;
}

function unwrapNamed(name: string, rest: ShellWord[], shell: ScriptShell): Unwrapped | undefined {
  if (name === "env") return unwrapEnv(rest);
  if (name === "xargs") return unwrapXargs(rest);
  if (name === "find") return unwrapFind(rest);
  if (name === "eval") {
    if (rest.some((word) => word.value === undefined))
      return hiddenRun(name, "eval of text computed at run time", false);
    return { name, commands: [], scripts: [{ text: rest.map((word) => word.value).join(" "), shell }] };
  }
  if (name === "." || name === "source") {
    if (rest.length === 0) return undefined;
    return hiddenRun(name, `runs the script file ${rest[0]!.raw}, which cannot be checked`);
  }
  if (name in PARSED_SHELLS) return unwrapShell(name, rest, PARSED_SHELLS[name]!);
  if (OTHER_SHELLS.has(name)) return hiddenRun(name, `${name} scripts are not checked (only bash and sh)`);
  if (HIDING.has(name)) return hiddenRun(name, "runs a command in a way that cannot be checked");
  const table = wrappers();
  const wrapper = Object.hasOwn(table, name) ? table[name] : undefined;
  return wrapper ? unwrapCommand(name, rest, wrapper) : undefined;
}

/** A wrapper whose commands nobody can see. */
function hiddenRun(name: string, problem: string, opaque = true): Unwrapped {
  return { name, problem, hidden: true, ...(opaque ? { opaque: true } : {}), commands: [], scripts: [] };
}

function unwrapCommand(name: string, rest: ShellWord[], wrapper: CommandWrapper): Unwrapped | undefined {
  const scan = scanWrapperOptions(
    name,
    rest.map((word) => word.value),
    wrapper.options,
  );
  const why = WHY[name];
  const base = {
    name,
    ...(wrapper.transparent ? {} : { opaque: true }),
  };
  if (scan.problem) return { ...hiddenRun(name, scan.problem), ...base };
  let problem = why;
  for (const option of scan.options) {
    problem = wrapper.problems?.[option.name] ?? problem;
    if (wrapper.noCommand?.includes(option.name)) return undefined;
  }
  const scripts = scan.options.filter((option) => wrapper.scriptOptions?.includes(option.name));
  if (scripts.some((option) => option.value === undefined))
    return { ...hiddenRun(name, `${name} runs a script computed at run time`), ...base };
  let i = scan.next;
  if (name === "watch") return unwrapWatch(rest, scan);
  if (name === "runuser" && scan.options.some((o) => o.name === "-u" || o.name === "--user")) {
    // `runuser -u USER [--] cmd args`: the command follows directly.
    if (rest[i]?.value === "--") i += 1;
  } else if (name === "su" || name === "runuser") {
    // `su [-] [USER [ARGS]]`: the arguments go to the user's shell.
    if (rest[i]?.value === "-") i += 1;
    if (scripts.length === 0)
      return { ...hiddenRun(name, `${name} starts a shell for another user`), ...base };
    i = rest.length;
  } else {
    i += wrapper.operands ?? 0;
  }
  if (name === "flock" && ["-c", "--command"].includes(rest[i]?.value ?? "")) {
    const script = rest[i + 1];
    if (script?.value === undefined)
      return { ...hiddenRun(name, "flock -c runs a script computed at run time"), ...base };
    return { ...base, problem: problem!, commands: [], scripts: [{ text: script.value, shell: "sh" }] };
  }
  const inner = wrapper.operandsAreFiles ? [] : rest.slice(Math.min(i, rest.length));
  if (name === "sg") {
    if (inner[0]?.value === "-c") inner.shift();
    if (inner.some((word) => word.value === undefined))
      return { ...hiddenRun(name, "sg runs a script computed at run time"), ...base };
    if (inner.length === 0) return { ...hiddenRun(name, "sg starts a shell"), ...base };
    return {
      ...base,
      problem: problem!,
      commands: [],
      scripts: [{ text: inner.map((w) => w.value).join(" "), shell: "sh" }],
    };
  }
  const scriptTexts = scripts.map((option) => ({ text: option.value!, shell: "sh" as const }));
  if (inner.length === 0 && scriptTexts.length === 0) {
    if (wrapper.shellWithoutCommand)
      return { ...hiddenRun(name, `${name} starts a shell reading its input`), ...base };
    return undefined;
  }
  return {
    ...base,
    ...(problem ? { problem } : {}),
    commands: inner.length ? [{ words: inner, assigns: [] }] : [],
    scripts: scriptTexts,
  };
}

/** `watch CMD ARGS` joins its arguments and runs them with `sh -c` (with `-x`, as a command). */
function unwrapWatch(rest: ShellWord[], scan: ReturnType<typeof scanWrapperOptions>): Unwrapped {
  const base = { name: "watch", opaque: true, problem: WHY.watch! };
  const inner = rest.slice(scan.next);
  if (scan.options.some((option) => option.name === "-x" || option.name === "--exec"))
    return { ...base, commands: [{ words: inner, assigns: [] }], scripts: [] };
  if (inner.some((word) => word.value === undefined))
    return { ...hiddenRun("watch", "watch runs a script computed at run time") };
  return {
    ...base,
    commands: [],
    scripts: [{ text: inner.map((word) => word.value).join(" "), shell: "sh" }],
  };
}

const ENV_OPTIONS: WrapperOptions = {
  shortFlags: "i0v",
  shortValued: "uCSP",
  long: {
    ...flags("--ignore-environment --null --debug --list-signal-handling"),
    ...valued("--unset --chdir --split-string"),
    ...optional("--block-signal --default-signal --ignore-signal"),
  },
};

function unwrapEnv(rest: ShellWord[]): Unwrapped | undefined {
  // `env -` is `env -i`.
  const words = rest[0]?.value === "-" ? rest.slice(1) : rest;
  const scan = scanWrapperOptions(
    "env",
    words.map((word) => word.value),
    ENV_OPTIONS,
  );
  if (scan.problem) return hiddenRun("env", scan.problem, false);
  let problem: string | undefined;
  const scripts: Unwrapped["scripts"] = [];
  let hidden = false;
  for (const option of scan.options) {
    if (option.name === "-C" || option.name === "--chdir") problem ??= "env -C changes directory";
    if (option.name === "-P") problem ??= "env -P searches another PATH";
    if (option.name === "-S" || option.name === "--split-string") {
      // env's own splitting (with `${VAR}` and escapes) is not the shell's: read as a script for deny
      // rules, but never trusted.
      problem ??= "env -S splits a string into a command";
      hidden = true;
      if (option.value !== undefined) scripts.push({ text: option.value, shell: "bash" });
    }
  }
  const assigns: ShellAssign[] = [];
  let i = scan.next;
  for (; i < words.length; i += 1) {
    const value = words[i]!.value;
    if (value === undefined) {
      problem ??= "env argument computed at run time";
      hidden = true;
      break;
    }
    if (!ASSIGNMENT_WORD.test(value)) break;
    assigns.push({ name: value.slice(0, value.indexOf("=")) });
  }
  const inner = words.slice(i);
  if (inner.length === 0 && scripts.length === 0 && !problem) return undefined;
  return {
    name: "env",
    ...(problem ? { problem } : {}),
    ...(hidden ? { hidden: true } : {}),
    commands: inner.length || assigns.length ? [{ words: inner, assigns }] : [],
    scripts,
  };
}

const SHELL_LONG = new Set(["--norc", "--noprofile", "--posix", "--login", "--noediting", "--restricted"]);

function unwrapShell(name: string, rest: ShellWord[], shell: ScriptShell): Unwrapped | undefined {
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
      if (SHELL_LONG.has(value)) {
        i += 1;
        continue;
      }
      if (value === "--rcfile" || value === "--init-file") {
        problem ??= `${name} ${value} runs another start-up file`;
        i += 2;
        continue;
      }
      return hiddenRun(name, `${name} option ${value} is not understood`);
    }
    let takesValue = false;
    for (const flag of value.slice(1)) {
      if (flag === "c") sawC = true;
      else if (flag === "o" || flag === "O") takesValue = true;
      else if (flag === "i") problem ??= `${name} -i starts an interactive shell`;
      else if (flag === "s") return hiddenRun(name, `${name} -s reads commands from standard input`);
      // -k (assignments anywhere are exported) and -a (every assignment exported) change what runs.
      else if (!"euxlvfhBCEHPTbmnrpt".includes(flag))
        return hiddenRun(name, `${name} option -${flag} is not understood`);
    }
    if (takesValue) problem ??= `${name} -o/-O sets shell options that change how the script is read`;
    i += takesValue ? 2 : 1;
  }
  if (!sawC) {
    // `sh` with no script file reads its commands from standard input (`... | sh`, `sh <<EOF`).
    if (i >= rest.length) return hiddenRun(name, `${name} reads commands from standard input`);
    return hiddenRun(name, `${name} runs the script file ${rest[i]!.raw}, which cannot be checked`);
  }
  const script = rest[i];
  if (!script) return { name, problem: `${name} -c without a command`, commands: [], scripts: [] };
  if (script.value === undefined)
    return hiddenRun(name, `${name} -c runs a script computed at run time`, false);
  return { name, ...(problem ? { problem } : {}), commands: [], scripts: [{ text: script.value, shell }] };
}

function unwrapXargs(rest: ShellWord[]): Unwrapped {
  const valuedOptions = list(
    "-n -L -P -s -d -I -E --max-args --max-lines --max-procs --max-chars --delimiter --replace --eof --process-slot-var",
  );
  const flagOptions = list(
    "-0 --null -r --no-run-if-empty -t --verbose -x --exit -p --interactive --show-limits",
  );
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
    const eq = value.startsWith("--") ? value.indexOf("=") : -1;
    const [flag, attached] = eq === -1 ? [value, undefined] : [value.slice(0, eq), value.slice(eq + 1)];
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
    if (valuedOptions.includes(flag)) {
      i += attached === undefined ? 2 : 1;
      continue;
    }
    if (/^-[nLPsdE]./.test(value) || /^-[el]/.test(value) || flagOptions.includes(value)) {
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
    ...(problem ? { problem, hidden: true } : {}),
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
