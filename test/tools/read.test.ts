import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readTool } from "../../src/tools/read.js";
import { READ_IMAGE_MAX_BYTES } from "../../src/tools/read-media.js";
import { context, tempDir } from "./helpers.js";

describe("Read", () => {
  it("returns numbered lines like cat -n and the raw range in data", async () => {
    const dir = await tempDir();
    await writeFile(path.join(dir, "a.txt"), "alpha\nbeta\r\ngamma\n");
    const out = await readTool.execute({ file_path: "a.txt" }, context(dir));
    expect(out.isError).toBe(false);
    expect(out.content).toBe("     1\talpha\n     2\tbeta\n     3\tgamma");
    expect(out.data).toEqual({
      path: path.join(dir, "a.txt"),
      content: "alpha\nbeta\ngamma",
      isEmpty: false,
      exceededLimit: false,
      totalLines: 3,
      totalChars: 18,
      fileSize: 18,
      startLine: 1,
      endLine: 3,
    });
  });

  it("reads a window with offset and limit and says what it left out", async () => {
    const dir = await tempDir();
    const file = path.join(dir, "many.txt");
    await writeFile(file, Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join("\n"));
    const out = await readTool.execute({ file_path: file, offset: 4, limit: 3 }, context(dir));
    expect(out.content).toBe(
      "     4\tline 4\n     5\tline 5\n     6\tline 6\n\n[File has 10 lines; showing lines 4-6. Use offset/limit to read more.]",
    );
    expect(out.data).toMatchObject({
      content: "line 4\nline 5\nline 6",
      startLine: 4,
      endLine: 6,
      totalLines: 10,
      exceededLimit: true,
    });
  });

  it("stops at 2000 lines by default", async () => {
    const dir = await tempDir();
    await writeFile(
      path.join(dir, "big.txt"),
      `${Array.from({ length: 2500 }, (_, i) => `${i + 1}`).join("\n")}\n`,
    );
    const out = await readTool.execute({ file_path: "big.txt" }, context(dir));
    const lines = out.content.split("\n");
    expect(lines[1999]).toBe("  2000\t2000");
    expect(out.content).toContain(
      "[File has 2500 lines; showing lines 1-2000. Use offset/limit to read more.]",
    );
    expect(out.data).toMatchObject({ totalLines: 2500, startLine: 1, endLine: 2000, exceededLimit: true });
  });

  it("cuts lines longer than 2000 characters and says so", async () => {
    const dir = await tempDir();
    await writeFile(path.join(dir, "long.txt"), `short\n${"x".repeat(5000)}\n`);
    const out = await readTool.execute({ file_path: "long.txt" }, context(dir));
    const second = out.content.split("\n")[1]!;
    expect(second).toBe(`     2\t${"x".repeat(2000)}... [line cut: 5000 characters in total]`);
    expect(out.data).toMatchObject({ exceededLimit: true, totalLines: 2, totalChars: 5007 });
  });

  it("refuses binary files, by content and by extension", async () => {
    const dir = await tempDir();
    await writeFile(path.join(dir, "blob.dat"), Buffer.from([0x68, 0x69, 0x00, 0x01, 0x02]));
    await writeFile(path.join(dir, "archive.zip"), "not really a zip");
    const byContent = await readTool.execute({ file_path: "blob.dat" }, context(dir));
    expect(byContent.isError).toBe(true);
    expect(byContent.content).toContain("binary file");
    expect(byContent.content).toContain(path.join(dir, "blob.dat"));
    const byExtension = await readTool.execute({ file_path: "archive.zip" }, context(dir));
    expect(byExtension.isError).toBe(true);
    expect(byExtension.content).toContain("binary file");
  });

  it("attaches an image or a PDF for the model, with a read payload of no lines", async () => {
    const dir = await tempDir();
    const gif = Buffer.from("GIF89a\x01\x00\x01\x00", "latin1");
    await writeFile(path.join(dir, "dot.gif"), gif);
    await writeFile(path.join(dir, "spec.pdf"), "%PDF-1.4\n%%EOF\n");
    const image = await readTool.execute({ file_path: "dot.gif" }, context(dir));
    expect(image.isError).toBe(false);
    expect(image.media).toEqual([
      { type: "image", source: { type: "base64", media_type: "image/gif", data: gif.toString("base64") } },
    ]);
    expect(image.data).toMatchObject({
      content: "",
      totalLines: 0,
      mediaType: "image/gif",
      bytes: gif.length,
    });
    const pdf = await readTool.execute({ file_path: "spec.pdf" }, context(dir));
    expect(pdf.media).toEqual([
      {
        type: "document",
        source: { type: "base64", media_type: "application/pdf", data: expect.any(String) },
        title: "spec.pdf",
      },
    ]);
  });

  it("tells a model without vision that it cannot see the image, and refuses images over the cap", async () => {
    const dir = await tempDir();
    await writeFile(path.join(dir, "dot.png"), Buffer.from("\x89PNG\r\n\x1a\n", "latin1"));
    const blind = await readTool.execute(
      { file_path: "dot.png" },
      { ...context(dir), model: "local:tiny.gguf", mediaInput: { image: false, pdf: false } },
    );
    expect(blind).toMatchObject({
      isError: true,
      content: expect.stringContaining("the model local:tiny.gguf does not take images"),
    });
    expect(blind.media).toBeUndefined();
    await writeFile(path.join(dir, "huge.png"), Buffer.alloc(READ_IMAGE_MAX_BYTES + 1));
    const huge = await readTool.execute({ file_path: "huge.png" }, context(dir));
    expect(huge).toMatchObject({
      isError: true,
      content: expect.stringContaining(`more than the ${READ_IMAGE_MAX_BYTES}`),
    });
  });

  it("names the missing path, and sends directories to LS", async () => {
    const dir = await tempDir();
    await mkdir(path.join(dir, "sub"));
    const missing = await readTool.execute({ file_path: "nope.txt" }, context(dir));
    expect(missing).toMatchObject({
      isError: true,
      content: `File does not exist: ${path.join(dir, "nope.txt")}`,
    });
    const directory = await readTool.execute({ file_path: "sub" }, context(dir));
    expect(directory.isError).toBe(true);
    expect(directory.content).toContain("Use the LS tool");
  });

  it("notes an empty file", async () => {
    const dir = await tempDir();
    await writeFile(path.join(dir, "empty.txt"), "");
    const out = await readTool.execute({ file_path: "empty.txt" }, context(dir));
    expect(out.isError).toBe(false);
    expect(out.content).toBe(`The file ${path.join(dir, "empty.txt")} exists but is empty.`);
    expect(out.data).toMatchObject({ isEmpty: true, totalLines: 0, content: "" });
  });

  it("says when the offset is past the end", async () => {
    const dir = await tempDir();
    await writeFile(path.join(dir, "short.txt"), "one\ntwo\n");
    const out = await readTool.execute({ file_path: "short.txt", offset: 10 }, context(dir));
    expect(out.content).toContain("has 2 lines, fewer than the offset 10");
  });

  it("rejects invalid input without reading", async () => {
    const dir = await tempDir();
    const out = await readTool.execute({ file_path: "a.txt", limit: 0 }, context(dir));
    expect(out).toMatchObject({ isError: true, errorKind: "invalid_input" });
    expect(out.content).toContain("`limit`");
  });

  it("keeps multi-byte text intact", async () => {
    const dir = await tempDir();
    await writeFile(path.join(dir, "u.txt"), "héllo wörld 👋\n");
    const out = await readTool.execute({ file_path: "u.txt" }, context(dir));
    expect(out.content).toBe("     1\théllo wörld 👋");
  });
});
