import { chmodSync, existsSync, mkdirSync, readdirSync, realpathSync, statSync } from "node:fs";
import path from "node:path";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import type { ConversationMessage } from "../engine/messages.js";
import { resolveCairnHome } from "../permissions/home.js";
import { compareCodeUnits } from "../util/compare.js";
import { readdir, stat } from "../util/fs-async.js";
import { randomUuid } from "../util/random-id.js";
import {
  type LoadedTranscript,
  loadTranscript,
  summarizeTranscript,
  type TranscriptWarning,
} from "./reader.js";
import { TRANSCRIPT_VERSION } from "./records.js";
import { DIR_MODE, SessionWriter } from "./writer.js";

/**
 * Where transcripts live: `$CAIRN_HOME/sessions/<workspace-key>/<session-id>.jsonl`, one file per
 * session, grouped by working directory. The workspace key is readable and collision-free: the tail
 * of the absolute path with unsafe characters replaced, plus a hash of the full path
 * (`/work/app` → `work-app-3f2a9c1d0b7e`).
 */

export const SESSIONS_DIR = "sessions";
export const TRANSCRIPT_EXTENSION = ".jsonl";
/** Session ids: UUIDs or other simple names; never a path. */
const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

export class SessionNotFoundError extends Error {
  constructor(
    readonly sessionId: string,
    where: string,
    reason = "no transcript",
  ) {
    // The reference CLI's consumers match "session <id> not found".
    super(`session ${sessionId} not found (${reason} in ${where})`);
    this.name = "SessionNotFoundError";
  }
}

export function isValidSessionId(id: string): boolean {
  return SESSION_ID.test(id) && !id.includes("..");
}

/** The directory name for a working directory. */
export function workspaceKey(cwd: string): string {
  const absolute = canonicalCwd(cwd);
  const readable =
    absolute
      .replace(/[^A-Za-z0-9._-]+/g, "-")
      .replace(/^[-.]+|-+$/g, "")
      .slice(-60)
      .replace(/^[-.]+/, "") || "root";
  // SHA-256 (the key of every existing transcript directory) without node:crypto (src/util/random-id.ts says why).
  const hash = bytesToHex(sha256(Buffer.from(absolute, "utf8"))).slice(0, 12);
  return `${readable}-${hash}`;
}

function canonicalCwd(cwd: string): string {
  const absolute = path.resolve(cwd);
  try {
    return realpathSync.native(absolute);
  } catch {
    return absolute;
  }
}

export type SessionSummary = {
  sessionId: string;
  cwd: string;
  path: string;
  /** ISO time the session was created. */
  createdAt: string;
  /** ISO time of the last write (file modification time). */
  updatedAt: string;
  /** Transcript size in bytes. */
  size: number;
  firstPrompt?: string;
  /** User prompts (runs). */
  prompts: number;
  /** Model turns (assistant messages). */
  turns: number;
  forkedFrom?: string;
};

export type LoadedSession = LoadedTranscript & { sessionId: string; path: string };

export type SessionStoreOptions = {
  /** Default: `resolveCairnHome(env)`. */
  cairnHome?: string;
  env?: NodeJS.ProcessEnv;
};

export class SessionStore {
  /** `$CAIRN_HOME/sessions`. */
  readonly root: string;

  constructor(options: SessionStoreOptions = {}) {
    const home = options.cairnHome ?? resolveCairnHome(options.env ?? process.env);
    this.root = path.join(home, SESSIONS_DIR);
  }

  dirFor(cwd: string): string {
    return path.join(this.root, workspaceKey(cwd));
  }

  /** Starts a new session in `cwd` (fresh UUID unless `id` is given; an existing id is an error). */
  create(cwd: string, id: string = randomUuid(), extra: { forkedFrom?: string } = {}): SessionWriter {
    if (!isValidSessionId(id)) throw new Error(`"${id}" is not a valid session id`);
    const dir = this.ensureDir(cwd);
    const createdAt = new Date().toISOString();
    return SessionWriter.create(path.join(dir, `${id}${TRANSCRIPT_EXTENSION}`), {
      type: "header",
      version: TRANSCRIPT_VERSION,
      sessionId: id,
      cwd: canonicalCwd(cwd),
      createdAt,
      ...(extra.forkedFrom ? { forkedFrom: { sessionId: extra.forkedFrom, forkedAt: createdAt } } : {}),
    });
  }

  /** Opens an existing session for appending (resume keeps the id). Unknown id: `SessionNotFoundError`. */
  open(id: string, cwd?: string): SessionWriter {
    return SessionWriter.openFile(this.find(id, cwd), id);
  }

  /** The transcript path of a session. Looks in `cwd`'s directory first, then everywhere. */
  find(id: string, cwd?: string): string {
    if (!isValidSessionId(id))
      throw new SessionNotFoundError(id, this.root, "not a valid session id, so none");
    const name = `${id}${TRANSCRIPT_EXTENSION}`;
    if (cwd) {
      const candidate = path.join(this.dirFor(cwd), name);
      if (existsSync(candidate)) return candidate;
    }
    let dirs: string[] = [];
    try {
      dirs = readdirSync(this.root);
    } catch {}
    for (const dir of dirs) {
      const candidate = path.join(this.root, dir, name);
      if (existsSync(candidate)) return candidate;
    }
    throw new SessionNotFoundError(id, this.root);
  }

