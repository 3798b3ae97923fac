import { readdir, readFile, stat } from "node:fs/promises";
import { homedir } from "node:os";
import path from "node:path";
import type { PromptBlock } from "../engine/messages.js";
import { compareNames, IgnoreFilter, toPosix, walkFiles } from "../tools/ignore-walk.js";
import type { Editor } from "./editor.js";
import type { Key } from "./keys.js";
import type { Styles } from "./style.js";
import { truncate } from "./text-width.js";

/** The files listed for completion at most (a huge tree is cut, said in the popup). */
const MAX_CANDIDATES = 20_000;
/** Lines of a mentioned file put into the prompt at most (the Read tool's own default). */
const MAX_LINES = 2000;
/** Characters of one line at most, as the Read tool cuts them. */
const MAX_LINE_CHARS = 2000;
/** Entries of a mentioned folder listed at most. */
const MAX_ENTRIES = 1000;

/** `@path`, `@path#L10`, `@path#L10-20`, or `@"a path with spaces"`, at the start or after a space. */
const MENTION = /(^|\s)@(?:"([^"\n]+)"|([^\s"]+?))(?:#L(\d+)(?:-(\d+))?)?(?=$|\s)/g;

export type Mention = { path: string; from?: number; to?: number };

export function findMentions(text: string): Mention[] {
  const found: Mention[] = [];
  for (const match of text.matchAll(MENTION)) {
    const target = match[2] ?? match[3]!;
    const from = match[4] ? Number(match[4]) : undefined;
    const to = match[5] ? Number(match[5]) : from;
    found.push({ path: target, ...(from !== undefined ? { from, to: Math.max(from, to!) } : {}) });
  }
  return found;
}

/**
 * The prompt with its `@` mentions attached, as the reference does: the text stays as typed, and
 * each mentioned file follows it as if the Read tool had been called (`Called the Read tool with the
 * following input: {...}` then `Result of calling the Read tool:` and its numbered lines, only the
 * range asked for), a folder as if LS had (its entries, directories with a trailing `/`). A mention
 * of nothing that exists stays plain text. Undefined when the prompt mentions nothing.
 */
export async function expandMentions(
  text: string,
  cwd: string,
  /** Why reading a file is refused (a deny rule for Read), or undefined when it may be read. */
  refused: (file: string) => string | undefined = () => undefined,
  /** Told each mention that was refused. */
  onRefused: (file: string, why: string) => void = () => {},
): Promise<PromptBlock[] | undefined> {
  const attached: string[] = [];
  const seen = new Set<string>();
  for (const mention of findMentions(text)) {
    const absolute = path.resolve(cwd, mention.path.replace(/^~(?=\/)/, homedir()));
    const key = `${absolute}#${mention.from ?? ""}-${mention.to ?? ""}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const info = await stat(absolute).catch(() => undefined);
    const why = info ? refused(absolute) : undefined;
    if (why !== undefined) {
      onRefused(absolute, why);
      continue;
    }
    if (info?.isDirectory()) attached.push(await folderAttachment(absolute));
    else if (info?.isFile()) attached.push(await fileAttachment(absolute, mention));
  }
  if (attached.length === 0) return undefined;
  return [{ type: "text", text }, ...attached.map((one) => ({ type: "text" as const, text: one }))];
}

async function fileAttachment(file: string, mention: Mention): Promise<string> {
  const content = await readFile(file, "utf8");
  const lines = content.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  const start = Math.max(1, mention.from ?? 1);
  const end = Math.min(lines.length, mention.to ?? lines.length, start + MAX_LINES - 1);
  const input: Record<string, unknown> = { file_path: file };
  if (mention.from !== undefined) {
    input.offset = start;
    input.limit = end - start + 1;
  }
  const numbered = lines
    .slice(start - 1, end)
    .map(
      (line, i) =>
        `${String(start + i).padStart(6)}\t${line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}…` : line}`,
    );
  return `Called the Read tool with the following input: ${JSON.stringify(input)}\nResult of calling the Read tool:\n${numbered.join("\n")}`;
}

async function folderAttachment(folder: string): Promise<string> {
  const filter = await IgnoreFilter.create(folder);
  const entries = (await readdir(folder, { withFileTypes: true })).sort((a, b) =>
    compareNames(a.name, b.name),
  );
  const listed: string[] = [];
  for (const entry of entries) {
    if (listed.length >= MAX_ENTRIES) break;
    const isDir = entry.isDirectory();
    if (await filter.ignores(entry.name, isDir)) continue;
    listed.push(`- ${entry.name}${isDir ? "/" : ""}`);
  }
  return `Called the LS tool with the following input: ${JSON.stringify({ path: folder })}\nResult of calling the LS tool:\n- ${folder}/\n${listed.map((line) => `  ${line}`).join("\n")}`;
}

/**
 * The `@` completion popup: while the word at the caret starts with `@`, the workspace's files and
 * folders (what `.gitignore`, `.ignore` and `.rgignore` leave, never `.git` or `node_modules`)
 * matching what follows it fuzzily (its characters in order; a match in the file name, at the
 * start of a word or in one run ranks higher). ↑/↓ choose, Tab or Enter completes: a file ends the
 * mention with a space, a folder with `/` to go on typing inside it (Enter then sends).
 */
export class MentionMenu {
  private files: string[] | undefined;
  private listing: Promise<void> | undefined;
  matches: string[] = [];
  private picked = 0;
  private typed: string | undefined;
  private truncated = false;

  constructor(
    private readonly cwd: string,
    private readonly redraw: () => void,
  ) {}

  /** Follows the input: open while the caret ends a word starting with `@`. */
  update(editor: Editor): void {
    const word = mentionAtCaret(editor);
    if (word === undefined || word.includes("#")) {
      this.matches = [];
      this.typed = undefined;
      return;
    }
    if (word === this.typed && this.files !== undefined) return;
    this.typed = word;
    if (this.files === undefined) {
      this.listing ??= this.list().then(() => {
        this.typed = undefined;
        this.redraw();
      });
      this.matches = [];
      return;
    }
    this.matches = rank(this.files, word).slice(0, 50);
    this.picked = 0;
  }

  get open(): boolean {
    return this.matches.length > 0;
  }

  key(key: Key, editor: Editor): boolean {
    if (key.type === "up" || key.type === "down") {
      const step = key.type === "up" ? -1 : 1;
      this.picked = (this.picked + step + this.matches.length) % this.matches.length;
      return true;
    }
    if (key.type !== "tab" && key.type !== "enter") return false;
    const chosen = this.matches[this.picked];
    const word = mentionAtCaret(editor);
    if (chosen === undefined || word === undefined) return false;
    // Enter on a mention already complete sends the prompt.
    if (key.type === "enter" && chosen === word) return false;
    const line = editor.lines[editor.row]!;
    const start = editor.col - word.length - 1;
    const written = /\s/.test(chosen) ? `@"${chosen}"` : `@${chosen}`;
    const replacement = chosen.endsWith("/") ? written : `${written} `;
    editor.lines[editor.row] = line.slice(0, start) + replacement + line.slice(editor.col);
    editor.col = start + replacement.length;
    this.matches = [];
    this.typed = undefined;
    return true;
  }

  rows(styles: Styles, width: number, room: number): string[] {
    const shown = Math.max(1, room);
    const first = Math.max(0, Math.min(this.picked - shown + 1, this.matches.length - shown));
    const rows = this.matches.slice(first, first + shown).map((entry, i) => {
      const text = truncate(`  @${entry}`, width);
      return first + i === this.picked ? styles.inverse(text) : styles.dim(text);
    });
    if (this.truncated && rows.length < room)
      rows.push(styles.dim(truncate(`  (only the first ${MAX_CANDIDATES} files are offered)`, width)));
    return rows;
  }

  private async list(): Promise<void> {
    const files: string[] = [];
    const folders = new Set<string>();
    try {
      const filter = await IgnoreFilter.create(this.cwd);
      for await (const rel of walkFiles(this.cwd, filter)) {
        if (files.length >= MAX_CANDIDATES) {
          this.truncated = true;
          break;
        }
        files.push(rel);
        const parts = toPosix(rel).split("/");
        for (let i = 1; i < parts.length; i++) folders.add(`${parts.slice(0, i).join("/")}/`);
      }
    } catch {
      // An unreadable workspace offers nothing to complete; typing a path still works.
    }
    this.files = [...folders, ...files];
  }
}

/** The text after `@` of the word the caret ends, or undefined when that word is no mention. */
function mentionAtCaret(editor: Editor): string | undefined {
  const before = editor.lines[editor.row]!.slice(0, editor.col);
  const match = /(^|\s)@([^\s"]*)$/.exec(before);
  return match ? match[2] : undefined;
}

/** Paths whose characters include `query`'s in order, best first. */
export function rank(paths: readonly string[], query: string): string[] {
  const wanted = query.toLowerCase();
  const scored: { path: string; score: number }[] = [];
  for (const candidate of paths) {
    const score = fuzzyScore(candidate, wanted);
    if (score !== undefined) scored.push({ path: candidate, score });
  }
  return scored
    .sort((a, b) => b.score - a.score || a.path.length - b.path.length || compareNames(a.path, b.path))
    .map((one) => one.path);
}

function fuzzyScore(candidate: string, wanted: string): number | undefined {
  if (wanted === "") return -candidate.split("/").length;
  const lower = candidate.toLowerCase();
  const nameStart = lower.replace(/\/$/, "").lastIndexOf("/") + 1;
  let score = 0;
  let at = -1;
  for (const char of wanted) {
    const next = lower.indexOf(char, at + 1);
    if (next === -1) return undefined;
    if (next === at + 1) score += 3; // a run
    if (next === 0 || "/._-".includes(lower[next - 1]!)) score += 2; // the start of a word
    if (next >= nameStart) score += 1; // in the file name
    at = next;
  }
  if (lower.includes(wanted)) score += 5;
  return score;
}
