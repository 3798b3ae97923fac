import { FLAGS } from "../flags/flag-table.js";
import { UsageError } from "../util/exit-codes.js";

/**
 * Flags of the reference CLI that cairn does not have: the rows of the flag table with a `refused`
 * reason (src/flags/flag-table.ts), each spelling with the reason and what to do instead, so a
 * program written for the reference fails on the first one with a line naming it (docs/cli.md).
 */
const REFERENCE_ONLY_FLAGS: ReadonlyMap<string, string> = new Map(
  FLAGS.flatMap((spec) =>
    spec.refused
      ? [spec.flag, ...(spec.aliases ?? [])].map((spelling) => [spelling, spec.refused!] as const)
      : [],
  ),
);

/** Throws a usage error naming the first reference-only flag in `argv` (before any `--`). */
export function refuseReferenceOnlyFlags(argv: readonly string[]): void {
  for (const arg of argv) {
    if (arg === "--") return;
    const flag = arg.startsWith("--") ? arg.split("=")[0]! : arg;
    const reason = REFERENCE_ONLY_FLAGS.get(flag);
    if (reason)
      throw new UsageError(`${flag} is a flag of the reference CLI that cairn does not have: ${reason}`);
  }
}

export const REFERENCE_ONLY_FLAG_NAMES: readonly string[] = [...REFERENCE_ONLY_FLAGS.keys()];
