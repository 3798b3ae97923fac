import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, expect, it } from "vitest";
import { grepTool } from "../../src/tools/grep.js";
import { searchWithJs } from "../../src/tools/grep-js.js";
import type { GrepQuery, GrepSink } from "../../src/tools/grep-query.js";
import { context, tempDir } from "./helpers.js";

const saved = process.env.CAIRN_GREP;
afterEach(() => {
  if (saved === undefined) delete process.env.CAIRN_GREP;
  else process.env.CAIRN_GREP = saved;
});

/** A line on which `(a+)+$` backtracks for ever in a JS regex engine. */
const EVIL_LINE = `${"a".repeat(40)}b\n`;

it("the JS fallback stops a catastrophically backtracking pattern with an error, and the event loop keeps turning", async () => {
  process.env.CAIRN_GREP = "js";
  const dir = await tempDir();
  await writeFile(path.join(dir, "evil.txt"), EVIL_LINE);
  await writeFile(path.join(dir, "fine.txt"), "aaa\n");
  let ticks = 0;
  const ticker = setInterval(() => {
    ticks += 1;
  }, 20);
  const out = await grepTool
    .execute({ pattern: "(a+)+$" }, context(dir))
    .finally(() => clearInterval(ticker));
  expect(out.isError).toBe(true);
  expect(out.content).toMatch(/^Invalid search: the pattern took more than 5 s on one file and was stopped/);
  expect(ticks).toBeGreaterThan(0);
});

it("an abort stops the search at once, also in the middle of a runaway match", async () => {
  const dir = await tempDir();
  await writeFile(path.join(dir, "evil.txt"), EVIL_LINE);
  const controller = new AbortController();
  const query: GrepQuery = {
    root: dir,
    rootIsFile: false,
    pattern: "(a+)+$",
    ignoreCase: false,
    multiline: false,
    before: 0,
    after: 0,
    globs: [],
    wantLines: false,
    inPathOrder: true,
    signal: controller.signal,
    env: {},
  };
  const sink: GrepSink = { line: () => {}, fileDone: () => {} };
  const search = searchWithJs(query, sink, { regexDeadlineMs: 600_000 });
  setTimeout(() => controller.abort(new Error("stopped by the test")), 100);
  await expect(search).rejects.toThrow("stopped by the test");
});

it("matches as before: line numbers and multiline spans come back from the worker", async () => {
  process.env.CAIRN_GREP = "js";
  const dir = await tempDir();
  await writeFile(path.join(dir, "a.txt"), "one\nfoo two\nthree\nfoo\n");
  const lines = await grepTool.execute({ pattern: "foo", output_mode: "content" }, context(dir));
  expect(lines.content).toBe(`${path.join(dir, "a.txt")}:2:foo two\n${path.join(dir, "a.txt")}:4:foo`);
  const spans = await grepTool.execute(
    { pattern: "two\\nthree", output_mode: "count", multiline: true },
    context(dir),
  );
  expect(spans.content).toMatch(/a\.txt:1/);
});
