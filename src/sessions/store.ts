import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { resolveCairnHome } from "../permissions/home.js";
import { compareCodeUnits } from "../util/compare.js";
import { readdir, stat } from "../util/fs-async.js";
import { randomUuid } from "../util/random-id.js";
import { FileCheckpoints } from "./checkpoints.js";
import {
  canonicalCwd,
  checkpointsDir,
  metaPath,
  SESSIONS_DIR,
  subagentTranscriptPath,
  TRANSCRIPT_EXTENSION,
  workspaceKey,
} from "./jsonl-layout.js";
import { type LoadedTranscript, loadTranscript, summarizeTranscript } from "./reader.js";
import { TRANSCRIPT_VERSION } from "./records.js";
import { subagentIds } from "./subagents.js";
import type {
  ForkedSession,
  ForkOptions,
  LoadedSession,
  SessionMeta,
  SessionSummary,
  TranscriptStore,
} from "./transcript-store.js";
import { DIR_MODE, FILE_MODE, SessionWriter } from "./writer.js";

export { SESSIONS_DIR, TRANSCRIPT_EXTENSION, workspaceKey } from "./jsonl-layout.js";

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

/** Where the files go: `cairnHome`, else `resolveCairnHome(env)`. */
export type JsonlTranscriptStoreOptions = { cairnHome: string } | { env: NodeJS.ProcessEnv };

/**
 * The transcript store of today: append-only JSONL files under `$CAIRN_HOME/sessions/<workspace-key>/`
 * (jsonl-layout.ts), written by `SessionWriter`. A location is a file's path.
 */
export class JsonlTranscriptStore implements TranscriptStore {
  /** `$CAIRN_HOME/sessions`. */
  readonly root: string;

  constructor(options: JsonlTranscriptStoreOptions) {
    const home = "cairnHome" in options ? options.cairnHome : resolveCairnHome(options.env);
    this.root = path.join(home, SESSIONS_DIR);
  }

  dirFor(cwd: string): string {
    return path.join(this.root, workspaceKey(cwd));
  }

  async create(
    cwd: string,
    id: string = randomUuid(),
    extra: { forkedFrom?: string } = {},
  ): Promise<SessionWriter> {
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

  async open(id: string, cwd?: string): Promise<SessionWriter> {
    return SessionWriter.openFile(this.findPath(id, cwd), id);
  }

  async exists(id: string, cwd: string): Promise<boolean> {
    return existsSync(this.locate(id, cwd));
  }

  async find(id: string, cwd?: string): Promise<string> {
    return this.findPath(id, cwd);
  }

  /** The transcript path of a session. Looks in `cwd`'s directory first, then everywhere. */
  private findPath(id: string, cwd?: string): string {
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
    const file = this.findPath(id, cwd);
    const loaded = await loadTranscript(file);
    return { ...loaded, sessionId: id, location: file };
  }

  async list(cwd: string): Promise<SessionSummary[]> {
    return sortByRecency(await this.listDir(this.dirFor(cwd)));
  }

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
          location: file,
          createdAt: summary.header.createdAt,
          updatedAt: info.mtime.toISOString(),
          size: info.size,
          ...(summary.firstPrompt !== undefined ? { firstPrompt: summary.firstPrompt } : {}),
          prompts: summary.prompts,
          turns: summary.turns,
          ...(summary.header.forkedFrom ? { forkedFrom: summary.header.forkedFrom.sessionId } : {}),
          meta: readMeta(file),
        };
      }),
    );
    return summaries.filter((summary): summary is SessionSummary => summary !== undefined);
  }

  async latest(cwd: string): Promise<SessionSummary | undefined> {
    return (await this.list(cwd))[0];
  }

  async fork(id: string, options: ForkOptions = {}): Promise<ForkedSession> {
    const loaded = await this.load(id, options.cwd);
    const history = options.keep ? options.keep(loaded.history) : loaded.history;
    const writer = await this.create(loaded.header.cwd, options.newId, { forkedFrom: id });
    try {
      for (const message of history) writer.appendMessage(message);
    } finally {
      writer.close();
    }
    return { sessionId: writer.sessionId, location: writer.path, history, warnings: loaded.warnings };
  }

  /** The path a session of `cwd` is (or would be) written to; no lookup. */
  locate(id: string, cwd: string): string {
    return path.join(this.dirFor(cwd), `${id}${TRANSCRIPT_EXTENSION}`);
  }

  locateSubagent(id: string, cwd: string, agentId: string): string {
    return subagentTranscriptPath(this.locate(id, cwd), agentId);
  }

  async subagents(id: string, cwd?: string): Promise<string[]> {
    return subagentIds(this.findPath(id, cwd));
  }

  async loadSubagent(id: string, agentId: string, cwd?: string): Promise<LoadedTranscript | undefined> {
    const transcript = this.findPath(id, cwd);
    if (!(await subagentIds(transcript)).includes(agentId)) return undefined;
    return loadTranscript(subagentTranscriptPath(transcript, agentId));
  }

  async updateMeta(id: string, cwd: string | undefined, change: SessionMeta): Promise<void> {
    const transcript = this.findPath(id, cwd);
    const file = metaPath(transcript);
    const meta: SessionMeta = { ...readMeta(transcript), ...change };
    const temporary = `${file}.${process.pid}.tmp`;
    writeFileSync(temporary, `${JSON.stringify(meta)}\n`, { mode: FILE_MODE });
    renameSync(temporary, file);
  }

  async delete(id: string, cwd?: string): Promise<void> {
    const file = this.findPath(id, cwd);
    rmSync(file);
    rmSync(metaPath(file), { force: true });
  }

  fileCheckpoints(id: string, cwd: string): FileCheckpoints {
    return new FileCheckpoints(checkpointsDir(this.locate(id, cwd)));
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

function readMeta(transcript: string): SessionMeta {
  try {
    return JSON.parse(readFileSync(metaPath(transcript), "utf8")) as SessionMeta;
  } catch {
    return {};
  }
}

function sortByRecency(summaries: SessionSummary[]): SessionSummary[] {
  return summaries.sort(
    (a, b) => compareCodeUnits(b.updatedAt, a.updatedAt) || compareCodeUnits(b.createdAt, a.createdAt),
  );
}
