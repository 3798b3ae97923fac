import { eastAsianWidth } from "get-east-asian-width";
import stripAnsi from "strip-ansi";

/**
 * Terminal columns of text, and wrapping by them: East Asian wide characters and emoji take two
 * columns, combining marks and zero-width joiners none, a grapheme cluster is never split.
 *
 * string-width (pinned) is the authority, but it is not loaded with the interactive mode: building
 * its emoji expression (`\p{RGI_Emoji}`) and an `Intl.Segmenter` cost about 300 million
 * instructions (12 ms on an idle machine), more than the rest of the first frame. Text made only of
 * code points in STANDALONE (ASCII, Latin, Greek, Cyrillic, punctuation, symbols, box drawing, CJK,
 * kana, Hangul syllables, single emoji; not the rare ideographs beyond the BMP) needs neither: each
 * such code point is a grapheme cluster on its own and its width is its East Asian Width, which a
 * test checks against string-width and the segmenter for every one of them. Other text (combining marks, joined emoji, flags, scripts with
 * marks) is measured by string-width once the render modules have loaded it (render-modules.ts,
 * just after the first frame), and until then by `roughWidth`.
 */

/** Ranges [first, last, first, last, …] of standalone code points (see above), in order. */
const STANDALONE = [
  0x20, 0x7e, 0xa0, 0xac, 0xae, 0x2ff, 0x370, 0x482, 0x48a, 0x52f, 0x2010, 0x2027, 0x2030, 0x205e, 0x2070,
  0x20cf, 0x2100, 0x2bff, 0x2e80, 0x3029, 0x3030, 0x303f, 0x3041, 0x3096, 0x309b, 0x30ff, 0x3100, 0x3163,
  0x3165, 0x4dbf, 0x4e00, 0x9fff, 0xa000, 0xa4cf, 0xac00, 0xd7a3, 0xf900, 0xfaff, 0xfe30, 0xfe4f, 0xff01,
  0xff60, 0xffe0, 0xffe6, 0x1f300, 0x1f3fa, 0x1f400, 0x1f64f, 0x1f680, 0x1f6ff, 0x1f900, 0x1f9ff,
];

export function isStandalone(codePoint: number): boolean {
  let low = 0;
  let high = STANDALONE.length / 2 - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if (codePoint < STANDALONE[middle * 2]!) high = middle - 1;
    else if (codePoint > STANDALONE[middle * 2 + 1]!) low = middle + 1;
    else return true;
  }
  return false;
}

/** The width of text made of standalone code points, or undefined for any other text. */
function standaloneWidth(text: string): number | undefined {
  let width = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0x20 && code <= 0x7e) {
      width += 1;
      continue;
    }
    const codePoint = text.codePointAt(i)!;
    if (codePoint > 0xffff) i++;
    if (!isStandalone(codePoint)) return undefined;
    width += eastAsianWidth(codePoint);
  }
  return width;
}

let stringWidth: ((text: string) => number) | undefined;

/** Hands over string-width once it is loaded (render-modules.ts). */
export function useStringWidth(measure: (text: string) => number): void {
  stringWidth = measure;
}

/** Whether `text` is measured exactly before string-width is loaded. */
export function measuredWithout(text: string): boolean {
  return standaloneWidth(stripAnsi(text)) !== undefined;
}

export function textWidth(text: string): number {
  const plain = text.includes("\x1b") ? stripAnsi(text) : text;
  return standaloneWidth(plain) ?? stringWidth?.(plain) ?? roughWidth(plain);
}

/**
 * Until string-width is loaded (the first milliseconds, only for text that is not standalone):
 * each grapheme's first code point's East Asian Width, two for joined emoji and flags, none for
 * control characters. The live region is drawn again once it is loaded.
 */
function roughWidth(text: string): number {
  let width = 0;
  for (const grapheme of graphemesOf(text)) {
    const codePoint = grapheme.codePointAt(0)!;
    if (codePoint < 0x20 || (codePoint >= 0x7f && codePoint < 0xa0)) continue;
    const joined = grapheme.includes("\u200d") || grapheme.includes("\ufe0f");
    const flag = codePoint >= 0x1f1e6 && codePoint <= 0x1f1ff && grapheme.length === 4;
    width += joined || flag ? 2 : eastAsianWidth(codePoint);
  }
  return width;
}

/** Made on first use: the first `Intl.Segmenter` costs about 4 ms (ICU's locale list). */
let segmenter: Intl.Segmenter | undefined;

export function graphemesOf(text: string): string[] {
  if (standaloneWidth(text) !== undefined) return Array.from(text);
  segmenter ??= new Intl.Segmenter(undefined, { granularity: "grapheme" });
  return Array.from(segmenter.segment(text), (segment) => segment.segment);
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
