/**
 * The Linux console (`TERM=linux`) draws with a console font of at most 512 glyphs; without one
 * loaded, the kernel's own is code page 437's 256, and a character the font lacks is a blank or
 * a diamond. The glyphs the interactive mode draws with that code page 437 does not have, and the
 * punctuation models write most, become the nearest one it has — each one column wide, as the
 * original, so nothing moves. Everything else is written as it is.
 */
const CONSOLE_GLYPHS: Record<string, string> = {
  "›": ">",
  "…": ".",
  "●": "•",
  "✓": "√",
  "✗": "x",
  "☑": "√",
  "☐": "○",
  "◼": "■",
  "◇": "♦",
  "⋯": "·",
  "⏎": "¶",
  "↵": "¶",
  "⎿": "└",
  "▏": "│",
  "⏵": "►",
  "—": "-",
  "–": "-",
  "“": '"',
  "”": '"',
  "‘": "'",
  "’": "'",
};

const NOT_IN_CODE_PAGE_437 = new RegExp(`[${Object.keys(CONSOLE_GLYPHS).join("")}]`, "g");

/** `text` with the glyphs above replaced by code page 437's. */
export function consoleGlyphs(text: string): string {
  return text.replace(NOT_IN_CODE_PAGE_437, (glyph) => CONSOLE_GLYPHS[glyph]!);
}
