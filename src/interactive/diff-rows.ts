import type { ToolDisplay } from "../tools/types.js";

/** Lines of a diff shown in a permission question; the rest is counted. */
const MAX_DIFF_LINES = 40;

/**
 * The change a Write or Edit would make, as `- old` / `+ new` lines: the lines between the common
 * start and end of the two texts (a new file: all of it, added). Line mode shows these; on a screen,
 * diff-view.ts (with word-level marks) once the diff module is loaded.
 */
export function diffLines(diff: NonNullable<ToolDisplay["diff"]>): { sign: "-" | "+"; text: string }[] {
  const before = diff.oldText === null || diff.oldText === "" ? [] : diff.oldText.split("\n");
  const after = diff.newText === "" ? [] : diff.newText.split("\n");
  let start = 0;
  while (start < before.length && start < after.length && before[start] === after[start]) start++;
  let end = 0;
  while (
    end < before.length - start &&
    end < after.length - start &&
    before[before.length - 1 - end] === after[after.length - 1 - end]
  )
    end++;
  const lines = [
    ...before.slice(start, before.length - end).map((text) => ({ sign: "-" as const, text })),
    ...after.slice(start, after.length - end).map((text) => ({ sign: "+" as const, text })),
  ];
  if (lines.length <= MAX_DIFF_LINES) return lines;
  const more = lines.length - MAX_DIFF_LINES;
  return [
    ...lines.slice(0, MAX_DIFF_LINES),
    { sign: "+", text: `… ${more} more line${more === 1 ? "" : "s"}` },
  ];
}
