import { describe, expect, test } from "vitest";
import { MarkdownStream } from "../../src/interactive/markdown-stream.js";
import { loadRenderModules } from "../../src/interactive/render-modules.js";
import { stylesFor } from "../../src/interactive/style.js";
import { textWidth } from "../../src/interactive/text-width.js";

/** Markdown → rows (markdown-rows.ts, markdown-stream.ts), without colour so rows read as text. */
const plain = stylesFor({ NO_COLOR: "1" });
const modules = await loadRenderModules();

function render(markdown: string, width: number): string[] {
  const stream = new MarkdownStream(plain, () => modules);
  return [...stream.push(markdown, width), ...stream.finish(width)];
}

describe("markdown rows", () => {
  test("the modules load (markdown, highlighting, diffs)", () => {
    expect(modules).toBeDefined();
  });

  test("nested lists, numbers and tasks keep their indentation when wrapped", () => {
    expect(
      render("1. first step that is long enough to wrap\n2. second\n   - [x] done\n   - [ ] open", 24),
    ).toEqual(["1. first step that is", "   long enough to wrap", "2. second", "   • ☑ done", "   • ☐ open"]);
  });

  test("a table of wide characters is aligned by columns, not by code units", () => {
    const rows = render("| 名前 | size |\n| --- | --- |\n| 漢字テキスト | 1 |\n| a | 22 |", 40);
    expect(rows).toEqual([
      "名前         │ size",
      "─────────────┼─────",
      "漢字テキスト │ 1",
      "a            │ 22",
    ]);
    expect(textWidth(rows[0]!.split("│")[0]!)).toBe(textWidth(rows[2]!.split("│")[0]!));
  });

  test("a table too wide for the screen becomes `header: value` lines", () => {
    expect(render("| column one | column two |\n| --- | --- |\n| alpha value | beta value |", 20)).toEqual([
      "column one: alpha",
      "value",
      "column two: beta",
      "value",
    ]);
  });

  test("streamed in chunks of any size, the rows are the same as the whole text's", () => {
    const text =
      "# Title\n\nA paragraph with **bold**\nand a second line.\n\n```js\nlet x = 1;\n```\n\n- a\n- b\n\n> quote\n\nEnd.";
    const whole = render(text, 30);
    for (const size of [1, 3, 7, 16]) {
      const stream = new MarkdownStream(plain, () => modules);
      const rows: string[] = [];
      for (let i = 0; i < text.length; i += size) rows.push(...stream.push(text.slice(i, i + size), 30));
      rows.push(...stream.finish(30));
      expect(rows, `chunks of ${size}`).toEqual(whole);
    }
    expect(whole).toEqual([
      "Title",
      "",
      "A paragraph with bold",
      "and a second line.",
      "",
      "```js",
      "let x = 1;",
      "```",
      "",
      "• a",
      "• b",
      "",
      "│ quote",
      "",
      "End.",
    ]);
  });

  test("a code fence is committed when it closes, before the text after it arrives", () => {
    const stream = new MarkdownStream(plain, () => modules);
    expect(stream.push("```py\nprint(1)\n", 40)).toEqual([]);
    expect(stream.liveRows(40)).toEqual(["```py", "print(1)", "```"]);
    expect(stream.push("```\n", 40)).toEqual(["```py", "print(1)", "```"]);
    expect(stream.liveRows(40)).toEqual([]);
  });

  test("with colour, a closed fence's code is highlighted and long lines are cut, not wrapped at spaces", () => {
    const colour = stylesFor({});
    const stream = new MarkdownStream(colour, () => modules);
    const rows = stream.push("```ts\nconst value = 'a string that is long';\n```\n", 20);
    expect(rows[0]).toContain("\x1b[35mconst\x1b[39m");
    const visible = rows.map((row) => row.replace(/\x1b\[[0-9;]*m/g, ""));
    expect(visible).toEqual(["const value = 'a str", "ing that is long';"]);
  });
});
