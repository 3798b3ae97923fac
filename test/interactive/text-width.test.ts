import stringWidth from "string-width";
import { beforeAll, describe, expect, test } from "vitest";
import { Editor } from "../../src/interactive/editor.js";
import { layoutEditor } from "../../src/interactive/editor-view.js";
import { KeyReader } from "../../src/interactive/keys.js";
import { loadRenderModules } from "../../src/interactive/render-modules.js";
import {
  graphemesOf,
  isStandalone,
  measuredWithout,
  printable,
  textWidth,
  truncate,
  wrapText,
} from "../../src/interactive/text-width.js";

// Before string-width is loaded (the first frame): these run first, in file order.
describe("terminal widths before string-width is loaded", () => {
  test("the first frame's glyphs, CJK and single emoji are measured exactly without it", () => {
    for (const text of ["› ─│╭╮·… ✓✗⏵⏸●○▸", "漢字かなカナ한국어", "🎉🚀", "\x1b[2mdim\x1b[0m ✓"]) {
      expect(measuredWithout(text)).toBe(true);
      expect(textWidth(text)).toBe(stringWidth(text));
    }
  });

  test("joined emoji, flags and combining marks are close enough until it loads", () => {
    expect(measuredWithout("👩‍💻")).toBe(false);
    expect(textWidth("👩‍💻")).toBe(2);
    expect(textWidth("🇯🇵")).toBe(2);
    expect(textWidth("é")).toBe(1);
  });
});

/** What the screen shows for wide characters, and how keys arrive: the interactive mode's pieces. */
describe("terminal widths", () => {
  beforeAll(async () => {
    expect(await loadRenderModules()).toBeDefined();
  });

  test("every standalone code point is a grapheme of its own, as wide as string-width says", () => {
    const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });
    const wrong: string[] = [];
    let checked = 0;
    for (let from = 0; from <= 0x2ffff; from += 0x1000) {
      // A block of code points at a time, each twice then "a": every one of them three clusters.
      let text = "";
      let count = 0;
      for (let codePoint = from; codePoint < from + 0x1000; codePoint++) {
        if (!isStandalone(codePoint)) continue;
        const alone = String.fromCodePoint(codePoint);
        if (textWidth(alone) !== stringWidth(alone)) wrong.push(codePoint.toString(16));
        text += `${alone}${alone}a`;
        count++;
      }
      checked += count;
      const clusters = Array.from(segmenter.segment(text), (segment) => segment.segment);
      if (clusters.length !== count * 3) wrong.push(`clusters in ${from.toString(16)}`);
    }
    expect(checked).toBeGreaterThan(45_000);
    expect(wrong).toEqual([]);
  });

  test("text that is not standalone is measured and split by string-width and the segmenter", () => {
    const samples = ["a\u0301b", "👩‍💻x", "🇯🇵🇫🇷", "ｶﾞ", "각", "नमस्ते", "1️⃣", "👍🏽", "\u00ad", "\u200bx"];
    for (const text of samples) {
      expect(measuredWithout(text)).toBe(false);
      expect(textWidth(text)).toBe(stringWidth(text));
    }
    expect(graphemesOf("👩‍💻🇯🇵é")).toEqual(["👩‍💻", "🇯🇵", "é"]);
  });

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
