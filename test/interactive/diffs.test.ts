import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { diffViewRows } from "../../src/interactive/diff-view.js";
import { loadRenderModules } from "../../src/interactive/render-modules.js";
import { stylesFor } from "../../src/interactive/style.js";
import { reply } from "../../src/testing/index.js";
import { count, ready, skipped, startCairn } from "./cairn-terminal.js";

/** Diffs of Write and Edit (docs/interactive.md): `-`/`+` lines, the changed words marked inside them. */
const modules = await loadRenderModules();
const colour = stylesFor({});
const INVERSE = (text: string) => `\x1b[7m${text}\x1b[27m`;
const FILE = "alpha\nbeta\nconst limit = 10;\ngamma\ndelta\nepsilon\n";

describe("diff rows", () => {
  test("a changed line pair marks only the words that changed; unchanged context around it", () => {
    const rows = diffViewRows(
      { path: "/w/a.ts", oldText: FILE, newText: FILE.replace("limit = 10", "limit = 25") },
      60,
      colour,
      modules,
    );
    const visible = rows.map((row) => row.replace(/\x1b\[[0-9;]*m/g, ""));
    expect(visible).toEqual([
      "    alpha",
      "    beta",
      "  - const limit = 10;",
      "  + const limit = 25;",
      "    gamma",
      "  ⋯",
    ]);
    expect(rows[2]).toContain(INVERSE("10"));
    expect(rows[3]).toContain(INVERSE("25"));
    expect(rows[3]).not.toContain(INVERSE("const"));
  });

  test("a rewritten line is not word-marked, and NO_COLOR has no marks at all", () => {
    const rewritten = diffViewRows(
      { path: "/w/a", oldText: "one two three\n", newText: "something else entirely\n" },
      60,
      colour,
      modules,
    );
    expect(rewritten.join("\n")).not.toContain("\x1b[7m");
    const plain = diffViewRows(
      { path: "/w/a", oldText: "a = 1\n", newText: "a = 2\n" },
      60,
      stylesFor({ NO_COLOR: "1" }),
      modules,
    );
    expect(plain).toEqual(["  - a = 1", "  + a = 2"]);
  });

  test("long lines go on, indented, on the next row; CJK is cut by columns", () => {
    const rows = diffViewRows(
      { path: "/w/a", oldText: null, newText: "漢字漢字漢字漢字漢字\n" },
      12,
      stylesFor({ NO_COLOR: "1" }),
      modules,
    );
    expect(rows).toEqual(["  + 漢字漢字", "    漢字漢字", "    漢字"]);
  });
});

describe(`diffs in the interactive mode${skipped}`, () => {
  test.skipIf(skipped !== "")(
    "an Edit's permission question shows the changed words marked; y applies it",
    async () => {
      const { t, dir } = await startCairn(
        [
          reply().tool("Edit", {
            file_path: "config.ts",
            old_string: "const limit = 10;",
            new_string: "const limit = 25;",
          }),
          reply().text("Raised the limit."),
        ],
        [],
        { files: { "config.ts": FILE } },
      );
      await ready(t);
      t.type("Raise the limit\r");
      await t.waitFor((text) => text.includes("Allow Edit?"), "the permission question");
      const all = t.all().map((row) => row.trimEnd());
      expect(all).toContain("  - const limit = 10;");
      expect(all).toContain("  + const limit = 25;");
      expect(t.output()).toContain(INVERSE("25"));
      t.type("y");
      await t.waitFor((text) => text.includes("Raised the limit."), "the answer");
      expect(readFileSync(join(dir, "config.ts"), "utf8")).toContain("const limit = 25;");
      // Shown once: the result does not repeat the diff the question showed.
      expect(t.all().filter((row) => row.includes("+ const limit = 25;"))).toHaveLength(1);
    },
  );

  test.skipIf(skipped !== "")(
    "an Edit allowed by the mode (acceptEdits) shows its diff under the result",
    async () => {
      const { t } = await startCairn(
        [
          reply().tool("Edit", {
            file_path: "config.ts",
            old_string: "const limit = 10;",
            new_string: "const limit = 25;",
          }),
          reply().text("Done editing."),
        ],
        ["--permission-mode", "acceptEdits", "Raise the limit"],
        { files: { "config.ts": FILE } },
      );
      await t.waitFor((text) => text.includes("Done editing."), "the answer");
      const all = t.all().map((row) => row.trimEnd());
      const result = all.findIndex((row) => row.startsWith("✓ Edit"));
      expect(result).toBeGreaterThan(-1);
      expect(all.slice(result + 1, result + 3)).toEqual(["  - const limit = 10;", "  + const limit = 25;"]);
      expect(count(t.output(), INVERSE("10"))).toBe(1);
    },
  );
});
