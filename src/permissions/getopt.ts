/**
 * GNU `getopt_long` as the checked programs read their options: a long option may be abbreviated to
 * any unambiguous prefix (`sort --o=x` is `sort --output=x`, `date --f=x` is `date --file=x`), an
 * exact name wins over longer ones, an ambiguous prefix is an error of the program.
 */

export type LongResolution =
  | { kind: "exact" | "prefix"; option: string }
  | { kind: "ambiguous"; candidates: string[] }
  | { kind: "unknown" };

/** Which of `known` (full `--names`) the written `--name` (no `=value`) selects. */
export function resolveLongOption(written: string, known: Iterable<string>): LongResolution {
  const candidates: string[] = [];
  for (const option of known) {
    if (option === written) return { kind: "exact", option };
    if (option.startsWith(written)) candidates.push(option);
  }
  const unique = [...new Set(candidates)];
  if (unique.length === 1) return { kind: "prefix", option: unique[0]! };
  if (unique.length > 1) return { kind: "ambiguous", candidates: unique };
  return { kind: "unknown" };
}

/** `--name=value` → [`--name`, `value`]; `--name` → [`--name`, undefined]. */
export function splitLong(word: string): [string, string | undefined] {
  const eq = word.indexOf("=");
  return eq === -1 ? [word, undefined] : [word.slice(0, eq), word.slice(eq + 1)];
}

/** How a wrapper's options are written: which take a value, which are known flags. */
export type WrapperOptions = {
  /** Short options that take no value (`"iv0"`). */
  shortFlags?: string;
  /** Short options that take a value: the rest of the cluster or the next word. */
  shortValued?: string;
  /** Long options: `flag`, `value` (required), `optional` (only as `--name=value`). */
  long?: Readonly<Record<string, "flag" | "value" | "optional">>;
  /** `-5` style numeric options (`nice -10`). */
  numeric?: boolean;
};

export type ScannedOption = { name: string; value?: string | undefined; computed?: boolean };

export type WrapperScan = {
  options: ScannedOption[];
  /** Index of the first word that is not an option (the operands and the command start here). */
  next: number;
  /** Set when an option is not known or computed: what follows cannot be located for sure. */
  problem?: string;
};

/**
 * Scans a wrapper's leading options the way `getopt_long` with a leading `+` does (they stop at the
 * first operand, so the inner command's own options are not read as the wrapper's).
 */
export function scanWrapperOptions(
  name: string,
  values: readonly (string | undefined)[],
  spec: WrapperOptions,
): WrapperScan {
  const options: ScannedOption[] = [];
  const long = spec.long ?? {};
  let problem: string | undefined;
  let i = 0;
  for (; i < values.length; i += 1) {
    const value = values[i];
    if (value === undefined) {
      problem ??= `an argument of ${name} is computed at run time`;
      break;
    }
    if (value === "--") {
      i += 1;
      break;
    }
    if (!value.startsWith("-") || value === "-") break;
    if (value.startsWith("--")) {
      const [written, attached] = splitLong(value);
      const resolved = resolveLongOption(written, Object.keys(long));
      if (resolved.kind === "unknown" || resolved.kind === "ambiguous") {
        problem ??= `${name} option ${written} is not understood`;
        continue;
      }
      const kind = long[resolved.option]!;
      if (kind === "value" && attached === undefined) {
        i += 1;
        options.push({ name: resolved.option, value: values[i], computed: values[i] === undefined });
      } else {
        options.push({ name: resolved.option, ...(attached !== undefined ? { value: attached } : {}) });
      }
      continue;
    }
    if (spec.numeric && /^-\d+$/.test(value)) {
      options.push({ name: value });
      continue;
    }
    for (let j = 1; j < value.length; j += 1) {
      const flag = value[j]!;
      if (spec.shortValued?.includes(flag)) {
        let attached: string | undefined = value.slice(j + 1);
        if (attached === "") {
          i += 1;
          attached = values[i];
          options.push({ name: `-${flag}`, value: attached, computed: attached === undefined });
        } else {
          options.push({ name: `-${flag}`, value: attached });
        }
        break;
      }
      if (!spec.shortFlags?.includes(flag)) problem ??= `${name} option -${flag} is not understood`;
      options.push({ name: `-${flag}` });
    }
  }
  return { options, next: i, ...(problem ? { problem } : {}) };
}
