import { mkdir, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { globTool } from "../../src/tools/glob.js";
import { writeFixture } from "./grep-fixture.js";
import { context, tempDir } from "./helpers.js";

describe("Glob", () => {
  it("returns absolute paths newest first, honouring .gitignore and skipping .git and node_modules", async () => {
    const dir = await tempDir();
    await writeFixture(dir);
    const out = await globTool.execute({ pattern: "**/*.ts" }, context(dir));
    const files = ["src/a.ts", "src/nested/c.ts", ".hidden/h.ts"].map((f) => path.join(dir, f));
    expect(out.isError).toBe(false);
    expect(out.content).toBe(files.join("\n"));
    expect(out.data).toEqual({ pattern: "**/*.ts", path: dir, files, totalFiles: 3, truncated: false });
  });

  it("searches under path, and from the fixed part of an absolute pattern", async () => {
    const dir = await tempDir();
    await writeFixture(dir);
    const under = await globTool.execute({ pattern: "*.{js,ts}", path: "src" }, context(dir));
    expect(under.data).toMatchObject({
      path: path.join(dir, "src"),
      files: [path.join(dir, "src/a.ts"), path.join(dir, "src/b.js")],
    });
    const absolute = await globTool.execute({ pattern: `${dir}/src/**/*.ts` }, context("/"));
    expect(absolute.data).toMatchObject({
      path: path.join(dir, "src"),
      files: [path.join(dir, "src/a.ts"), path.join(dir, "src/nested/c.ts")],
    });
  });

  it("caps results at 100 with a note", async () => {
    const dir = await tempDir();
    await mkdir(path.join(dir, "many"));
    const now = Date.now() / 1000;
    for (let i = 0; i < 105; i++) {
      const file = path.join(dir, "many", `f${String(i).padStart(3, "0")}.txt`);
      await writeFile(file, "");
      await utimes(file, now - i, now - i);
    }
    const out = await globTool.execute({ pattern: "many/*.txt" }, context(dir));
    const files = out.data?.files as string[];
    expect(files).toHaveLength(100);
    expect(files[0]).toBe(path.join(dir, "many/f000.txt"));
    expect(out.data).toMatchObject({ totalFiles: 105, truncated: true });
    expect(out.content).toContain(
      "(Results are truncated: showing the 100 most recently modified of 105 files.",
    );
  });

  it("says when nothing matches, and errors on a missing directory", async () => {
    const dir = await tempDir();
    const none = await globTool.execute({ pattern: "*.nothing" }, context(dir));
    expect(none).toMatchObject({ isError: false, content: "No files found" });
    expect(none.data).toMatchObject({ files: [], totalFiles: 0, truncated: false });
    const missing = await globTool.execute({ pattern: "*", path: "gone" }, context(dir));
    expect(missing).toMatchObject({
      isError: true,
      content: `Directory does not exist: ${path.join(dir, "gone")}`,
    });
  });

  it("rejects a missing pattern", async () => {
    const dir = await tempDir();
    const out = await globTool.execute({}, context(dir));
    expect(out).toMatchObject({ isError: true, errorKind: "invalid_input" });
    expect(out.content).toContain("`pattern`");
  });
});
