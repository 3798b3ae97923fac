/**
 * Plain code-unit order for sorting names. Not `localeCompare`: the first call of that in a process
 * sets up ICU's collator, about 10 ms of a run's start (docs/performance.md), and file and model
 * names need no locale.
 */
export function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
