import { appendFile, mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { workspaceKey } from "../sessions/jsonl-layout.js";

/** Prompts kept per workspace; the file is cut back to this many when it grows to twice as many. */
export const HISTORY_CAP = 500;

/** `$CAIRN_HOME/history/<workspace-key>.jsonl`: one `{"text": …}` line per prompt sent, oldest first. */
export function historyFile(cairnHome: string, cwd: string): string {
  return path.join(cairnHome, "history", `${workspaceKey(cwd)}.jsonl`);
}

/**
 * The prompts sent in this workspace, across runs, for ↑/↓ and Ctrl+R. The text being typed is kept
 * while browsing and comes back below the newest entry. Each prompt is appended to the file as it is
 * sent (two cairns in one workspace both keep theirs); a file that cannot be read or written only
 * costs the history, said once on the screen by the caller.
 */
export class PromptHistory {
  private entries: string[] = [];
  private index = 0;
  private draft = "";
  private lines = 0;
  private loading: Promise<void> | undefined;

  constructor(private readonly file: string | undefined) {}

  /** Reads the earlier runs' prompts (before this run's, which stay the newest); once. */
  load(): Promise<void> {
    this.loading ??= this.read();
    return this.loading;
  }

  private async read(): Promise<void> {
    if (!this.file) return;
    let content: string;
    try {
      content = await readFile(this.file, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
      throw error;
    }
    const earlier: string[] = [];
    for (const line of content.split("\n")) {
      if (line.trim() === "") continue;
      this.lines += 1;
      try {
        const text = (JSON.parse(line) as { text?: unknown }).text;
        if (typeof text === "string" && text !== "" && earlier[earlier.length - 1] !== text)
          earlier.push(text);
      } catch {
        // A line cut short by a crash: the others are still good.
      }
    }
    const atEnd = this.index === this.entries.length;
    this.entries = [...earlier.slice(-HISTORY_CAP), ...this.entries];
    this.index = atEnd ? this.entries.length : this.index + Math.min(earlier.length, HISTORY_CAP);
  }

  /** A prompt was sent: newest entry, written to the file. */
  async add(text: string): Promise<void> {
    if (text.trim() === "") return;
    if (this.entries[this.entries.length - 1] !== text) this.entries.push(text);
    this.index = this.entries.length;
    if (!this.file) return;
    await mkdir(path.dirname(this.file), { recursive: true, mode: 0o700 });
    await appendFile(this.file, `${JSON.stringify({ text })}\n`, { mode: 0o600 });
    this.lines += 1;
    if (this.lines >= HISTORY_CAP * 2) {
      const kept = this.entries.slice(-HISTORY_CAP);
      await writeFile(this.file, kept.map((entry) => `${JSON.stringify({ text: entry })}\n`).join(""));
      this.lines = kept.length;
    }
  }

  /** The older entry, or undefined at the oldest; `current` is kept as the draft. */
  older(current: string): string | undefined {
    if (this.index === 0) return undefined;
    if (this.index === this.entries.length) this.draft = current;
    this.index -= 1;
    return this.entries[this.index];
  }

  newer(): string | undefined {
    if (this.index >= this.entries.length) return undefined;
    this.index += 1;
    return this.index === this.entries.length ? this.draft : this.entries[this.index];
  }

  /**
   * The newest entry containing `query` (case-insensitive) older than entry `before` (default: all
   * of them), and its position, for Ctrl+R.
   */
  search(query: string, before = this.entries.length): { text: string; at: number } | undefined {
    const wanted = query.toLowerCase();
    for (let at = Math.min(before, this.entries.length) - 1; at >= 0; at--) {
      const text = this.entries[at]!;
      if (text.toLowerCase().includes(wanted)) return { text, at };
    }
    return undefined;
  }
}
