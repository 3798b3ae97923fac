import path from "node:path";
import * as z from "zod";
import { mkdir, readFile, stat } from "../util/fs-async.js";
import { looksBinary } from "./binary.js";
import { BUILTIN_JSON_SCHEMAS } from "./builtin-json-schemas.js";
import { defineTool } from "./define.js";
import { diffCreation, diffReplacements, fullContents } from "./edit-diff.js";
import { resolveToolPath } from "./paths.js";
import { writeTextFile } from "./write-file.js";

const input = () =>
  z.object({
    file_path: z
      .string()
      .min(1)
      .describe("The file to modify: an absolute path, or relative to the working directory."),
    old_string: z.string().describe("The exact text to replace (whitespace and indentation included)."),
    new_string: z.string().describe("The text to replace it with (must differ from old_string)."),
    replace_all: z
      .boolean()
      .optional()
      .describe("Replace every occurrence of old_string (default false: it must occur exactly once)."),
  });

export const editTool = defineTool({
  name: "Edit",
  effects: {
    kind: "edit",
    readOnly: false,
    network: false,
    paths: (args) => [{ path: args.file_path, access: "write" }],
  },
  payload: "edit",
  display: (args, cwd) => ({
    title: `Edit ${args.file_path}`,
    kind: "edit",
    diff: {
      path: resolveToolPath(cwd, args.file_path),
      oldText: args.old_string === "" ? null : args.old_string,
      newText: args.new_string,
    },
  }),
  description:
    "Replaces exact text in a file. old_string must match the file exactly (whitespace and indentation included) " +
    "and occur exactly once, unless replace_all is true; add surrounding lines to make it unique. " +
    "The path may be absolute or relative to the working directory. " +
    "An empty old_string on a file that does not exist creates it with new_string.",
  input,
  jsonSchema: BUILTIN_JSON_SCHEMAS.Edit,
  async run(args, ctx) {
    const filePath = resolveToolPath(ctx.cwd, args.file_path);
    if (args.old_string === args.new_string) {
      return {
        content: "No changes to make: old_string and new_string are exactly the same.",
        isError: true,
      };
    }
    const info = await stat(filePath).catch(() => undefined);
    if (!info) {
      if (args.old_string !== "") return { content: `File does not exist: ${filePath}`, isError: true };
      await mkdir(path.dirname(filePath), { recursive: true });
      return create(filePath, args.new_string, true);
    }
    if (info.isDirectory()) return { content: `${filePath} is a directory, not a file.`, isError: true };

    const bytes = await readFile(filePath);
    if (looksBinary(bytes))
      return { content: `Cannot edit ${filePath}: it is a binary file.`, isError: true };
    const before = bytes.toString("utf8");
    if (args.old_string === "") {
      if (before !== "") {
        return {
          content: `Cannot create ${filePath}: the file already exists and is not empty. Give the text to replace in old_string, or use Write to replace the whole file.`,
          isError: true,
        };
      }
      return create(filePath, args.new_string, false);
    }

    let target = args.old_string;
    let replacement = args.new_string;
    let offsets = findAll(before, target);
    // The model sees lines without their CR; on a CRLF file, match its multi-line text with CRLF endings.
    if (offsets.length === 0 && before.includes("\r\n") && target.includes("\n")) {
      target = toCrlf(target);
      replacement = toCrlf(replacement);
      offsets = findAll(before, target);
    }
    if (offsets.length === 0) {
      return {
        content: `String to replace not found in ${filePath}. old_string must match the file exactly, whitespace and indentation included; Read the file again to copy the current text.\nString: ${preview(args.old_string)}`,
        isError: true,
      };
    }
    if (offsets.length > 1 && !args.replace_all) {
      return {
        content: `Found ${offsets.length} matches of old_string in ${filePath}, but replace_all is false. Add more surrounding context to old_string so it matches exactly once, or set replace_all to true to replace every occurrence.\nString: ${preview(args.old_string)}`,
        isError: true,
      };
    }
    const after = before.split(target).join(replacement);
    await writeTextFile(filePath, after);
    const diff = diffReplacements(before, offsets, target.length, replacement, after);
    return {
      content:
        offsets.length === 1
          ? `The file ${filePath} has been updated successfully.`
          : `The file ${filePath} has been updated successfully: all ${offsets.length} occurrences were replaced.`,
      data: { path: filePath, ...diff, replacements: offsets.length, ...fullContents(before, after) },
    };
  },
});

async function create(filePath: string, content: string, created: boolean) {
  await writeTextFile(filePath, content);
  return {
    content: created
      ? `File created successfully at: ${filePath}`
      : `The file ${filePath} has been updated successfully.`,
    data: { path: filePath, ...diffCreation(content), replacements: 1, ...fullContents("", content) },
  };
}

/** Offsets of the non-overlapping occurrences, left to right (what `split` replaces). */
function findAll(text: string, needle: string): number[] {
  const offsets: number[] = [];
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + needle.length)) offsets.push(i);
  return offsets;
}

function toCrlf(text: string): string {
  return text.replace(/\r?\n/g, "\r\n");
}

function preview(text: string): string {
  return text.length > 500 ? `${text.slice(0, 500)}...` : text;
}
