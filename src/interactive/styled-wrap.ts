import { graphemesOf, textWidth, wrapText } from "./text-width.js";

/** A run of plain text and how it is shown (an SGR wrapper; identity when unstyled). */
export type Segment = { text: string; style?: (text: string) => string };

/**
 * Styled text in rows of at most `width` columns. The rows are cut from the plain text first (so
 * escape sequences never count as columns or get split), then each row is styled piece by piece.
 * `hard`: cut at the width whatever the characters (code), instead of at the last space that fits.
 */
export function wrapSegments(segments: readonly Segment[], width: number, hard = false): string[] {
  const plain = segments.map((segment) => segment.text).join("");
  const rows = hard ? cutRows(plain, width) : wrapText(plain, width);
  // Where each segment starts in `plain`.
  const starts: number[] = [];
  let at = 0;
  for (const segment of segments) {
    starts.push(at);
    at += segment.text.length;
  }
  const out: string[] = [];
  let offset = 0;
  for (const row of rows) {
    // A row starts after what the wrap dropped: the newline, or the space a row broke at.
    while (offset < plain.length && !plain.startsWith(row, offset)) offset++;
    // The space a row broke at is not shown (copying the row gets no trailing blank).
    const shown = hard ? row.length : row.replace(/ +$/, "").length;
    out.push(shown === 0 ? "" : styleRange(segments, starts, offset, offset + shown));
    offset += row.length;
  }
  return out;
}

function styleRange(
  segments: readonly Segment[],
  starts: readonly number[],
  from: number,
  to: number,
): string {
  let out = "";
  segments.forEach((segment, i) => {
    const start = starts[i]!;
    const end = start + segment.text.length;
    if (end <= from || start >= to) return;
    const piece = segment.text.slice(Math.max(0, from - start), Math.min(segment.text.length, to - start));
    out += segment.style && piece !== "" ? segment.style(piece) : piece;
  });
  return out;
}

/** Rows of exactly `width` columns (the last shorter), at each newline and wherever the width ends. */
function cutRows(text: string, width: number): string[] {
  const columns = Math.max(1, width);
  const rows: string[] = [];
  for (const line of text.split("\n")) {
    let row = "";
    let used = 0;
    for (const grapheme of graphemesOf(line)) {
      const w = textWidth(grapheme);
      if (used + w > columns && row !== "") {
        rows.push(row);
        row = "";
        used = 0;
      }
      row += grapheme;
      used += w;
    }
    rows.push(row);
  }
  return rows;
}
