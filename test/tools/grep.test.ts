import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { grepTool } from "../../src/tools/grep.js";
import { findRipgrep } from "../../src/tools/grep-rg.js";
import { writeFixture } from "./grep-fixture.js";
import { context, tempDir } from "./helpers.js";

const rg = await findRipgrep(process.env.PATH ?? "");
if (!rg)
  console.warn(
    "ripgrep (rg) is not on PATH: skipping the ripgrep-engine Grep tests (the JS fallback is tested).",
  );

const savedSetting = process.env.CAIRN_GREP;
afterAll(() => {
  if (savedSetting === undefined) delete process.env.CAIRN_GREP;
  else process.env.CAIRN_GREP = savedSetting;
});

function useEngine(engine: "js" | "ripgrep"): void {
  if (engine === "js") process.env.CAIRN_GREP = "js";
  else delete process.env.CAIRN_GREP;
}

async function fixture(): Promise<string> {
  const dir = await tempDir();
  await writeFixture(dir);
  return dir;
}

describe.each(["js", "ripgrep"] as const)("Grep (%s engine)", (engine) => {
  const skip = engine === "ripgrep" && !rg;
  beforeEach(() => useEngine(engine));

  it.skipIf(skip)(
    "lists matching files, newest first, skipping ignored, .git, node_modules and binary files",
    async () => {
      const dir = await fixture();
      const out = await grepTool.execute({ pattern: "foo" }, context(dir));
      expect(out.isError).toBe(false);
      const files = ["src/a.ts", "src/b.js", "src/nested/c.ts", ".hidden/h.ts"].map((f) => path.join(dir, f));
      expect(out.content).toBe(`Found 4 files\n${files.join("\n")}`);
      expect(out.data).toEqual({
        pattern: "foo",
        path: dir,
        outputMode: "files_with_matches",
        matches: files.map((file) => ({ file })),
        numFiles: 4,
        numMatches: 6,
        truncated: false,
        engine,
      });
    },
  );

  it.skipIf(skip)("shows matching lines as path:line:text in content mode", async () => {
    const dir = await fixture();
    const out = await grepTool.execute(
      { pattern: "foo", path: "src", output_mode: "content", "-i": true },
      context(dir),
    );
    const p = (f: string) => path.join(dir, "src", f);
    expect(out.content).toBe(
      [
        `${p("a.ts")}:1:export const foo = 1;`,
        `${p("a.ts")}:2:// TODO: foo bar`,
        `${p("a.ts")}:3:function Foo() {}`,
        `${p("b.js")}:1:const foo = 2;`,
        `${p("b.js")}:5:let foo2 = 6;`,
        `${p("nested/c.ts")}:2:foo at line 2`,
      ].join("\n"),
    );
    expect(out.data?.matches).toContainEqual({
      file: p("a.ts"),
      lineNumber: 3,
      content: "function Foo() {}",
    });
    expect(out.data).toMatchObject({ numFiles: 3, numMatches: 6, truncated: false });
  });

  it.skipIf(skip)("shows context lines with - and separates groups with --", async () => {
    const dir = await fixture();
    const out = await grepTool.execute(
      { pattern: "foo", path: "src/b.js", output_mode: "content", "-C": 1 },
      context(dir),
    );
    const b = path.join(dir, "src/b.js");
    expect(out.content).toBe(
      [
        `${b}:1:const foo = 2;`,
        `${b}-2-const bar = 3;`,
        "--",
        `${b}-4-const qux = 5;`,
        `${b}:5:let foo2 = 6;`,
      ].join("\n"),
    );
    const plain = await grepTool.execute(
      { pattern: "bar", path: "src/b.js", output_mode: "content", "-n": false },
      context(dir),
    );
    expect(plain.content).toBe(`${b}:const bar = 3;`);
  });

  it.skipIf(skip)("counts matching lines per file", async () => {
    const dir = await fixture();
    const out = await grepTool.execute({ pattern: "foo", path: "src", output_mode: "count" }, context(dir));
    const p = (f: string) => path.join(dir, "src", f);
    expect(out.content).toBe(
      `${p("a.ts")}:2\n${p("b.js")}:2\n${p("nested/c.ts")}:1\n\nFound 5 matching lines in 3 files.`,
    );
    expect(out.data?.matches).toEqual([
      { file: p("a.ts"), count: 2 },
      { file: p("b.js"), count: 2 },
      { file: p("nested/c.ts"), count: 1 },
    ]);
  });

  it.skipIf(skip)("filters by glob and type; a glob names files .gitignore would skip", async () => {
    const dir = await fixture();
    const ts = await grepTool.execute({ pattern: "foo", glob: "*.ts" }, context(dir));
    expect(ts.data?.matches).toEqual(
      ["src/a.ts", "src/nested/secret.ts", "src/nested/c.ts", ".hidden/h.ts"].map((f) => ({
        file: path.join(dir, f),
      })),
    );
    const js = await grepTool.execute({ pattern: "foo", type: "js" }, context(dir));
    expect(js.data?.matches).toEqual([{ file: path.join(dir, "src/b.js") }]);
    const notSrc = await grepTool.execute({ pattern: "foo", glob: "!src/**" }, context(dir));
    expect(notSrc.data?.matches).toEqual([{ file: path.join(dir, ".hidden/h.ts") }]);
  });

  it.skipIf(skip)("matches across lines in multiline mode", async () => {
    const dir = await fixture();
    const out = await grepTool.execute(
      { pattern: "start\\nmid", multiline: true, output_mode: "content" },
      context(dir),
    );
    const m = path.join(dir, "multi.txt");
    expect(out.content).toBe(`${m}:1:start\n${m}:2:middle\n${m}:4:start\n${m}:5:middle`);
    expect(out.data).toMatchObject({ numMatches: 2, numFiles: 1 });
  });

  it.skipIf(skip)("applies head_limit and says what it left out", async () => {
    const dir = await fixture();
    const files = await grepTool.execute({ pattern: "foo", head_limit: 2 }, context(dir));
    expect(files.content).toBe(
      `Found 4 files\n${path.join(dir, "src/a.ts")}\n${path.join(dir, "src/b.js")}\n` +
        "[Showing 2 of 4 files, most recently modified first. Use head_limit, or a narrower path, glob or type, to see more.]",
    );
    expect(files.data).toMatchObject({ truncated: true, numFiles: 4 });
    const lines = await grepTool.execute(
      { pattern: "foo", output_mode: "content", head_limit: 1 },
      context(dir),
    );
    expect(lines.content).toContain("[Showing the first 1 lines; 6 matches in 4 files in all.");
    expect(lines.data?.matches).toHaveLength(1);
  });

  it.skipIf(skip)("says when nothing matches", async () => {
    const dir = await fixture();
    const files = await grepTool.execute({ pattern: "nothing-like-this" }, context(dir));
    expect(files).toMatchObject({ isError: false, content: "No files found" });
    const lines = await grepTool.execute(
      { pattern: "nothing-like-this", output_mode: "content" },
      context(dir),
    );
    expect(lines.content).toBe("No matches found");
  });

  it.skipIf(skip)("reports an invalid pattern and a missing path as errors", async () => {
    const dir = await fixture();
    const bad = await grepTool.execute({ pattern: "(foo" }, context(dir));
    expect(bad.isError).toBe(true);
    expect(bad.content).toMatch(/^Invalid search: /);
    const missing = await grepTool.execute({ pattern: "foo", path: "nowhere" }, context(dir));
    expect(missing).toMatchObject({
      isError: true,
      content: `Path does not exist: ${path.join(dir, "nowhere")}`,
    });
  });

  it.skipIf(skip)("searches inside an ignored directory when asked to", async () => {
    const dir = await fixture();
    const out = await grepTool.execute({ pattern: "foo", path: "ignored" }, context(dir));
    expect(out.data?.matches).toEqual([{ file: path.join(dir, "ignored/x.ts") }]);
  });
});

