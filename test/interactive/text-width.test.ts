import { describe, expect, test } from "vitest";
import { Editor } from "../../src/interactive/editor.js";
import { layoutEditor } from "../../src/interactive/editor-view.js";
import { KeyReader } from "../../src/interactive/keys.js";
import { printable, textWidth, truncate, wrapText } from "../../src/interactive/text-width.js";

/** What the screen shows for wide characters, and how keys arrive: the interactive mode's pieces. */
describe("terminal widths", () => {
  test("CJK characters and emoji take two columns, combining marks and joiners none", () => {
    expect(textWidth("漢字")).toBe(4);
    expect(textWidth("🎉")).toBe(2);
    expect(textWidth("👩‍💻")).toBe(2);
    expect(textWidth("é")).toBe(1); // e + combining acute
    expect(textWidth("abc")).toBe(3);
  });

  test("wrapping never splits a wide character or a grapheme, and keeps every row within the width", () => {
    const rows = wrapText("漢字漢字漢 👩‍💻👩‍💻 end", 5);
    for (const row of rows) expect(textWidth(row)).toBeLessThanOrEqual(5);
    expect(rows).toEqual(["漢字", "漢字", "漢 ", "👩‍💻👩‍💻 ", "end"]);
  });

  test("wrapping breaks at the last space that fits, and earlier rows do not change as text streams on", () => {
    expect(wrapText("the quick brown fox", 10)).toEqual(["the quick ", "brown fox"]);
    const streamed = "the quick brown fox jumps over the lazy dog";
    const whole = wrapText(streamed, 12);
    for (let cut = 1; cut < streamed.length; cut++) {
      const partial = wrapText(streamed.slice(0, cut), 12);
      expect(partial.slice(0, -1)).toEqual(whole.slice(0, partial.length - 1));
    }
  });

  test("a model's escape sequences and control characters never reach the terminal", () => {
    expect(printable("red \x1b[31mtext\x1b[0m\x07 and\ttab\r\n")).toBe("red [31mtext[0m and  tab\n");
    expect(truncate("漢字漢字", 5)).toBe("漢字…");
  });

  test("the caret sits after wide characters at their real column", () => {
    const editor = new Editor();
    editor.insert("漢字🎉x");
    expect(layoutEditor(editor, 40)).toEqual({ rows: ["› 漢字🎉x"], caret: { row: 0, col: 9 } });
    editor.left();
    editor.left();
    expect(layoutEditor(editor, 40).caret).toEqual({ row: 0, col: 6 });
  });
});

describe("keys", () => {
  test("a bracketed paste split across reads is one paste, its newlines text", () => {
    const reader = new KeyReader();
    expect(reader.feed("\x1b[200~one\rtw")).toEqual([]);
    expect(reader.feed("o\nthree\x1b[20")).toEqual([]);
    expect(reader.feed("1~\r")).toEqual([{ type: "paste", text: "one\rtwo\nthree" }, { type: "enter" }]);
  });

  test("Enter, Alt+Enter, Ctrl+J and Shift+Enter (CSI u, modifyOtherKeys) are told apart", () => {
    const reader = new KeyReader();
    expect(reader.feed("\r\x1b\r\n\x1b[13;2u\x1b[27;2;13~")).toEqual([
      { type: "enter" },
      { type: "newline" },
      { type: "newline" },
      { type: "newline" },
      { type: "newline" },
    ]);
  });

  test("a lone ESC waits for the rest of a sequence; nothing more makes it the Escape key", () => {
    const reader = new KeyReader();
    expect(reader.feed("\x1b")).toEqual([]);
    expect(reader.waiting).toBe(true);
    expect(reader.feed("[A")).toEqual([{ type: "up" }]);
    expect(reader.feed("\x1b")).toEqual([]);
    expect(reader.flush()).toEqual([{ type: "escape" }]);
  });
});
