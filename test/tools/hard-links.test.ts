import { linkSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { editTool } from "../../src/tools/edit.js";
import { writeTool } from "../../src/tools/write.js";
import { context, tempDir } from "./helpers.js";

/** A workspace file that is a hard link to a file outside it (as a checkout or a command can leave). */
async function linkedFile(): Promise<{ inside: string; outside: string; dir: string }> {
  const dir = await tempDir();
  const elsewhere = await tempDir();
  const outside = path.join(elsewhere, "bashrc");
  writeFileSync(outside, "original\n", { mode: 0o640 });
  const inside = path.join(dir, "notes.txt");
  linkSync(outside, inside);
  return { inside, outside, dir };
}

describe("writing a file with more than one hard link replaces it instead of writing through", () => {
  it("positive control: a plain write through the link changes the file outside too", async () => {
    const { inside, outside } = await linkedFile();
    writeFileSync(inside, "through\n");
    expect(readFileSync(outside, "utf8")).toBe("through\n");
  });

  it("Write: the workspace name gets the new content in a new inode, the outside name keeps the old one", async () => {
    const { inside, outside, dir } = await linkedFile();
    const out = await writeTool.execute({ file_path: "notes.txt", content: "new\n" }, context(dir));
    expect(out.isError).toBe(false);
    expect(readFileSync(inside, "utf8")).toBe("new\n");
    expect(readFileSync(outside, "utf8")).toBe("original\n");
    expect(statSync(inside).nlink).toBe(1);
    expect(statSync(inside).ino).not.toBe(statSync(outside).ino);
    expect(statSync(inside).mode & 0o777).toBe(0o640);
  });

  it("Edit: the same", async () => {
    const { inside, outside, dir } = await linkedFile();
    const out = await editTool.execute(
      { file_path: "notes.txt", old_string: "original", new_string: "edited" },
      context(dir),
    );
    expect(out.isError).toBe(false);
    expect(readFileSync(inside, "utf8")).toBe("edited\n");
    expect(readFileSync(outside, "utf8")).toBe("original\n");
  });

  it("a file with one link is written in place (same inode)", async () => {
    const dir = await tempDir();
    const file = path.join(dir, "a.txt");
    writeFileSync(file, "a\n");
    const inode = statSync(file).ino;
    await writeTool.execute({ file_path: "a.txt", content: "b\n" }, context(dir));
    expect(statSync(file).ino).toBe(inode);
    expect(readFileSync(file, "utf8")).toBe("b\n");
  });
});
