import { diffLines } from "diff";
import type { DiffLine, FileDiff } from "./report-data.js";

/** Context lines kept around a change in an Edit's diff. */
const CONTEXT = 3;

/**
 * The diff an Edit or Write call made, from its input: an Edit's `old_string` → `new_string`
 * (the `diff` package's line diff), a Write's whole content as added lines (the transcript does not
 * record what the file held before). At most `cap` characters of rows are kept, with a note.
 */
export function fileDiffOf(name: string, input: Record<string, unknown>, cap: number, redact: boolean) {
  const file = typeof input.file_path === "string" ? input.file_path : "";
  if (name === "Edit" && typeof input.old_string === "string" && typeof input.new_string === "string")
    return build(
      file,
      "edit",
      rowsOf(input.old_string, input.new_string),
      cap,
      redact,
      input.replace_all === true,
    );
  if (name === "Write" && typeof input.content === "string")
    return build(file, "write", rowsOf("", input.content), cap, redact, false);
  return undefined;
}

function rowsOf(before: string, after: string): DiffLine[] {
  const rows: DiffLine[] = [];
  for (const change of diffLines(before, after)) {
    const op = change.added ? "+" : change.removed ? "-" : " ";
    const lines = change.value.replace(/\n$/, "").split("\n");
    for (const text of lines) rows.push({ op, text });
  }
  return rows;
}

function build(
  file: string,
  kind: FileDiff["kind"],
  rows: DiffLine[],
  cap: number,
  redact: boolean,
  replaceAll: boolean,
): FileDiff {
  const added = rows.filter((row) => row.op === "+").length;
  const removed = rows.filter((row) => row.op === "-").length;
  const diff: FileDiff = { file, kind, added, removed, hunks: [] };
  if (replaceAll) diff.note = "every occurrence was replaced";
  if (redact) {
    diff.note = "contents left out (--redact)";
    return diff;
  }
  let budget = cap;
  for (const hunk of hunksOf(rows)) {
    const kept: DiffLine[] = [];
    for (const row of hunk) {
      if (budget < row.text.length) break;
      budget -= row.text.length + 1;
      kept.push(row);
    }
    if (kept.length > 0) diff.hunks.push(kept);
    if (kept.length < hunk.length) {
      diff.note = `diff cut at ${cap.toLocaleString("en-US")} characters (the report's cap per text)`;
      break;
    }
  }
  return diff;
}

/** Rows grouped into hunks: changes with up to CONTEXT unchanged lines around them. */
function hunksOf(rows: DiffLine[]): DiffLine[][] {
  const changed = rows.map((row) => row.op !== " ");
  const keep = rows.map((_, index) => {
    for (let offset = -CONTEXT; offset <= CONTEXT; offset += 1) if (changed[index + offset]) return true;
    return false;
  });
  const hunks: DiffLine[][] = [];
  let current: DiffLine[] | undefined;
  rows.forEach((row, index) => {
    if (!keep[index]) {
      current = undefined;
      return;
    }
    if (!current) {
      current = [];
      hunks.push(current);
    }
    current.push(row);
  });
  return hunks;
}
