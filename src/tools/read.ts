import { StringDecoder } from "node:string_decoder";
import * as z from "zod";
import { type FileHandle, open, readFile, stat } from "../util/fs-async.js";
import { hasBinaryExtension, sniffIsBinary } from "./binary.js";
import { BUILTIN_JSON_SCHEMAS } from "./builtin-json-schemas.js";
import { defineTool } from "./define.js";
import { readNotebook } from "./notebook-read.js";
import { resolveToolPath } from "./paths.js";
import { isMediaFile, readMedia } from "./read-media.js";

export const READ_DEFAULT_LIMIT = 2000;
export const READ_MAX_LINE_CHARS = 2000;
/** What one Read may return (~25k tokens): past it the range ends early, with a note, rather than a cut in the middle. */
export const READ_CHAR_BUDGET = 100_000;

const input = () =>
  z.object({
    file_path: z
      .string()
      .min(1)
      .describe("The file to read: an absolute path, or relative to the working directory."),
    offset: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe("The line number to start reading from (1-based). Only for files too large to read at once."),
    limit: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe(`How many lines to read (default ${READ_DEFAULT_LIMIT}).`),
  });

export const readTool = defineTool({
  name: "Read",
  effects: {
    kind: "read",
    readOnly: true,
    network: false,
    paths: (args) => [{ path: args.file_path, access: "read" }],
  },
  payload: "read",
  display: (args, cwd) => ({
    title: `Read ${args.file_path}${args.offset !== undefined ? ` (from line ${args.offset})` : ""}`,
    kind: "read",
    locations: [
      {
        path: resolveToolPath(cwd, args.file_path),
        ...(args.offset !== undefined ? { line: args.offset } : {}),
      },
    ],
  }),
  description:
    "Reads a text file and returns its lines numbered like `cat -n` (line number, tab, text). " +
    "The path may be absolute or relative to the working directory. " +
    `Returns up to ${READ_DEFAULT_LIMIT} lines from the start by default; use offset (1-based line) and limit for other parts of large files. ` +
    `Lines longer than ${READ_MAX_LINE_CHARS} characters are cut. ` +
    "Images (PNG, JPEG, GIF, WebP) and PDFs are shown to you as they are, when the model takes them. " +
    'Jupyter notebooks (.ipynb) are shown as their cells (<cell id="…">, the id NotebookEdit takes) with their text outputs. ' +
    "Other binary files are refused; use LS for directories.",
  input,
  jsonSchema: BUILTIN_JSON_SCHEMAS.Read,
  outputLimit: READ_CHAR_BUDGET + 10_000,
  async run(args, ctx) {
    const filePath = resolveToolPath(ctx.cwd, args.file_path);
    const info = await stat(filePath).catch(() => undefined);
    if (!info) return { content: `File does not exist: ${filePath}`, isError: true };
    if (info.isDirectory()) {
      return {
        content: `${filePath} is a directory, not a file. Use the LS tool to list it.`,
        isError: true,
      };
    }
    if (!info.isFile()) {
      return {
        content: `${filePath} is not a regular file (a device, socket or pipe); Read shows files only.`,
        isError: true,
      };
    }
    if (isMediaFile(filePath)) return readMedia(filePath, info.size, ctx);
    if (filePath.toLowerCase().endsWith(".ipynb")) {
      const text = await readFile(filePath, "utf8");
      return readNotebook(filePath, text, info.size, {
        offset: args.offset,
        limit: args.limit ?? READ_DEFAULT_LIMIT,
      });
    }
    if (hasBinaryExtension(filePath)) {
      return {
        content: `Cannot read ${filePath}: it is a binary file, and Read shows text only.`,
        isError: true,
      };
    }
    const startLine = Math.max(1, args.offset ?? 1);
    const limit = args.limit ?? READ_DEFAULT_LIMIT;
    const handle = await open(filePath, "r");
    let range: LineRange;
    try {
      if (await sniffIsBinary(handle)) {
        return {
          content: `Cannot read ${filePath}: it is a binary file (it contains NUL bytes), and Read shows text only.`,
          isError: true,
        };
      }
      range = await readLineRange(handle, startLine, limit, ctx.signal);
    } finally {
      await handle.close();
    }
    return present(filePath, startLine, range, info.size);
  },
});

