import { UsageError } from "../util/exit-codes.js";
import type { FlagSpec } from "./flag-table.js";

/**
 * A number flag's value, checked as the table says (`positive-integer`, `number` with `min` and
 * `integer`); a bad one is a usage error naming the flag and the value. Print mode and ACP check
 * with it; the protocol leaves values to the SDK's options schema, as the SDKs' own CLI does.
 */
export function numberValue(spec: FlagSpec, value: string): number {
  const kind = spec.value?.kind;
  const n = Number(value);
  if (kind === "positive-integer") {
    if (!Number.isInteger(n) || n <= 0)
      throw new UsageError(`${spec.flag} must be a positive integer, got "${value}"`);
    return n;
  }
  const min = spec.value?.min ?? Number.NEGATIVE_INFINITY;
  const integer = spec.value?.integer === true;
  if (value.trim() === "" || !Number.isFinite(n) || n < min || (integer && !Number.isInteger(n)))
    throw new UsageError(
      `${spec.flag} must be ${integer ? "a whole number" : "a number"} of at least ${min}, got "${value}"`,
    );
  return n;
}

/** A comma-separated list, as the SDKs pass lists (`--allowedTools Read,Bash(git:*)`). */
export function listValue(value: string): string[] {
  return value
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean);
}

/** One word of argv read against a door's flags. */
export type ReadFlag =
  | { type: "flag"; spec: FlagSpec; spelling: string; value?: string }
  | { type: "unknown"; flag: string; value?: string }
  | { type: "argument"; text: string };

/**
 * Reads argv as the doors without commander read it (the protocol, ACP): `--flag value` and
 * `--flag=value`; a flag the table says takes a value takes the next word whatever it is; an
 * unknown flag takes the next word when it is not a flag itself (an SDK's `extraArgs` as `--k v`).
 */
export function readFlags(
  argv: readonly string[],
  find: (spelling: string) => FlagSpec | undefined,
): ReadFlag[] {
  const read: ReadFlag[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const eq = arg.startsWith("--") ? arg.indexOf("=") : -1;
    const spelling = eq === -1 ? arg : arg.slice(0, eq);
    let value: string | undefined = eq === -1 ? undefined : arg.slice(eq + 1);
    const spec = arg === "--" ? undefined : find(spelling);
    // A word that is no flag of the door's and not written as a long one is an argument.
    if (!spec && (!arg.startsWith("--") || arg === "--")) {
      read.push({ type: "argument", text: arg });
      continue;
    }
    if (spec) {
      const takes = spec.value;
      if (value === undefined && takes && !takes.optional) value = argv[++i] ?? "";
      else if (
        value === undefined &&
        takes?.optional &&
        argv[i + 1] !== undefined &&
        !argv[i + 1]!.startsWith("-")
      )
        value = argv[++i];
      read.push({ type: "flag", spec, spelling, ...(value !== undefined ? { value } : {}) });
      continue;
    }
    if (value === undefined && argv[i + 1] !== undefined && !argv[i + 1]!.startsWith("--")) value = argv[++i];
    read.push({ type: "unknown", flag: spelling, ...(value !== undefined ? { value } : {}) });
  }
  return read;
}