describe.skipIf(!rg)("Grep engines agree", () => {
  const queries: Record<string, unknown>[] = [
    { pattern: "foo" },
    { pattern: "foo", output_mode: "content" },
    { pattern: "foo", output_mode: "count" },
    { pattern: "FOO", "-i": true, output_mode: "content", "-A": 2, "-n": false },
    { pattern: "foo", output_mode: "content", "-B": 1, path: "src" },
    { pattern: "b\\ncd\\n", multiline: true, output_mode: "content" },
    { pattern: "$", multiline: true, output_mode: "count" },
    { pattern: "x*", multiline: true, output_mode: "count" },
    { pattern: "^", output_mode: "count" },
    { pattern: "1$", output_mode: "content" },
    { pattern: "foo", glob: "*.{ts,js}" },
    { pattern: "foo", glob: "*.log", output_mode: "count" },
    { pattern: "foo", glob: "src/**/*.ts" },
    { pattern: "foo", type: "ts", output_mode: "content" },
    { pattern: "foo", path: "src/a.ts", output_mode: "content" },
    { pattern: "foo", path: "src/nested" },
    { pattern: "wörld|👋", output_mode: "content" },
    { pattern: "foo", output_mode: "content", head_limit: 3 },
  ];

  it("give the same answers on the same tree", async () => {
    const dir = await fixture();
    await writeFile(path.join(dir, "m.txt"), "ab\ncd\nab\ncd\n");
    await writeFile(path.join(dir, "n.txt"), "ab\ncd\nxx\nzz");
    await writeFile(path.join(dir, "crlf.txt"), "a1\r\nb2\r\n");
    await writeFile(path.join(dir, "u.txt"), `héllo wörld 👋 foo\n${"z".repeat(800)}foo\n`);
    await writeFile(path.join(dir, "src/y.log"), "foo in a log\n");
    for (const query of queries) {
      useEngine("js");
      const js = await grepTool.execute(query, context(dir));
      useEngine("ripgrep");
      const ripgrep = await grepTool.execute(query, context(dir));
      expect(ripgrep.data?.engine, JSON.stringify(query)).toBe("ripgrep");
      expect(js.data?.engine).toBe("js");
      expect(js.content, JSON.stringify(query)).toBe(ripgrep.content);
      expect({ ...js.data, engine: "" }, JSON.stringify(query)).toEqual({ ...ripgrep.data, engine: "" });
    }
  });
});