  /** Loads a session's history (streaming, linear). */
  async load(id: string, cwd?: string): Promise<LoadedSession> {
    const file = this.find(id, cwd);
    const loaded = await loadTranscript(file);
    return { ...loaded, sessionId: id, path: file };
  }

  /** Sessions of `cwd`, most recently written first. Unreadable files are skipped. */
  async list(cwd: string): Promise<SessionSummary[]> {
    return sortByRecency(await this.listDir(this.dirFor(cwd)));
  }

  /** Sessions of every working directory, most recently written first. */
  async listAll(): Promise<SessionSummary[]> {
    let dirs: string[] = [];
    try {
      dirs = await readdir(this.root);
    } catch {}
    const lists = await Promise.all(dirs.map((dir) => this.listDir(path.join(this.root, dir))));
    return sortByRecency(lists.flat());
  }

  private async listDir(dir: string): Promise<SessionSummary[]> {
    let names: string[];
    try {
      names = (await readdir(dir)).filter(
        (name) => name.endsWith(TRANSCRIPT_EXTENSION) && !name.startsWith("."),
      );
    } catch {
      return [];
    }
    const summaries = await Promise.all(
      names.map(async (name): Promise<SessionSummary | undefined> => {
        const file = path.join(dir, name);
        const [summary, info] = await Promise.all([
          summarizeTranscript(file),
          stat(file).catch(() => undefined),
        ]);
        if (!summary || !info) return undefined;
        return {
          sessionId: summary.header.sessionId,
          cwd: summary.header.cwd,
          path: file,
          createdAt: summary.header.createdAt,
          updatedAt: info.mtime.toISOString(),
          size: info.size,
          ...(summary.firstPrompt !== undefined ? { firstPrompt: summary.firstPrompt } : {}),
          prompts: summary.prompts,
          turns: summary.turns,
          ...(summary.header.forkedFrom ? { forkedFrom: summary.header.forkedFrom.sessionId } : {}),
        };
      }),
    );
    return summaries.filter((summary): summary is SessionSummary => summary !== undefined);
  }

  /** The most recently written session of `cwd` (`--continue`, `--resume` without an id). */
  async latest(cwd: string): Promise<SessionSummary | undefined> {
    return (await this.list(cwd))[0];
  }

  /**
   * Copies a session's history into a new session (same working directory, new id, `forkedFrom` in
   * its header). The original is not touched.
   */
  async fork(
    id: string,
    /** `keep`: what of the history to copy (it may throw: then no fork is made). */
    options: {
      cwd?: string;
      newId?: string;
      keep?: (history: ConversationMessage[]) => ConversationMessage[];
    } = {},
  ): Promise<{
    sessionId: string;
    path: string;
    history: ConversationMessage[];
    warnings: TranscriptWarning[];
  }> {
    const loaded = await this.load(id, options.cwd);
    const history = options.keep ? options.keep(loaded.history) : loaded.history;
    const writer = this.create(loaded.header.cwd, options.newId, { forkedFrom: id });
    try {
      for (const message of history) writer.appendMessage(message);
    } finally {
      writer.close();
    }
    return {
      sessionId: writer.sessionId,
      path: writer.path,
      history,
      warnings: loaded.warnings,
    };
  }

  /**
   * Everything `--resume` needs: the loaded history and a writer appending to the same session, or
   * (with `fork`) to a new one.
   */
  async resume(
    id: string,
    options: { fork?: boolean; cwd?: string } = {},
  ): Promise<{
    writer: SessionWriter;
    history: ConversationMessage[];
    warnings: TranscriptWarning[];
    forkedFrom?: string;
  }> {
    if (options.fork) {
      const forked = await this.fork(id, options.cwd ? { cwd: options.cwd } : {});
      const writer = this.open(forked.sessionId);
      return { writer, history: forked.history, warnings: forked.warnings, forkedFrom: id };
    }
    const loaded = await this.load(id, options.cwd);
    const writer = SessionWriter.openFile(loaded.path, id);
    const warnings = [
      ...loaded.warnings,
      ...writer.warnings.map((message) => ({ kind: "repaired" as const, message })),
    ];
    return { writer, history: loaded.history, warnings };
  }

  private ensureDir(cwd: string): string {
    const dir = this.dirFor(cwd);
    for (const d of [path.dirname(this.root), this.root, dir]) {
      if (existsSync(d)) continue;
      mkdirSync(d, { recursive: true, mode: DIR_MODE });
      chmodSync(d, DIR_MODE);
    }
    if ((statSync(dir).mode & 0o077) !== 0) chmodSync(dir, DIR_MODE);
    return dir;
  }
}

function sortByRecency(summaries: SessionSummary[]): SessionSummary[] {
  return summaries.sort(
    (a, b) => compareCodeUnits(b.updatedAt, a.updatedAt) || compareCodeUnits(b.createdAt, a.createdAt),
  );
}
