import { countLines } from "./text-lines.js";

/** Past this, the diff kept for front ends is cut: it is a summary, not a patch to apply. */
const MAX_DIFF_CHARS = 20_000;

/**
 * The most characters of a file's content shown before and after a write or edit (for front ends'
 * diff views); past it both are left out, never cut, so a view never shows half a file as the file.
 */
export const FULL_CONTENT_MAX_CHARS = 100_000;

/** `beforeFullFileContent` / `afterFullFileContent`, or nothing when either is over the cap. */
export function fullContents(
  before: string | undefined,
  after: string,
): { beforeFullFileContent?: string; afterFullFileContent?: string } {
  if (before === undefined || before.length > FULL_CONTENT_MAX_CHARS || after.length > FULL_CONTENT_MAX_CHARS)
    return {};
  return { beforeFullFileContent: before, afterFullFileContent: after };
}

export type EditDiff = { linesAdded: number; linesRemoved: number; diffString: string };

/**
 * A unified-style diff (hunk headers and -/+ lines, no context) of replacing `oldLength` characters
 * at each of `offsets` in `before` with `replacement`. Built from the known replacement sites
 * rather than a general diff, so it is linear in the file size.
 */
export function diffReplacements(
  before: string,
  offsets: number[],
  oldLength: number,
  replacement: string,
  after: string,
): EditDiff {
  const beforeLines = before.split("\n");
  const afterLines = after.split("\n");
  const lineOfBefore = lineLocator(beforeLines);
  const lineOfAfter = lineLocator(afterLines);
  const shift = replacement.length - oldLength;

  // Each site covers the lines from its start to the line where it ends (inclusive), in both texts.
  type Hunk = { bFirst: number; bLast: number; aFirst: number; aLast: number };
  const hunks: Hunk[] = [];
  offsets.forEach((offset, i) => {
    const afterOffset = offset + i * shift;
    const hunk: Hunk = {
      bFirst: lineOfBefore(offset),
      bLast: lineOfBefore(offset + oldLength),
      aFirst: lineOfAfter(afterOffset),
      aLast: lineOfAfter(afterOffset + replacement.length),
    };
    const previous = hunks[hunks.length - 1];
    if (previous && hunk.bFirst <= previous.bLast) {
      previous.bLast = hunk.bLast;
      previous.aLast = hunk.aLast;
    } else hunks.push(hunk);
  });

  let linesAdded = 0;
  let linesRemoved = 0;
  let diffString = "";
  for (const hunk of hunks) {
    let { bFirst, bLast, aFirst, aLast } = hunk;
    // Lines the edit touched but left equal (shared start or end) are not changes.
    while (bFirst <= bLast && aFirst <= aLast && beforeLines[bFirst] === afterLines[aFirst]) {
      bFirst += 1;
      aFirst += 1;
    }
    while (bLast >= bFirst && aLast >= aFirst && beforeLines[bLast] === afterLines[aLast]) {
      bLast -= 1;
      aLast -= 1;
    }
    const removed = beforeLines.slice(bFirst, bLast + 1);
    const added = afterLines.slice(aFirst, aLast + 1);
    if (removed.length === 0 && added.length === 0) continue;
    linesRemoved += removed.length;
    linesAdded += added.length;
    if (diffString.length < MAX_DIFF_CHARS) {
      diffString += `@@ -${bFirst + 1},${removed.length} +${aFirst + 1},${added.length} @@\n`;
      diffString += removed.map((line) => `-${stripCr(line)}\n`).join("");
      diffString += added.map((line) => `+${stripCr(line)}\n`).join("");
    }
  }
  if (diffString.length > MAX_DIFF_CHARS)
    diffString = `${diffString.slice(0, MAX_DIFF_CHARS)}\n[... diff cut ...]\n`;
  return { linesAdded, linesRemoved, diffString };
}

/** Diff of a file created from nothing. */
export function diffCreation(content: string): EditDiff {
  const count = countLines(content);
  if (count === 0) return { linesAdded: 0, linesRemoved: 0, diffString: "" };
  return { linesAdded: count, linesRemoved: 0, diffString: render(content.split("\n").slice(0, count)) };
}

function render(lines: string[]): string {
  let text = `@@ -0,0 +1,${lines.length} @@\n${lines.map((line) => `+${stripCr(line)}\n`).join("")}`;
  if (text.length > MAX_DIFF_CHARS) text = `${text.slice(0, MAX_DIFF_CHARS)}\n[... diff cut ...]\n`;
  return text;
}

/** Maps a character offset to its 0-based line index by binary search over line starts. */
function lineLocator(lines: string[]): (offset: number) => number {
  const starts: number[] = [];
  let position = 0;
  for (const line of lines) {
    starts.push(position);
    position += line.length + 1;
  }
  return (offset) => {
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (starts[mid]! <= offset) low = mid;
      else high = mid - 1;
    }
    return low;
  };
}

function stripCr(line: string): string {
  return line.endsWith("\r") ? line.slice(0, -1) : line;
}
