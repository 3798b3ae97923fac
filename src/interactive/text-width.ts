import stringWidth from "string-width";

/**
 * Terminal columns of text, and wrapping by them: East Asian wide characters and emoji take two
 * columns, combining marks and zero-width joiners none (string-width's tables, pinned), a grapheme
 * cluster is never split.
 */
const graphemes = new Intl.Segmenter(undefined, { granularity: "grapheme" });

export function textWidth(text: string): number {
  return stringWidth(text);
}

export function graphemesOf(text: string): string[] {
  return Array.from(graphemes.segment(text), (segment) => segment.segment);
}

/**
 * Text from outside (the model, a tool, a paste) made safe to print: tabs become spaces, and every
 * other control character (escape sequences included, which could move the cursor or change the
 * terminal's state) is dropped. Newlines stay.
 */
export function printable(text: string): string {
  return text
    .replace(/\t/g, "  ")
    .replace(/\r\n?/g, "\n")
    .replace(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/g, "");
}

/**
 * Plain text (no escapes) in rows of at most `width` columns: at each newline, and greedily at the
 * last space that fits (a word longer than a row is cut). Greedy wrapping is prefix-stable: every
 * row but the last stays the same however the text goes on, so streamed rows can be committed.
 */
export function wrapText(text: string, width: number): string[] {
  const columns = Math.max(1, width);
  const rows: string[] = [];
  for (const line of text.split("\n")) {
    let row = "";
    let rowWidth = 0;
    /** Where the row may break: after its last space (index into `row`, and the width before it). */
    let breakAt = -1;
    let breakWidth = 0;
    for (const grapheme of graphemesOf(line)) {
      const width = textWidth(grapheme);
      if (rowWidth + width > columns && row !== "") {
        if (grapheme !== " " && breakAt > 0) {
          rows.push(row.slice(0, breakAt));
          row = row.slice(breakAt);
          rowWidth -= breakWidth;
        } else {
          rows.push(row);
          row = "";
          rowWidth = 0;
        }
        breakAt = -1;
        if (rowWidth + width > columns && row !== "") {
          rows.push(row);
          row = "";
          rowWidth = 0;
        }
        if (grapheme === " " && row === "") continue; // the space a row breaks at is not carried
      }
      row += grapheme;
      rowWidth += width;
      if (grapheme === " ") {
        breakAt = row.length;
        breakWidth = rowWidth;
      }
    }
    rows.push(row);
  }
  return rows;
}

/** At most `width` columns of `text` (plain), with an ellipsis when it was cut. */
export function truncate(text: string, width: number): string {
  if (textWidth(text) <= width) return text;
  let out = "";
  let used = 0;
  for (const grapheme of graphemesOf(text)) {
    const w = textWidth(grapheme);
    if (used + w > width - 1) break;
    out += grapheme;
    used += w;
  }
  return `${out}…`;
}
