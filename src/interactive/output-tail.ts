import type { Styles } from "./style.js";
import { wrapSegments } from "./styled-wrap.js";
import { printable } from "./text-width.js";

/** Lines of a command's output shown under it; the earlier ones are counted (Ctrl+O shows them). */
export const TAIL_LINES = 4;

/**
 * A command's output under its line in the conversation, collapsed: its last lines, dim and
 * indented, below a count of the lines above them (`… 37 earlier lines (ctrl+o to expand)`).
 * `expanded`: every line. Lines longer than the width go on, indented, on the next row.
 */
export function outputRows(output: string, width: number, styles: Styles, expanded = false): string[] {
  const lines = printable(output).replace(/\n+$/, "").split("\n");
  if (lines.length === 1 && lines[0] === "") return [];
  const shown = expanded ? lines : lines.slice(-TAIL_LINES);
  const hidden = lines.length - shown.length;
  const rows: string[] = [];
  if (hidden > 0)
    rows.push(styles.dim(`  ⎿ … ${hidden} earlier line${hidden === 1 ? "" : "s"} (ctrl+o to expand)`));
  shown.forEach((line, i) => {
    const lead = i === 0 && hidden === 0 ? "  ⎿ " : "    ";
    wrapSegments([{ text: line }], width - 4, true).forEach((row, j) => {
      rows.push(styles.dim(`${j === 0 ? lead : "    "}${row}`));
    });
  });
  return rows;
}

/** Whether `outputRows` would leave lines out. */
export function isCollapsed(output: string): boolean {
  return printable(output).replace(/\n+$/, "").split("\n").length > TAIL_LINES;
}