type LineRange = {
  lines: { text: string; length: number }[];
  totalLines: number;
  totalChars: number;
};

function present(filePath: string, startLine: number, range: LineRange, fileSize: number) {
  const { lines, totalLines, totalChars } = range;
  const endLine = startLine + lines.length - 1;
  const anyCut = lines.some((line) => line.length > line.text.length);
  const exceededLimit = anyCut || endLine < totalLines;
  const data = {
    path: filePath,
    content: lines.map((line) => line.text).join("\n"),
    isEmpty: totalChars === 0,
    exceededLimit,
    totalLines,
    totalChars,
    fileSize,
    startLine,
    endLine: Math.max(endLine, startLine - 1),
  };
  if (totalChars === 0) return { content: `The file ${filePath} exists but is empty.`, data };
  if (lines.length === 0) {
    return {
      content: `The file ${filePath} has ${totalLines} lines, fewer than the offset ${startLine}. Use a smaller offset.`,
      data,
    };
  }
  let content = lines
    .map((line, i) => {
      const cut = line.length > line.text.length ? `... [line cut: ${line.length} characters in total]` : "";
      return `${String(startLine + i).padStart(6)}\t${line.text}${cut}`;
    })
    .join("\n");
  if (startLine > 1 || endLine < totalLines) {
    content += `\n\n[File has ${totalLines} lines; showing lines ${startLine}-${endLine}. Use offset/limit to read more.]`;
  }
  return { content, data };
}

/** The size of each read (a read stream's default). */
const READ_CHUNK_BYTES = 64 * 1024;

/**
 * Reads the file once, chunk by chunk: keeps the requested lines (each cut at the line limit) and
 * counts the rest, so a huge file or a huge single line costs bounded memory.
 */
async function readLineRange(
  handle: FileHandle,
  startLine: number,
  limit: number,
  signal: AbortSignal,
): Promise<LineRange> {
  const decoder = new StringDecoder("utf8");
  const lines: LineRange["lines"] = [];
  let lineNo = 1;
  let partial = "";
  let partialLength = 0;
  let lastChar = "";
  let totalChars = 0;
  let budget = READ_CHAR_BUDGET;
  let budgetHit = false;

  const wanted = () => !budgetHit && lineNo >= startLine && lineNo < startLine + limit;
  const append = (segment: string) => {
    if (!segment) return;
    partialLength += segment.length;
    lastChar = segment[segment.length - 1]!;
    if (wanted() && partial.length < READ_MAX_LINE_CHARS + 1) {
      partial += segment.slice(0, READ_MAX_LINE_CHARS + 1 - partial.length);
    }
  };
  const finishLine = () => {
    if (wanted()) {
      // A trailing CR belongs to the line ending (CRLF files), not to the text.
      const length = partialLength - (lastChar === "\r" ? 1 : 0);
      const text = partial.slice(0, Math.min(length, READ_MAX_LINE_CHARS));
      const cost = text.length + 8;
      if (lines.length > 0 && cost > budget) budgetHit = true;
      else {
        budget -= cost;
        lines.push({ text, length });
      }
    }
    lineNo += 1;
    partial = "";
    partialLength = 0;
    lastChar = "";
  };
  const consume = (text: string) => {
    totalChars += text.length;
    let pos = 0;
    for (let nl = text.indexOf("\n", pos); nl !== -1; nl = text.indexOf("\n", pos)) {
      append(text.slice(pos, nl));
      finishLine();
      pos = nl + 1;
    }
    append(text.slice(pos));
  };

  // Plain reads into one buffer rather than a read stream: the stream's machinery (its module, the
  // async iterator, its events) is cold code at a run's first Read, about 1 ms for a small file.
  const buffer = Buffer.allocUnsafe(READ_CHUNK_BYTES);
  for (let position = 0; !signal.aborted; ) {
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
    if (bytesRead === 0) break;
    position += bytesRead;
    // The decoder keeps its own copy of a character cut at the chunk's end, so the buffer is reused.
    consume(decoder.write(buffer.subarray(0, bytesRead)));
  }
  consume(decoder.end());
  if (partialLength > 0) finishLine();
  return { lines, totalLines: lineNo - 1, totalChars };
}
