import type { ShellWord } from "./shell-types.js";

/**
 * getopt-style argument scanning for the read-only command list (shell-readonly.ts): short option
 * clusters, `--long[=value]` with GNU abbreviations, `--`, and the checks an option spec asks for.
 */

export type ArgChecker = {
  /** A problem when the word, read as a path, may lie outside the workspace or is denied; else undefined. */
  readPath(word: ShellWord): string | undefined;
  /** The names an unquoted glob word expands to right now (undefined: too many or unreadable). */
  expandGlob(word: ShellWord): string[] | undefined;
};

/** Undefined when read-only; otherwise why not. */
export type ReadOnlyCheck = (args: readonly ShellWord[], checker: ArgChecker) => string | undefined;

export type OptionSpec = {
  /** Short options that take a value (rest of the cluster or the next word). */
  shortValue?: string;
  /** Long options that take a value (`--name value` or `--name=value`). */
  longValue?: readonly string[];
  /** Options that make the command unsafe, with the reason. Long ones also match their abbreviations. */
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
export function scanOptions(
  name: string,
  args: readonly ShellWord[],
  spec: OptionSpec,
  checker: ArgChecker,
): Scan {
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
    if (word.glob && /^[*?[]/.test(value) && !spec.safeOptions) {
      const names = checker.expandGlob(word);
      if (!names) return fail(`the pattern ${word.raw} matches too many files to check`);
      const option = names.find((n) => n.startsWith("-"));
      if (option)
        return fail(`the pattern ${word.raw} expands to ${option}, which ${name} would read as an option`);
    }
    if (value === "--") {
      endOfOptions = true;
      continue;
    }
    if (value.startsWith("--") && value.length > 2) {
      const eq = value.indexOf("=");
      const long = eq === -1 ? value : value.slice(0, eq);
      const denied = deniedLong(long, spec.deny);
      if (denied) return fail(`${name} ${long}: ${denied}`);
      let optionValue: ShellWord | undefined;
      if (eq !== -1) optionValue = { ...word, value: value.slice(eq + 1), raw: value.slice(eq + 1) };
      else if (matchesLong(long, spec.longValue)) {
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

function deniedLong(long: string, deny: OptionSpec["deny"]): string | undefined {
  if (!deny) return undefined;
  for (const [option, reason] of Object.entries(deny)) {
    if (!option.startsWith("--")) continue;
    if (option === long || (long.length >= 4 && option.startsWith(long))) return reason;
  }
  return undefined;
}

function matchesLong(long: string, list: readonly string[] | undefined): boolean {
  if (!list) return false;
  return list.some((option) => option === long || (long.length >= 4 && option.startsWith(long)));
}

/** A validator from an option spec, named when it is put on the list. */
export class Factory {
  constructor(readonly make: (name: string) => ReadOnlyCheck) {}
}

export function options(spec: OptionSpec): Factory {
  return new Factory((name) => (args, checker) => {
    const scan = scanOptions(name, args, spec, checker);
    if (scan.problem) return scan.problem;
    for (const option of scan.options) {
      if (option.value && spec.pathOptions?.includes(option.name)) {
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
      if (!patternGiven) paths = paths.slice(1);
    }
    for (const path of paths) {
      const problem = checker.readPath(path);
      if (problem) return problem;
    }
    return undefined;
  });
}
