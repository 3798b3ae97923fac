import { resolveLongOption, splitLong } from "./getopt.js";
import type { ShellWord } from "./shell-types.js";

/**
 * getopt-style argument scanning for the read-only command list (shell-readonly.ts): short option
 * clusters, `--long[=value]` with GNU abbreviations, `--`, and the checks an option spec asks for.
 */

export type ArgChecker = {
  /** A problem when the word, read as a path, may lie outside the workspace or is denied; else undefined. */
  readPath(word: ShellWord): string | undefined;
  /** Like `readPath`, for a path relative to the top of the workspace's repository (`HEAD:PATH`). */
  readRepoPath(path: string): string | undefined;
  /**
   * A problem unless git, started in the working directory and then in each `-C` directory, uses the
   * workspace's own repository (found from there, or named: `--git-dir`, relative to the last `-C`;
   * `--bare`, the directory itself): another one, a nested repository the model wrote, has a config
   * that can run programs (textconv, filters).
   */
  gitRepository(start: GitStart): string | undefined;
  /** Whether `p`, from the working directory, is a directory (symbolic links followed). */
  isDirectory(p: string): boolean;
};

/** Where git looks for its repository: the `-C` directories in order, and the git directory if named. */
export type GitStart = { cDirs: ShellWord[]; gitDir?: ShellWord | "bare" };

/** A checker that accepts every path: what a command's options alone say ("could this part write?"). */
export const OPTIONS_ONLY: ArgChecker = {
  readPath: () => undefined,
  readRepoPath: () => undefined,
  gitRepository: () => undefined,
  isDirectory: () => false,
};

/** Undefined when read-only; otherwise why not. */
export type ReadOnlyCheck = (args: readonly ShellWord[], checker: ArgChecker) => string | undefined;

export type OptionSpec = {
  /** Short options that take a value (rest of the cluster or the next word). */
  shortValue?: string;
  /** Long options that take a value (`--name value` or `--name=value`). */
  longValue?: readonly string[];
  /**
   * The command's other long options (flags). Abbreviations resolve against every long option the
   * spec names, as getopt_long does, so the lists must be complete for commands with dangerous or
   * path-taking options.
   */
  longFlags?: readonly string[];
  /**
   * Options that make the command unsafe, with the reason. Long ones also match every abbreviation
   * that could stand for them (`--o` for `--output`), unless it names another option exactly.
   */
  deny?: Readonly<Record<string, string>>;
  /** Options whose value is a path the command reads. */
  pathOptions?: readonly string[];
  /**
   * What the operands are: files read (`paths`), free text (`text`), none allowed (`none`), or a
   * pattern followed by files (`pattern+paths`, as grep).
   */
  operands: "paths" | "text" | "none" | "pattern+paths";
  /** Options that supply the pattern, so every operand is a path (`grep -e PAT file`). */
  patternOptions?: readonly string[];
  maxOperands?: number;
  /** Every option is harmless, so a computed or globbed word cannot smuggle a dangerous one. */
  safeOptions?: boolean;
  /** Options end at the first operand (`printf FORMAT args`). */
  optionsFirst?: boolean;
};

export type Scan = {
  operands: ShellWord[];
  options: { name: string; value?: ShellWord }[];
  problem?: string;
};

