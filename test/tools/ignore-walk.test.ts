import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { IgnoreFilter, walkFiles } from "../../src/tools/ignore-walk.js";
import { tempDir } from "./helpers.js";

async function tree(dir: string, files: Record<string, string>): Promise<void> {
  for (const [rel, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
    await writeFile(path.join(dir, rel), content);
  }
}

async function walk(root: string): Promise<string[]> {
  const found: string[] = [];
  for await (const rel of walkFiles(root, await IgnoreFilter.create(root))) found.push(rel);
  return found;
}

describe("IgnoreFilter and walkFiles", () => {
  it("applies root and nested .gitignore files, negations and directory-only rules", async () => {
    const dir = await tempDir();
    await tree(dir, {
      ".gitignore": "*.log\n!keep.log\nbuild/\n",
      "a.log": "",
      "keep.log": "",
      "build/out.js": "",
      "src/build": "a file named build is not a directory",
      "src/.gitignore": "gen/\n!*.log\n",
      "src/gen/x.ts": "",
      "src/app.ts": "",
      "src/trace.log": "",
      "node_modules/m/index.js": "",
      ".git/HEAD": "",
    });
    expect(await walk(dir)).toEqual([
      ".gitignore",
      "keep.log",
      "src/.gitignore",
      "src/app.ts",
      "src/build",
      "src/trace.log",
    ]);
  });

  it("uses the repository's ignore files when searching a subdirectory", async () => {
    const dir = await tempDir();
    await tree(dir, { ".git/HEAD": "", ".gitignore": "*.tmp\n", "pkg/a.ts": "", "pkg/b.tmp": "" });
    expect(await walk(path.join(dir, "pkg"))).toEqual(["a.ts"]);
  });

  it("walks an ignored directory that is itself the root", async () => {
    const dir = await tempDir();
    await tree(dir, { ".git/HEAD": "", ".gitignore": "dist/\n", "dist/bundle.js": "" });
    expect(await walk(path.join(dir, "dist"))).toEqual(["bundle.js"]);
  });

  it("answers for single paths, directories included", async () => {
    const dir = await tempDir();
    await tree(dir, { ".gitignore": "out/\n*.bak\n" });
    const filter = await IgnoreFilter.create(dir);
    expect(await filter.ignores("out", true)).toBe(true);
    expect(await filter.ignores("out", false)).toBe(false);
    expect(await filter.ignores("out/x.js", false)).toBe(true);
    expect(await filter.ignores("deep/a.bak", false)).toBe(true);
    expect(await filter.ignores("deep/node_modules/x", false)).toBe(true);
    expect(await filter.ignores("src/x.ts", false)).toBe(false);
  });
});
