import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { writeTool } from "../../src/tools/write.js";
import { context, tempDir } from "./helpers.js";

describe("Write", () => {
  it("creates a file and its parent directories", async () => {
    const dir = await tempDir();
    const out = await writeTool.execute(
      { file_path: "deep/er/new.txt", content: "one\ntwo\n" },
      context(dir),
    );
    const file = path.join(dir, "deep/er/new.txt");
    expect(out.isError).toBe(false);
    expect(out.content).toBe(`File created successfully at: ${file}`);
    expect(out.data).toEqual({
      path: file,
      linesCreated: 2,
      fileSize: 8,
      created: true,
      beforeFullFileContent: "",
      afterFullFileContent: "one\ntwo\n",
    });
    expect(await readFile(file, "utf8")).toBe("one\ntwo\n");
  });

  it("overwrites an existing file and says so", async () => {
    const dir = await tempDir();
    const file = path.join(dir, "a.txt");
    await writeFile(file, "old");
    const out = await writeTool.execute({ file_path: file, content: "né" }, context(dir));
    expect(out.content).toBe(`File overwritten successfully at: ${file}`);
    expect(out.data).toEqual({
      path: file,
      linesCreated: 1,
      fileSize: 3,
      created: false,
      beforeFullFileContent: "old",
      afterFullFileContent: "né",
    });
    expect(await readFile(file, "utf8")).toBe("né");
  });

  it("never runs on invalid input: no file, and the error names `content`", async () => {
    const dir = await tempDir();
    const out = await writeTool.execute({ file_path: "x.txt" }, context(dir));
    expect(out).toMatchObject({ isError: true, errorKind: "invalid_input" });
    expect(out.content).toContain("`content`");
    await expect(stat(path.join(dir, "x.txt"))).rejects.toThrow();
  });

  it("refuses to write over a directory", async () => {
    const dir = await tempDir();
    await mkdir(path.join(dir, "d"));
    const out = await writeTool.execute({ file_path: "d", content: "x" }, context(dir));
    expect(out.isError).toBe(true);
    expect(out.content).toContain("is a directory");
  });
});