/** getopt-style scan: short clusters, `--long[=value]` with GNU abbreviations, `--` ends options. */
export function scanOptions(name: string, args: readonly ShellWord[], spec: OptionSpec): Scan {
  const scan: Scan = { operands: [], options: [] };
  const fail = (problem: string): Scan => ({ ...scan, problem });
  let endOfOptions = false;
  for (let i = 0; i < args.length; i += 1) {
    const word = args[i]!;
    const value = word.value;
    if (endOfOptions) {
      scan.operands.push(word);
      continue;
    }
    if (value === undefined) {
      if (!word.procSubst && !spec.safeOptions)
        return fail(`the argument ${word.raw} of ${name} is computed at run time`);
      scan.operands.push(word);
      if (spec.optionsFirst) endOfOptions = true;
      continue;
    }
    if (value === "--") {
      endOfOptions = true;
      continue;
    }
    if (value.startsWith("--") && value.length > 2) {
      const [written, attached] = splitLong(value);
      const resolved = resolveLongOption(written, knownLong(spec));
      const long = resolved.kind === "exact" || resolved.kind === "prefix" ? resolved.option : written;
      const denied = resolved.kind === "exact" ? spec.deny?.[long] : deniedPrefix(written, spec.deny);
      if (denied) return fail(`${name} ${written}: ${denied}`);
      if (resolved.kind === "ambiguous")
        return fail(`${name} ${written} is ambiguous (${resolved.candidates.join(", ")})`);
      let optionValue: ShellWord | undefined;
      if (attached !== undefined) optionValue = { ...word, value: attached, raw: attached };
      else if (spec.longValue?.includes(long)) {
        optionValue = args[i + 1];
        i += 1;
        if (!optionValue) return fail(`${name} ${long} is missing its value`);
      }
      scan.options.push({ name: long, ...(optionValue ? { value: optionValue } : {}) });
      continue;
    }
    if (value.startsWith("-") && value.length > 1) {
      for (let j = 1; j < value.length; j += 1) {
        const option = `-${value[j]}`;
        const reason = spec.deny?.[option];
        if (reason) return fail(`${name} ${option}: ${reason}`);
        if (spec.shortValue?.includes(value[j]!)) {
          let optionValue: ShellWord | undefined;
          if (j + 1 < value.length)
            optionValue = { ...word, value: value.slice(j + 1), raw: value.slice(j + 1) };
          else {
            optionValue = args[i + 1];
            i += 1;
            if (!optionValue) return fail(`${name} ${option} is missing its value`);
          }
          scan.options.push({ name: option, value: optionValue });
          break;
        }
        scan.options.push({ name: option });
      }
      continue;
    }
    scan.operands.push(word);
    if (spec.optionsFirst) endOfOptions = true;
  }
  return scan;
}

/** Every long option a spec names. */
function knownLong(spec: OptionSpec): string[] {
  const named = [
    ...(spec.longValue ?? []),
    ...(spec.longFlags ?? []),
    ...Object.keys(spec.deny ?? {}),
    ...(spec.pathOptions ?? []),
    ...(spec.patternOptions ?? []),
  ];
  return named.filter((option) => option.startsWith("--"));
}

/** The reason of a denied long option `written` may abbreviate. */
function deniedPrefix(written: string, deny: OptionSpec["deny"]): string | undefined {
  for (const [option, reason] of Object.entries(deny ?? {}))
    if (option.startsWith("--") && option.startsWith(written)) return reason;
  return undefined;
}

/** A validator from an option spec, named when it is put on the list. */
export class Factory {
  constructor(readonly make: (name: string) => ReadOnlyCheck) {}
}

export function options(spec: OptionSpec): Factory {
  return new Factory((name) => (args, checker) => {
    const scan = scanOptions(name, args, spec);
    if (scan.problem) return scan.problem;
    for (const option of scan.options) {
      // A path option's value is read; so may be `--flag=value` of an option not known to take a value.
      const valued = spec.longValue?.includes(option.name) || spec.shortValue?.includes(option.name.slice(1));
      if (option.value && (spec.pathOptions?.includes(option.name) || !valued)) {
        const problem = checker.readPath(option.value);
        if (problem) return problem;
      }
    }
    if (spec.maxOperands !== undefined && scan.operands.length > spec.maxOperands)
      return `${name} with more than ${spec.maxOperands} operand(s) may write a file`;
    if (spec.operands === "none" && scan.operands.length > 0)
      return `${name} with an argument (${scan.operands[0]!.raw}) changes something`;
    if (spec.operands === "text" || spec.operands === "none") return undefined;
    let paths = scan.operands;
    if (spec.operands === "pattern+paths") {
      const patternGiven = scan.options.some((option) => spec.patternOptions?.includes(option.name));
      if (!patternGiven && (paths[0]?.fromGlob || paths[0]?.brace))
        return `the pattern of ${name} would be what a wildcard or brace expansion produces`;
      if (!patternGiven) paths = paths.slice(1);
    }
    for (const path of paths) {
      const problem = checker.readPath(path);
      if (problem) return problem;
    }
    return undefined;
  });
}
