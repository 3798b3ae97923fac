import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { mkdir, readFile, rm, writeFile } from "../util/fs-async.js";
import type { FileCheckpointStore } from "./transcript-store.js";
import { DIR_MODE, FILE_MODE } from "./writer.js";

/**
 * File checkpoints of one session (SDK `enableFileCheckpointing`, `Query.rewindFiles`).
 *
 * Each user message opens a checkpoint. Before a file-changing tool (one that declares a `write`
 * path: Write, Edit) first touches a file during that message's turn, the file's content (or its
 * absence) is saved in the checkpoint. Rewinding to a message puts every file changed since then
 * back as the earliest checkpoint at or after that message saved it: the state the files were in
 * when the message was sent. Shell commands' changes are not seen (they declare no paths).
 *
 * On disk, in a directory the store names (the JSONL store's is `<id>.checkpoints/` beside the
 * transcript): `index.json` (the checkpoints, in order, each a map of absolute path → blob hash or
 * null for "did not exist") and `blobs/<sha256>` (contents, stored once however often they are
 * saved). Without a transcript the checkpoints live in memory.
 */

/** What `rewindFiles` answers (the convention's `RewindFilesResult`). */
export type RewindFilesResult = {
  canRewind: boolean;
  error?: string;
  /** Absolute paths of the files that were (with `dryRun`: would be) restored or removed. */
  filesChanged?: string[];
  /** Lines the restore adds back, over all files. */
  insertions?: number;
  /** Lines the restore takes away, over all files. */
  deletions?: number;
};

type Checkpoint = { userMessageId: string; files: Record<string, string | null> };
type Index = { version: 1; checkpoints: Checkpoint[] };

/** The checkpoints of a session that keeps no transcript: in this process's memory. */
export function memoryFileCheckpoints(): FileCheckpointStore {
  return new FileCheckpoints(undefined);
}

/** The JSONL store's checkpoints (`TranscriptStore.fileCheckpoints`), or in memory without a directory. */
export class FileCheckpoints implements FileCheckpointStore {
  private readonly index: Index;
  private readonly memory = new Map<string, Buffer>();
  private current: Checkpoint | undefined;
  /** Why the index could not be written: every later change is refused with it (never an unrecorded change). */
  private broken: Error | undefined;

  /** `dir`: where the checkpoints are kept (undefined: in memory). An existing index is read back (a resumed session). */
  constructor(private readonly dir: string | undefined) {
    this.index = dir ? readIndex(dir) : { version: 1, checkpoints: [] };
  }

  /** A user message's turn starts: later changes are saved under its id. */
  begin(userMessageId: string): void {
    let existing: Checkpoint | undefined;
    for (const checkpoint of this.index.checkpoints)
      if (checkpoint.userMessageId === userMessageId) {
        existing = checkpoint;
        break;
      }
    this.current = existing ?? { userMessageId, files: {} };
    if (!existing) {
      this.index.checkpoints.push(this.current);
      this.save();
    }
  }

  /** Called before a tool changes `file` (absolute): its content is saved once per checkpoint. */
  async beforeChange(file: string): Promise<void> {
    if (this.broken) throw this.broken;
    const checkpoint = this.current;
    if (!checkpoint || file in checkpoint.files) return;
    const content = await readFile(file).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return null;
      throw error;
    });
    checkpoint.files[file] = content === null ? null : await this.putBlob(content);
    this.save();
    if (this.broken) throw this.broken;
  }

  /** Puts the files back as they were when `userMessageId` was sent; `dryRun` only reports. */
  async rewind(userMessageId: string, options: { dryRun?: boolean } = {}): Promise<RewindFilesResult> {
    const at = this.index.checkpoints.findIndex((checkpoint) => checkpoint.userMessageId === userMessageId);
    if (at === -1) {
      return {
        canRewind: false,
        error: `No file checkpoint for user message ${userMessageId}: it was not sent in this session with file checkpointing on.`,
      };
    }
    const targets = new Map<string, string | null>();
    for (const checkpoint of this.index.checkpoints.slice(at)) {
      for (const [file, blob] of Object.entries(checkpoint.files))
        if (!targets.has(file)) targets.set(file, blob);
    }
    const filesChanged: string[] = [];
    let insertions = 0;
    let deletions = 0;
    for (const [file, blob] of targets) {
      const now = await readFile(file).catch(() => null);
      const then = blob === null ? null : await this.getBlob(blob);
      if (now === null ? then === null : then !== null && now.equals(then)) continue;
      filesChanged.push(file);
      const counts = lineChanges(now?.toString("utf8") ?? "", then?.toString("utf8") ?? "");
      insertions += counts.insertions;
      deletions += counts.deletions;
      if (options.dryRun) continue;
      if (then === null) await rm(file, { force: true });
      else {
        await mkdir(path.dirname(file), { recursive: true });
        await writeFile(file, then);
      }
    }
    return { canRewind: true, filesChanged, insertions, deletions };
  }

  private async putBlob(content: Buffer): Promise<string> {
    // node:crypto is loaded here, when a file is first saved, not by every run that could save one
    // (its load costs the CLI's start-up a few milliseconds; docs/performance.md).
    const crypto = createRequire(import.meta.url)("node:crypto") as typeof import("node:crypto");
    const hash = crypto.createHash("sha256").update(content).digest("hex");
    if (!this.dir) this.memory.set(hash, content);
    else {
      const file = path.join(this.dir, "blobs", hash);
      if (!existsSync(file)) {
        await mkdir(path.dirname(file), { recursive: true, mode: DIR_MODE });
        await writeFile(file, content, { mode: FILE_MODE });
      }
    }
    return hash;
  }

  private async getBlob(hash: string): Promise<Buffer> {
    if (!this.dir) return this.memory.get(hash)!;
    return readFile(path.join(this.dir, "blobs", hash));
  }

  /** Writes the index whole (small: paths and hashes), through a rename so a crash never leaves half of it. */
  private save(): void {
    if (!this.dir) return;
    try {
      mkdirSync(this.dir, { recursive: true, mode: DIR_MODE });
      const file = path.join(this.dir, "index.json");
      writeFileSync(`${file}.tmp`, JSON.stringify(this.index), { mode: FILE_MODE });
      renameSync(`${file}.tmp`, file);
    } catch (error) {
      this.broken = error as Error;
    }
  }
}

function readIndex(dir: string): Index {
  try {
    const value = JSON.parse(readFileSync(path.join(dir, "index.json"), "utf8")) as Index;
    if (value.version === 1 && Array.isArray(value.checkpoints)) return value;
  } catch {}
  return { version: 1, checkpoints: [] };
}

/** Lines added and removed going from `from` to `to`, counted as a multiset difference (moves are free). */
function lineChanges(from: string, to: string): { insertions: number; deletions: number } {
  const count = new Map<string, number>();
  const lines = (text: string) => (text === "" ? [] : text.replace(/\n$/, "").split("\n"));
  for (const line of lines(from)) count.set(line, (count.get(line) ?? 0) + 1);
  let insertions = 0;
  for (const line of lines(to)) {
    const left = count.get(line) ?? 0;
    if (left > 0) count.set(line, left - 1);
    else insertions += 1;
  }
  let deletions = 0;
  for (const left of count.values()) deletions += left;
  return { insertions, deletions };
}
