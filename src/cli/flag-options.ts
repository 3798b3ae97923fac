import { Option } from "commander";
import { parseSettingSources } from "../config/setting-sources.js";
import { type FlagSpec, flagsOf } from "../flags/flag-table.js";
import { numberValue } from "../flags/flag-values.js";
import { domainPatternProblem } from "../sandbox/domain-policy.js";
import { UsageError } from "../util/exit-codes.js";

/**
 * Print mode's commander options, one per flag of the table (src/flags/flag-table.ts) with the
 * door `print`: spellings, value, choices, default and checks come from there; only the values
 * that need a part of cairn to check them have their parser here.
 */
export function printModeOptions(): Option[] {
  return flagsOf("print").map(commanderOption);
}

/** Values checked by a part of cairn, not by their kind alone. */
const CHECKED: Record<string, (value: string, previous: string[]) => unknown> = {
  "--setting-sources": (value) => {
    try {
      return parseSettingSources(value);
    } catch (error) {
      throw new UsageError(`--setting-sources: ${(error as Error).message} (see cairn --help)`);
    }
  },
  // Each value checked (domain-policy.ts), added to the list.
  "--sandbox-allow-domain": (value, list) => {
    const problem = domainPatternProblem(value);
    if (problem) throw new UsageError(`--sandbox-allow-domain: ${problem}`);
    return [...list, value];
  },
};

function commanderOption(spec: FlagSpec): Option {
  const spellings = [spec.flag, ...(spec.aliases ?? [])];
  const names = [
    ...spellings.filter((s) => !s.startsWith("--")),
    ...spellings.filter((s) => s.startsWith("--")),
  ];
  const value = spec.value;
  const option = new Option(`${names.join(", ")}${value ? ` ${value.arg}` : ""}`);
  if (!value) return option.default(false);
  if (value.choices) option.choices(value.choices);
  if (value.default !== undefined) option.default(value.default);
  const checked = CHECKED[spec.flag];
  if (checked) option.argParser(checked as (value: string, previous: string[]) => string[]);
  else if (value.kind === "positive-integer" || value.kind === "number")
    option.argParser((given: string) => numberValue(spec, given));
  else if (value.repeatable) option.argParser((given: string, list: string[]) => [...list, given]);
  if (value.repeatable) option.default([] as string[]);
  return option;
}
