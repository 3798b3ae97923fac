import path from "node:path";
import * as z from "zod";
import { mkdir, readFile, stat } from "../util/fs-async.js";
import { BUILTIN_JSON_SCHEMAS } from "./builtin-json-schemas.js";
import { defineTool } from "./define.js";
import { currentText } from "./display.js";
import { FULL_CONTENT_MAX_CHARS, fullContents } from "./edit-diff.js";
import { resolveToolPath } from "./paths.js";
import { countLines } from "./text-lines.js";
import { writeTextFile } from "./write-file.js";

const input = () =>
  z.object({
    file_path: z
      .string()
      .min(1)
      .describe("The file to write: an absolute path, or relative to the working directory."),
    content: z.string().describe("The complete new content of the file."),
  });

export const writeTool = defineTool({
  name: "Write",
  effects: {
    kind: "edit",
    readOnly: false,
    network: false,
    paths: (args) => [{ path: args.file_path, access: "write" }],
  },
  payload: "write",
  // The file's text before the write can only be read while the call has not run.
  display: (args, cwd, { live }) => {
    const file = resolveToolPath(cwd, args.file_path);
    return {
      title: `Write ${args.file_path}`,
      kind: "edit",
      diff: { path: file, oldText: live ? currentText(file) : null, newText: args.content },
    };
  },
  description:
    "Writes a file with the given content, replacing it if it exists and creating missing parent directories. " +
    "The path may be absolute or relative to the working directory. " +
    "Prefer Edit for changing part of an existing file; Read a file before overwriting it.",
  input,
  jsonSchema: BUILTIN_JSON_SCHEMAS.Write,
  async run(args, ctx) {
    const filePath = resolveToolPath(ctx.cwd, args.file_path);
    const existing = await stat(filePath).catch(() => undefined);
    if (existing?.isDirectory()) {
      return { content: `${filePath} is a directory; give the path of a file to write.`, isError: true };
    }
    // The content it replaces, for front ends' diff views (edit-diff.ts#fullContents caps it).
    const before = !existing
      ? ""
      : existing.size <= FULL_CONTENT_MAX_CHARS * 4
        ? await readFile(filePath, "utf8").catch(() => undefined)
        : undefined;
    await mkdir(path.dirname(filePath), { recursive: true });
    await writeTextFile(filePath, args.content);
    const created = existing === undefined;
    return {
      content: created
        ? `File created successfully at: ${filePath}`
        : `File overwritten successfully at: ${filePath}`,
      data: {
        path: filePath,
        linesCreated: countLines(args.content),
        fileSize: Buffer.byteLength(args.content, "utf8"),
        created,
        ...fullContents(before, args.content),
      },
    };
  },
});
