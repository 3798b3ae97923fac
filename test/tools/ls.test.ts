import { mkdir, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { lsTool } from "../../src/tools/ls.js";
import { context, tempDir } from "./helpers.js";

describe("LS", () => {
  it("lists a tree with directories marked /, not expanding node_modules or ignored directories", async () => {
    const dir = await tempDir();
    await mkdir(path.join(dir, "src/lib"), { recursive: true });
    await mkdir(path.join(dir, "node_modules/pkg"), { recursive: true });
    await mkdir(path.join(dir, "dist"));
    await writeFile(path.join(dir, ".gitignore"), "dist/\n");
    await writeFile(path.join(dir, "dist/bundle.js"), "");
    await writeFile(path.join(dir, "node_modules/pkg/index.js"), "");
    await writeFile(path.join(dir, "src/lib/util.ts"), "");
    await writeFile(path.join(dir, "src/main.ts"), "");
    await writeFile(path.join(dir, "README.md"), "");
    await symlink("README.md", path.join(dir, "link.md"));

    const out = await lsTool.execute({ path: dir }, context("/"));
    expect(out.isError).toBe(false);
    expect(out.content).toBe(
      [
        `- ${dir}/`,
        "  - .gitignore",
        "  - README.md",
        "  - dist/",
        "  - link.md",
        "  - node_modules/",
        "  - src/",
        "    - lib/",
        "      - util.ts",
        "    - main.ts",
      ].join("\n"),
    );
    expect(out.data).toEqual({
      path: dir,
      entries: [
        { name: ".gitignore", type: "file" },
        { name: "README.md", type: "file" },
        { name: "dist", type: "directory" },
        { name: "link.md", type: "symlink" },
        { name: "node_modules", type: "directory" },
        { name: "src", type: "directory" },
        { name: "src/lib", type: "directory" },
        { name: "src/lib/util.ts", type: "file" },
        { name: "src/main.ts", type: "file" },
      ],
      truncated: false,
    });
  });

  it("leaves out entries matching ignore globs and resolves a relative path", async () => {
    const dir = await tempDir();
    await mkdir(path.join(dir, "sub"));
    await writeFile(path.join(dir, "sub/keep.ts"), "");
    await writeFile(path.join(dir, "sub/drop.log"), "");
    const out = await lsTool.execute({ path: "sub", ignore: ["*.log"] }, context(dir));
    expect(out.content).toBe(`- ${path.join(dir, "sub")}/\n  - keep.ts`);
  });

  it("stops at 1000 entries with a note, nearest levels first", async () => {
    const dir = await tempDir();
    await mkdir(path.join(dir, "a-deep"));
    for (let i = 0; i < 600; i++) await writeFile(path.join(dir, "a-deep", `f${i}`), "");
    for (let i = 0; i < 600; i++) await writeFile(path.join(dir, `top${i}`), "");
    const out = await lsTool.execute({ path: dir }, context(dir));
    const entries = out.data?.entries as { name: string }[];
    expect(entries).toHaveLength(1000);
    expect(entries.filter((entry) => entry.name.startsWith("top"))).toHaveLength(600);
    expect(out.data).toMatchObject({ truncated: true });
    expect(out.content).toContain("[Listing truncated at 1000 entries.");
  });

  it("errors on a missing path and on a file", async () => {
    const dir = await tempDir();
    await writeFile(path.join(dir, "f.txt"), "");
    const missing = await lsTool.execute({ path: "nope" }, context(dir));
    expect(missing).toMatchObject({
      isError: true,
      content: `Directory does not exist: ${path.join(dir, "nope")}`,
    });
    const file = await lsTool.execute({ path: "f.txt" }, context(dir));
    expect(file.isError).toBe(true);
    expect(file.content).toContain("Use the Read tool");
  });

  it("notes an empty directory", async () => {
    const dir = await tempDir();
    const out = await lsTool.execute({ path: dir }, context(dir));
    expect(out.content).toBe(`- ${dir}/\n  (empty directory)`);
  });
});
