import path from "node:path";
import { compareCodeUnits } from "../util/compare.js";
import { readdir, readFile } from "../util/fs-async.js";
import { mayExist } from "../util/may-exist.js";

/** Folders deeper than this under a commands directory are not searched (a loop guard, too). */
const MAX_DEPTH = 4;
/** A prompt file larger than this is refused (a prompt, not a data file). */
export const MAX_PROMPT_FILE_CHARS = 200_000;

/** The `*.md` files under `dir`, relative paths, sorted; hidden entries skipped; `[]` when `dir` is absent. */
export async function markdownFilesUnder(dir: string, depth = 0): Promise<string[]> {
  if (!mayExist(dir)) return [];
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const out: string[] = [];
  for (const entry of entries.sort((a, b) => compareCodeUnits(a.name, b.name))) {
    if (entry.name.startsWith(".")) continue;
    if (entry.isDirectory() && depth < MAX_DEPTH) {
      for (const inner of await markdownFilesUnder(path.join(dir, entry.name), depth + 1))
        out.push(path.join(entry.name, inner));
    } else if ((entry.isFile() || entry.isSymbolicLink()) && entry.name.endsWith(".md")) {
      out.push(entry.name);
    }
  }
  return out;
}

/** The file's text, or a reason it cannot be used as a prompt file. */
export async function readPromptFile(file: string): Promise<{ text: string } | { problem: string }> {
  try {
    const text = await readFile(file, "utf8");
    if (text.length > MAX_PROMPT_FILE_CHARS)
      return { problem: `larger than ${MAX_PROMPT_FILE_CHARS} characters, not loaded` };
    return { text };
  } catch (error) {
    return { problem: `cannot be read (${(error as Error).message})` };
  }
}

/** The first non-empty line of a Markdown body without heading marks, cut to 100 characters. */
export function firstLine(body: string): string {
  const line = body
    .split(/\r?\n/)
    .map((text) => text.replace(/^#+\s*/, "").trim())
    .find(Boolean);
  if (!line) return "";
  return line.length > 100 ? `${line.slice(0, 99)}…` : line;
}

/** Names a command or skill may have: what can follow a `/` and be typed without quoting. */
export const COMMAND_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;
