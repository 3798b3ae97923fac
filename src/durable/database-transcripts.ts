import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SessionLockedError } from "../sessions/lock.js";
import { JsonlTranscriptStore, SessionNotFoundError } from "../sessions/store.js";
import type {
  FileCheckpointStore,
  ForkOptions,
  SessionMeta,
  TranscriptStore,
  TranscriptWriter,
} from "../sessions/transcript-store.js";
import { importApart } from "../util/import-apart.js";
import { randomUuid } from "../util/random-id.js";
import type { OpenedDatabaseStore } from "./open-database-store.js";

type StoreModule = typeof import("./open-database-store.js");

/** The store's module, apart from the CLI's bundle (both sit two folders below the package root). */
const loadApart = (): Promise<StoreModule> =>
  importApart<StoreModule>(new URL("../durable/open-database-store.js", import.meta.url), import.meta.url);

/**
 * The sessions of a `cairn serve` database, for print mode (`--database-url`) and the SDK
 * (`databaseUrl`): a `TranscriptStore` that reads and writes them in PostgreSQL
 * (`PgTranscriptStore`), so `--resume <id>` continues a session a worker ran and the new turn is
 * stored in the database, not in a local file (docs/serve.md, "Transcripts").
 *
 * It is made synchronously, as a door makes its session, and connects on first use: pg and the
 * database code load only then, apart from the CLI's bundle (importApart), so a run without a
 * database loads neither. An agent id (`bc-…`) names its conversation's session. The local copy the
 * store reads and hooks see (`transcript_path`) lives in a scratch directory of its own, removed by
 * `close()`: a local session of the same id in `$CAIRN_HOME` is never overwritten.
 */
export class DatabaseTranscripts implements TranscriptStore {
  private readonly scratch = join(tmpdir(), `cairn-db-sessions-${randomUuid()}`);
  private readonly local = new JsonlTranscriptStore({ cairnHome: this.scratch });
  private opening: Promise<OpenedDatabaseStore> | undefined;

  /**
   * `loadModule`: how the store's module is loaded. The CLI's bundle loads it apart (importApart: an
   * import() in its code-cached script fails on Node 20); the SDK passes its own `import()`, which
   * its bundler makes a chunk of.
   */
  constructor(
    private readonly databaseUrl: string,
    private readonly loadModule: () => Promise<StoreModule> = loadApart,
  ) {}

  /** Ends the connections and removes the local copy; call it once the session is closed. */
  async close(): Promise<void> {
    const opening = this.opening;
    this.opening = undefined;
    try {
      if (opening) await (await opening.catch(() => undefined))?.close();
    } finally {
      rmSync(this.scratch, { recursive: true, force: true });
    }
  }

  private opened(): Promise<OpenedDatabaseStore> {
    this.opening ??= this.loadModule().then(({ openDatabaseStore }) =>
      openDatabaseStore(this.databaseUrl, this.scratch),
    );
    return this.opening;
  }

  /** The store, and the session an id names (an agent id names its conversation's). */
  private async target(id: string): Promise<[OpenedDatabaseStore, string]> {
    const opened = await this.opened().catch(rethrown);
    return [opened, await opened.sessionIdOf(id).catch(rethrown)];
  }

  async create(
    cwd: string,
    sessionId?: string,
    options?: { forkedFrom?: string },
  ): Promise<TranscriptWriter> {
    return (await this.opened().catch(rethrown)).store.create(cwd, sessionId, options).catch(rethrown);
  }
  async open(id: string, cwd?: string): Promise<TranscriptWriter> {
    const [{ store }, sessionId] = await this.target(id);
    return store.open(sessionId, cwd).catch(rethrown);
  }
  async exists(id: string, cwd: string) {
    const [{ store }, sessionId] = await this.target(id);
    return store.exists(sessionId, cwd).catch(rethrown);
  }
  async find(id: string, cwd?: string) {
    const [{ store }, sessionId] = await this.target(id);
    return store.find(sessionId, cwd).catch(rethrown);
  }
  async load(id: string, cwd?: string) {
    const [{ store }, sessionId] = await this.target(id);
    return store.load(sessionId, cwd).catch(rethrown);
  }
  async list(cwd: string) {
    return (await this.opened().catch(rethrown)).store.list(cwd).catch(rethrown);
  }
  async listAll() {
    return (await this.opened().catch(rethrown)).store.listAll().catch(rethrown);
  }
  async latest(cwd: string) {
    return (await this.opened().catch(rethrown)).store.latest(cwd).catch(rethrown);
  }
  async fork(id: string, options?: ForkOptions) {
    const [{ store }, sessionId] = await this.target(id);
    return store.fork(sessionId, options).catch(rethrown);
  }
  locate(sessionId: string, cwd: string): string {
    return this.local.locate(sessionId, cwd);
  }
  locateSubagent(sessionId: string, cwd: string, agentId: string): string {
    return this.local.locateSubagent(sessionId, cwd, agentId);
  }
  async subagents(id: string, cwd?: string) {
    const [{ store }, sessionId] = await this.target(id);
    return store.subagents(sessionId, cwd).catch(rethrown);
  }
  async loadSubagent(id: string, agentId: string, cwd?: string) {
    const [{ store }, sessionId] = await this.target(id);
    return store.loadSubagent(sessionId, agentId, cwd).catch(rethrown);
  }
  async updateMeta(id: string, cwd: string | undefined, change: SessionMeta) {
    const [{ store }, sessionId] = await this.target(id);
    return store.updateMeta(sessionId, cwd, change).catch(rethrown);
  }
  async delete(id: string, cwd?: string) {
    const [{ store }, sessionId] = await this.target(id);
    return store.delete(sessionId, cwd).catch(rethrown);
  }
  /** File checkpoints stay on this machine, in the scratch directory (as PgTranscriptStore keeps them). */
  fileCheckpoints(sessionId: string, cwd: string): FileCheckpointStore {
    return this.local.fileCheckpoints(sessionId, cwd);
  }
}

/**
 * The store's module loads apart from the bundle that made this one, with classes of its own: its
 * session errors are thrown again as this bundle's, so `instanceof SessionNotFoundError` (or
 * `SessionLockedError`) holds for the program and the door, with the same message.
 */
function rethrown(error: unknown): never {
  if (
    !(error instanceof Error) ||
    error instanceof SessionNotFoundError ||
    error instanceof SessionLockedError
  )
    throw error;
  const sessionId = (error as { sessionId?: string }).sessionId ?? "";
  let same: Error | undefined;
  if (error.name === "SessionNotFoundError") same = new SessionNotFoundError(sessionId, "the database");
  if (error.name === "SessionLockedError" || error.name === "SessionRunningError")
    same = new SessionLockedError(sessionId, undefined);
  if (!same) throw error;
  same.message = error.message;
  throw same;
}

/**
 * The CLI's database sessions (`--database-url`, else `CAIRN_DATABASE_URL`), for print mode and the
 * interactive mode alike; none without either. Never `DATABASE_URL`, which many applications set
 * for their own database (docs/serve.md, "Transcripts").
 */
export function databaseTranscriptsOf(
  databaseUrl: string | undefined,
  env: NodeJS.ProcessEnv,
): DatabaseTranscripts | undefined {
  const url = databaseUrl ?? env.CAIRN_DATABASE_URL;
  return url ? new DatabaseTranscripts(url) : undefined;
}
