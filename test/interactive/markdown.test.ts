import { describe, expect, test } from "vitest";
import { reply } from "../../src/testing/index.js";
import { count, ready, skipped, startCairn } from "./cairn-terminal.js";

/**
 * Markdown in the interactive mode (docs/interactive.md, "The screen"): the answer is committed to
 * the scrollback block by block as it streams, styled; code is highlighted once its fence closes;
 * NO_COLOR and line mode get plain text.
 */
const ANSWER = [
  "# Build notes",
  "",
  "The build uses **esbuild** and `tsc`; see [the guide](https://example.com/guide).",
  "",
  "- first item",
  "- second item with *emphasis*",
  "",
  "> quoted advice",
  "",
  "| name | size |",
  "| ---- | ---- |",
  "| cli  | 1 MB |",
  "",
  "```ts",
  "const answer: number = 42;",
  "```",
  "",
  "Last paragraph.",
].join("\n");

describe(`markdown in the interactive mode${skipped}`, () => {
  test.skipIf(skipped !== "")(
    "a streamed answer is shown as markdown: heading, emphasis, list, quote, table, highlighted code; each row once",
    async () => {
      const { t } = await startCairn([reply().text(ANSWER)], ["Explain the build"]);
      await t.waitFor((text) => text.includes("Last paragraph."), "the whole answer");
      await ready(t);
      const all = t.all().map((row) => row.trimEnd());
      const text = all.join("\n");
      // The markup is gone, the structure shown.
      expect(all).toContain("Build notes");
      expect(text).not.toContain("# Build notes");
      expect(text).toContain("The build uses esbuild and tsc; see the guide (https://example.com/guide).");
      expect(all).toContain("• first item");
      expect(all).toContain("• second item with emphasis");
      expect(all).toContain("│ quoted advice");
      expect(all).toContain("name │ size");
      expect(all).toContain("cli  │ 1 MB");
      expect(all).toContain("const answer: number = 42;");
      expect(text).not.toContain("```");
      // Every row is in the scrollback once: nothing was committed twice.
      for (const row of ["Build notes", "• first item", "const answer: number = 42;", "Last paragraph."])
        expect(all.filter((line) => line.includes(row))).toHaveLength(1);
      const output = t.output();
      // Styles: bold, inline code, the keyword of the closed fence highlighted.
      expect(output).toContain("\x1b[1mesbuild\x1b[22m");
      expect(output).toContain("\x1b[36mtsc\x1b[39m");
      expect(output).toContain("\x1b[35mconst\x1b[39m");
      expect(count(output, "\x1b[2J") + count(output, "\x1b[3J")).toBe(0);
    },
  );

  test.skipIf(skipped !== "")(
    "a finished block is committed while the answer still streams, and never written again",
    async () => {
      // The model stops mid-way through the second paragraph (after its first chunk).
      const { t } = await startCairn(
        [
          reply()
            .text("First paragraph, finished.\n\nSecond paragraph, still being written.")
            .stall(4, 60_000),
        ],
        ["Say two things"],
      );
      await t.waitFor(() => t.screen().includes("Seco"), "the second paragraph, half streamed");
      expect(t.all().join("\n")).toContain("First paragraph, finished.");
      t.type("\x1b"); // Esc: the turn ends with the second paragraph unfinished
      await t.waitFor((text) => text.includes("Interrupted."), "the interruption");
      expect(t.all().filter((row) => row.includes("First paragraph, finished."))).toHaveLength(1);
      // Written to the terminal once: a committed block is never redrawn.
      expect(count(t.output(), "First paragraph, finished.")).toBe(1);
    },
  );

  test.skipIf(skipped !== "")(
    "NO_COLOR: the same structure without escape styles, code fences kept",
    async () => {
      const { t } = await startCairn([reply().text(ANSWER)], ["Explain the build"], {
        env: { NO_COLOR: "1" },
      });
      await t.waitFor((text) => text.includes("Last paragraph."), "the whole answer");
      await ready(t);
      const all = t.all().map((row) => row.trimEnd());
      expect(all).toContain("• first item");
      expect(all).toContain("```ts");
      expect(all).toContain("const answer: number = 42;");
      expect(t.output()).not.toMatch(/\x1b\[[0-9;]*m/);
    },
  );

  test.skipIf(skipped !== "")(
    "TERM=dumb (line mode): the answer as the model wrote it, no escapes",
    async () => {
      const { t } = await startCairn([reply().text(ANSWER)], [], { env: { TERM: "dumb" } });
      t.type("Explain the build\r");
      await t.waitFor((text) => text.includes("Done."), "the end of the turn");
      expect(t.all().join("\n")).toContain("- second item with *emphasis*");
      expect(t.output()).not.toContain("\x1b");
    },
  );
});
