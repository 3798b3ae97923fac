import { readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { editTool } from "../../src/tools/edit.js";
import { context, tempDir } from "./helpers.js";

async function fileWith(content: string): Promise<{ dir: string; file: string }> {
  const dir = await tempDir();
  const file = path.join(dir, "code.ts");
  await writeFile(file, content);
  return { dir, file };
}

describe("Edit", () => {
  it("replaces a unique string and reports a diff", async () => {
    const { dir, file } = await fileWith("const a = 1;\nconst b = 2;\nconst c = 3;\n");
    const out = await editTool.execute(
      { file_path: "code.ts", old_string: "const b = 2;", new_string: "const b = 20;\nconst bb = 21;" },
      context(dir),
    );
    expect(out.isError).toBe(false);
    expect(out.content).toBe(`The file ${file} has been updated successfully.`);
    expect(await readFile(file, "utf8")).toBe("const a = 1;\nconst b = 20;\nconst bb = 21;\nconst c = 3;\n");
    expect(out.data).toEqual({
      path: file,
      linesAdded: 2,
      linesRemoved: 1,
      replacements: 1,
      diffString: "@@ -2,1 +2,2 @@\n-const b = 2;\n+const b = 20;\n+const bb = 21;\n",
      beforeFullFileContent: expect.stringContaining("const b = 2;\n"),
      afterFullFileContent: expect.stringContaining("const b = 20;\nconst bb = 21;\n"),
    });
  });

  it("refuses an ambiguous string unless replace_all", async () => {
    const { dir, file } = await fileWith("x = 1\ny = x\nz = x\n");
    const ambiguous = await editTool.execute(
      { file_path: file, old_string: "x", new_string: "w" },
      context(dir),
    );
    expect(ambiguous.isError).toBe(true);
    expect(ambiguous.content).toContain("Found 3 matches");
    expect(ambiguous.content).toContain("replace_all");
    expect(ambiguous.content).toContain("context");
    expect(await readFile(file, "utf8")).toBe("x = 1\ny = x\nz = x\n");

    const all = await editTool.execute(
      { file_path: file, old_string: "x", new_string: "w", replace_all: true },
      context(dir),
    );
    expect(all.isError).toBe(false);
    expect(all.content).toContain("all 3 occurrences");
    expect(await readFile(file, "utf8")).toBe("w = 1\ny = w\nz = w\n");
    expect(all.data).toMatchObject({ replacements: 3, linesAdded: 3, linesRemoved: 3 });
  });

  it("reports a string that is not there", async () => {
    const { dir, file } = await fileWith("hello\n");
    const out = await editTool.execute(
      { file_path: file, old_string: "bye", new_string: "ciao" },
      context(dir),
    );
    expect(out.isError).toBe(true);
    expect(out.content).toContain("String to replace not found");
    expect(out.content).toContain("bye");
  });

  it("refuses identical old and new strings", async () => {
    const { dir, file } = await fileWith("hello\n");
    const out = await editTool.execute(
      { file_path: file, old_string: "hello", new_string: "hello" },
      context(dir),
    );
    expect(out.isError).toBe(true);
    expect(out.content).toContain("exactly the same");
  });

  it("errors on a missing file, but creates it from an empty old_string", async () => {
    const dir = await tempDir();
    const missing = await editTool.execute(
      { file_path: "new.txt", old_string: "a", new_string: "b" },
      context(dir),
    );
    expect(missing).toMatchObject({
      isError: true,
      content: `File does not exist: ${path.join(dir, "new.txt")}`,
    });
    await expect(stat(path.join(dir, "new.txt"))).rejects.toThrow();

    const created = await editTool.execute(
      { file_path: "sub/new.txt", old_string: "", new_string: "hi\nthere\n" },
      context(dir),
    );
    expect(created.isError).toBe(false);
    expect(await readFile(path.join(dir, "sub/new.txt"), "utf8")).toBe("hi\nthere\n");
    expect(created.data).toMatchObject({
      linesAdded: 2,
      linesRemoved: 0,
      diffString: "@@ -0,0 +1,2 @@\n+hi\n+there\n",
    });
  });

  it("does not take an empty old_string on a non-empty file", async () => {
    const { dir, file } = await fileWith("keep me\n");
    const out = await editTool.execute({ file_path: file, old_string: "", new_string: "x" }, context(dir));
    expect(out.isError).toBe(true);
    expect(await readFile(file, "utf8")).toBe("keep me\n");
  });

  it("deletes lines and counts them", async () => {
    const { dir, file } = await fileWith("a\nb\nc\n");
    const out = await editTool.execute({ file_path: file, old_string: "b\n", new_string: "" }, context(dir));
    expect(await readFile(file, "utf8")).toBe("a\nc\n");
    expect(out.data).toMatchObject({ linesAdded: 0, linesRemoved: 1, diffString: "@@ -2,1 +2,0 @@\n-b\n" });
  });

  it("treats $ in new_string literally", async () => {
    const { dir, file } = await fileWith("price\n");
    await editTool.execute({ file_path: file, old_string: "price", new_string: "$& $1 $$" }, context(dir));
    expect(await readFile(file, "utf8")).toBe("$& $1 $$\n");
  });

  it("matches multi-line text in a CRLF file", async () => {
    const { dir, file } = await fileWith("one\r\ntwo\r\nthree\r\n");
    const out = await editTool.execute(
      { file_path: file, old_string: "one\ntwo", new_string: "1\n2" },
      context(dir),
    );
    expect(out.isError).toBe(false);
    expect(await readFile(file, "utf8")).toBe("1\r\n2\r\nthree\r\n");
  });
});
