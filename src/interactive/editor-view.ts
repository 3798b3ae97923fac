import type { Editor } from "./editor.js";
import { graphemesOf, textWidth } from "./text-width.js";

export type EditorLayout = {
  /** Plain rows, the prefix included. */
  rows: string[];
  /** Where the caret is, in rows and columns of `rows`. */
  caret: { row: number; col: number };
};

/**
 * The editor in rows of at most `width` columns: `› ` before the first line, two spaces before the
 * others, long lines cut into rows at grapheme boundaries (the caret is the terminal's own cursor,
 * so an input method's composition appears where the text goes).
 */
export function layoutEditor(editor: Editor, width: number, prompt = "› "): EditorLayout {
  const indent = " ".repeat(textWidth(prompt));
  const room = Math.max(1, width - textWidth(prompt));
  const rows: string[] = [];
  let caret = { row: 0, col: 0 };
  editor.lines.forEach((line, index) => {
    const prefix = index === 0 ? prompt : indent;
    let row = "";
    let rowWidth = 0;
    let offset = 0;
    const caretHere = index === editor.row;
    for (const grapheme of graphemesOf(line)) {
      const w = textWidth(grapheme);
      if (rowWidth + w > room) {
        rows.push(prefix + row);
        row = "";
        rowWidth = 0;
      }
      if (caretHere && offset === editor.col) caret = { row: rows.length, col: textWidth(prefix) + rowWidth };
      row += grapheme;
      rowWidth += w;
      offset += grapheme.length;
    }
    if (caretHere && offset <= editor.col) caret = { row: rows.length, col: textWidth(prefix) + rowWidth };
    rows.push((rows.length > 0 && row === "" && line !== "" ? indent : prefix) + row);
  });
  return { rows, caret };
}
