import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Pool, PoolClient } from "pg";
import type { EngineEvent } from "../engine/events.js";
import type { ConversationMessage } from "../engine/messages.js";
import { canonicalCwd, metaPath, subagentTranscriptPath } from "../sessions/jsonl-layout.js";
import { SessionLockedError } from "../sessions/lock.js";
import type { LoadedTranscript } from "../sessions/reader.js";
import type { TranscriptRecord } from "../sessions/records.js";
import { isValidSessionId, JsonlTranscriptStore, SessionNotFoundError } from "../sessions/store.js";
import type {
  FileCheckpointStore,
  ForkedSession,
  ForkOptions,
  LoadedSession,
  SessionMeta,
  SessionSummary,
  TranscriptStore,
  TranscriptWriter,
} from "../sessions/transcript-store.js";
import { DIR_MODE, FILE_MODE, SessionWriteError, type SessionWriter } from "../sessions/writer.js";
import { randomUuid } from "../util/random-id.js";
import { ACTIVE_RUN_STATUSES } from "./database.js";
import { inTransaction } from "./transaction.js";

const WHERE = "the database";

/** The key of a session's advisory lock, `$1` its id: a writer holds it; the API's follow-up tries it. */
export const SESSION_LOCK_KEY = "hashtextextended('cairn-session:' || $1, 0)";

/**
 * Sessions kept in PostgreSQL (`cairn.sessions`, `cairn.transcript_lines`, `cairn.subagent_lines`):
 * the same records, line for line, as the JSONL store writes, so any machine that reaches the
 * database can load, resume, list or fork a session, and a JSONL file exported from it is the one
 * the JSONL store would have written.
 *
 * The records are written by the JSONL store's own writer into a local copy under `cacheHome`
 * (laid out as the JSONL store lays out `$CAIRN_HOME`), and stored in the database at the JSONL
 * writer's durability points — each turn's end, the run's end and `close()` — in one transaction
 * each. Reads lay the database's lines out into that copy first, then read it as the JSONL store
 * does: what the database holds is what is read. Locations are the local copy's paths (hooks read
 * the transcript there). File checkpoints stay on the machine (`cacheHome`).
 *
 * One writer per session across machines: a writer holds a PostgreSQL advisory lock on the session
 * for its life, and a session whose `cairn serve` agent has a run under way is refused too.
 */
export class PgTranscriptStore implements TranscriptStore {
  private readonly local: JsonlTranscriptStore;
  /** Sessions this store is writing now: their local copy is ahead of the database. */
  private readonly writing = new Set<string>();

  constructor(
    private readonly pool: Pool,
    cacheHome: string,
  ) {
    this.local = new JsonlTranscriptStore({ cairnHome: cacheHome });
  }

  async create(cwd: string, id: string = randomUuid(), extra: { forkedFrom?: string } = {}) {
    if (!isValidSessionId(id)) throw new Error(`"${id}" is not a valid session id`);
    const lock = await this.lock(id);
    try {
      const inserted = await this.pool.query(
        "INSERT INTO cairn.sessions (session_id, cwd) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING session_id",
        [id, canonicalCwd(cwd)],
      );
      if (inserted.rowCount !== 1)
        throw new SessionWriteError(this.locate(id, cwd), new Error(`session ${id} already exists`));
      const inner = await this.local.create(cwd, id, extra).catch(async (error: unknown) => {
        await this.pool.query("DELETE FROM cairn.sessions WHERE session_id = $1", [id]);
        throw error;
      });
      const writer = new PgTranscriptWriter(this, inner, lock, 0);
      this.writing.add(id);
      // The header now: the session exists for every machine from its creation, as a file would.
      await writer.store();
      return writer;
    } catch (error) {
      await releaseLock(lock, id);
      throw error;
    }
  }

  async open(id: string, cwd?: string): Promise<TranscriptWriter> {
    const { file, cwd: home } = await this.pull(id);
    const lock = await this.lock(id);
    try {
      await this.refuseActiveRun(id);
      // Laid out again under the lock: the copy is what the database holds now.
      await this.pull(id);
      const inner = await this.local.open(id, cwd ?? home);
      const writer = new PgTranscriptWriter(this, inner, lock, countLines(file));
      this.writing.add(id);
      return writer;
    } catch (error) {
      await releaseLock(lock, id);
      throw error;
    }
  }

  async exists(id: string, cwd: string): Promise<boolean> {
    if (!isValidSessionId(id)) return false;
    const found = await this.pool.query("SELECT 1 FROM cairn.sessions WHERE session_id = $1 AND cwd = $2", [
      id,
      canonicalCwd(cwd),
    ]);
    return found.rowCount === 1;
  }

  async find(id: string, _cwd?: string): Promise<string> {
    return (await this.pull(id)).file;
  }

  async load(id: string, _cwd?: string): Promise<LoadedSession> {
    const { cwd } = await this.pull(id);
    return this.local.load(id, cwd);
  }

  async list(cwd: string): Promise<SessionSummary[]> {
    return this.summaries("WHERE cwd = $1", [canonicalCwd(cwd)]);
  }

  async listAll(): Promise<SessionSummary[]> {
    return this.summaries("", []);
  }

  async latest(cwd: string): Promise<SessionSummary | undefined> {
    return (await this.list(cwd))[0];
  }

  async fork(id: string, options: ForkOptions = {}): Promise<ForkedSession> {
    const loaded = await this.load(id);
    const history = options.keep ? options.keep(loaded.history) : loaded.history;
    const writer = await this.create(loaded.header.cwd, options.newId, { forkedFrom: id });
    try {
      for (const message of history) writer.appendMessage(message);
    } finally {
      await writer.close();
    }
    return { sessionId: writer.sessionId, location: writer.location, history, warnings: loaded.warnings };
  }

  locate(id: string, cwd: string): string {
    return this.local.locate(id, cwd);
  }

  locateSubagent(id: string, cwd: string, agentId: string): string {
    return this.local.locateSubagent(id, cwd, agentId);
  }

  async subagents(id: string, _cwd?: string): Promise<string[]> {
    const { cwd } = await this.pull(id);
    return this.local.subagents(id, cwd);
  }

  async loadSubagent(id: string, agentId: string, _cwd?: string): Promise<LoadedTranscript | undefined> {
    const { cwd } = await this.pull(id);
    return this.local.loadSubagent(id, agentId, cwd);
  }

  async updateMeta(id: string, _cwd: string | undefined, change: SessionMeta): Promise<void> {
    await inTransaction(this.pool, async (client) => {
      const row = await client.query("SELECT meta FROM cairn.sessions WHERE session_id = $1 FOR UPDATE", [
        id,
      ]);
      if (!row.rowCount) throw new SessionNotFoundError(id, WHERE);
      // JSON has no undefined: a key set to undefined is removed.
      const meta = JSON.parse(JSON.stringify({ ...(row.rows[0].meta as SessionMeta), ...change }));
      await client.query("UPDATE cairn.sessions SET meta = $2 WHERE session_id = $1", [id, meta]);
    });
  }

  async delete(id: string, _cwd?: string): Promise<void> {
    const { file } = await this.pull(id);
    await inTransaction(this.pool, async (client) => {
      for (const table of ["transcript_lines", "subagent_lines", "sessions"])
        await client.query(`DELETE FROM cairn.${table} WHERE session_id = $1`, [id]);
    });
    rmSync(file, { force: true });
    rmSync(metaPath(file), { force: true });
  }

  fileCheckpoints(id: string, cwd: string): FileCheckpointStore {
    return this.local.fileCheckpoints(id, cwd);
  }

  /**
   * Stores what the writer's local copy holds beyond the `stored` lines already in the database
   * (and its subagents' new lines), in one transaction; the new count of stored lines.
   */
  async storeLines(id: string, file: string, stored: number): Promise<number> {
    const lines = completeLines(file);
    const subagents = await this.local.subagents(id);
    await inTransaction(this.pool, async (client) => {
      await client.query("UPDATE cairn.sessions SET updated_at = now() WHERE session_id = $1", [id]);
      await insertLines(client, "transcript_lines", id, null, lines.slice(stored), stored);
      for (const agentId of subagents) {
        const have = await client.query(
          "SELECT count(*)::int AS n FROM cairn.subagent_lines WHERE session_id = $1 AND agent_id = $2",
          [id, agentId],
        );
        const from = have.rows[0].n as number;
        const agentLines = completeLines(subagentTranscriptPath(file, agentId));
        await insertLines(client, "subagent_lines", id, agentId, agentLines.slice(from), from);
      }
    }).catch((error: unknown) => {
      throw new SessionWriteError(`${WHERE} (session ${id})`, error);
    });
    return lines.length;
  }

  /**
   * Exports a session into the JSONL store whose home is this store's `cacheHome` (`$CAIRN_HOME`):
   * the database's transcript, laid out as the JSONL store would have written it, where
   * `cairn --resume` and `cairn report` find it. A local copy with lines the database lacks (a turn
   * resumed locally and not imported) is not overwritten.
   */
  async exportSession(id: string): Promise<string> {
    const row = (await this.pool.query("SELECT cwd FROM cairn.sessions WHERE session_id = $1", [id])).rows[0];
    if (row) {
      const local = completeLines(this.local.locate(id, row.cwd));
      const stored = await this.pool.query(
        "SELECT count(*)::int AS n FROM cairn.transcript_lines WHERE session_id = $1",
        [id],
      );
      if (local.length > (stored.rows[0].n as number))
        throw new Error(
          `session ${id}: the local transcript has ${local.length - stored.rows[0].n} lines the database does not; import it first (cairn serve import ${id})`,
        );
    }
    return (await this.pull(id)).file;
  }

  /**
   * Imports a JSONL transcript into the database: the lines after those the database holds, which
   * must begin the file (the session continued locally, say after an export); a session the
   * database does not have is stored whole.
   */
  async importSession(id: string, file: string): Promise<number> {
    const lines = completeLines(file);
    const header = lines[0]
      ? (JSON.parse(lines[0]) as { type?: string; sessionId?: string; cwd?: string })
      : {};
    if (header.type !== "header" || header.sessionId !== id || typeof header.cwd !== "string")
      throw new Error(`${file} is not the transcript of session ${id} (its first line is not its header)`);
    const lock = await this.lock(id);
    try {
      await this.refuseActiveRun(id);
      await this.pool.query(
        "INSERT INTO cairn.sessions (session_id, cwd) VALUES ($1, $2) ON CONFLICT DO NOTHING",
        [id, header.cwd],
      );
      const stored = (
        await this.pool.query(
          "SELECT line FROM cairn.transcript_lines WHERE session_id = $1 ORDER BY line_no",
          [id],
        )
      ).rows.map((r) => r.line as string);
      if (stored.some((line, i) => lines[i] !== line))
        throw new Error(
          `session ${id}: ${file} does not continue the transcript the database holds (they differ before line ${stored.length + 1})`,
        );
      await this.storeLines(id, file, stored.length);
      return lines.length - stored.length;
    } finally {
      await releaseLock(lock, id);
    }
  }

  /** A session whose `cairn serve` agent has a run under way is being written by a worker. */
  private async refuseActiveRun(id: string): Promise<void> {
    const active = await this.pool.query(
      `SELECT a.id AS agent_id, r.id AS run_id FROM cairn.agents a JOIN cairn.runs r ON r.agent_id = a.id
       WHERE a.session_id = $1 AND r.status = ANY($2::text[])`,
      [id, ACTIVE_RUN_STATUSES],
    );
    if (active.rowCount) throw new SessionRunningError(id, active.rows[0].agent_id, active.rows[0].run_id);
  }

  /** The writer of `id` closed: the database holds its lines again. */
  closed(id: string): void {
    this.writing.delete(id);
  }

  /**
   * Lays a session out of the database into the local copy (its transcript, metadata and
   * subagents' transcripts), unless this store is writing it; where it is.
   */
  private async pull(id: string): Promise<{ file: string; cwd: string }> {
    if (!isValidSessionId(id)) throw new SessionNotFoundError(id, WHERE, "not a valid session id, so none");
    const row = (
      await this.pool.query("SELECT cwd, meta, updated_at FROM cairn.sessions WHERE session_id = $1", [id])
    ).rows[0] as { cwd: string; meta: SessionMeta } | undefined;
    if (!row) throw new SessionNotFoundError(id, WHERE);
    const file = this.local.locate(id, row.cwd);
    if (this.writing.has(id)) return { file, cwd: row.cwd };
    const lines = await this.pool.query(
      "SELECT line FROM cairn.transcript_lines WHERE session_id = $1 ORDER BY line_no",
      [id],
    );
    writeCopy(file, lines.rows.map((r) => `${r.line}\n`).join(""));
    if (Object.keys(row.meta).length > 0) writeCopy(metaPath(file), `${JSON.stringify(row.meta)}\n`);
    else rmSync(metaPath(file), { force: true });
    const agents = await this.pool.query(
      `SELECT agent_id, string_agg(line || E'\\n', '' ORDER BY line_no) AS text
       FROM cairn.subagent_lines WHERE session_id = $1 GROUP BY agent_id ORDER BY min(seq), agent_id`,
      [id],
    );
    for (const agent of agents.rows) writeCopy(subagentTranscriptPath(file, agent.agent_id), agent.text);
    return { file, cwd: row.cwd };
  }

  private async summaries(where: string, params: unknown[]): Promise<SessionSummary[]> {
    const rows = (
      await this.pool.query(`SELECT session_id, meta, updated_at FROM cairn.sessions ${where}`, params)
    ).rows as { session_id: string; meta: SessionMeta; updated_at: Date }[];
    const summaries: SessionSummary[] = [];
    for (const row of rows) {
      const { cwd } = await this.pull(row.session_id);
      const summary = (await this.local.list(cwd)).find((s) => s.sessionId === row.session_id);
      // The database's time of the last write, not the local copy's (laid out just now).
      if (summary) summaries.push({ ...summary, updatedAt: row.updated_at.toISOString(), meta: row.meta });
    }
    return summaries.sort(
      (a, b) => b.updatedAt.localeCompare(a.updatedAt) || b.createdAt.localeCompare(a.createdAt),
    );
  }

  /** The session's advisory lock, on a connection of its own held while the writer lives. */
  private async lock(id: string): Promise<PoolClient> {
    const client = await this.pool.connect();
    try {
      const taken = await client.query(`SELECT pg_try_advisory_lock(${SESSION_LOCK_KEY}) AS ok`, [id]);
      if (taken.rows[0].ok === true) return client;
    } catch (error) {
      client.release();
      throw error;
    }
    client.release();
    throw new SessionLockedError(id, undefined);
  }
}

/** A session a `cairn serve` worker is writing: its agent has a run queued or under way. */
export class SessionRunningError extends SessionLockedError {
  constructor(sessionId: string, agentId: string, runId: string) {
    super(sessionId, undefined);
    this.name = "SessionRunningError";
    this.message = `session ${sessionId} is in use by cairn serve: its agent ${agentId} has run ${runId} queued or under way; wait for it to end, or continue it under a new id with --fork-session`;
  }
}

/** A session's writer: the JSONL writer of the local copy, stored at its durability points. */
class PgTranscriptWriter implements TranscriptWriter {
  private storing: Promise<void> = Promise.resolve();
  private released = false;

  constructor(
    private readonly owner: PgTranscriptStore,
    private readonly inner: SessionWriter,
    private readonly lockClient: PoolClient,
    /** Lines of the transcript the database holds. */
    private stored: number,
  ) {}

  get sessionId(): string {
    return this.inner.sessionId;
  }
  get location(): string {
    return this.inner.location;
  }
  get warnings(): readonly string[] {
    return this.inner.warnings;
  }
  get closed(): boolean {
    return this.released;
  }

  recordEvent(event: EngineEvent): void | Promise<void> {
    this.inner.recordEvent(event);
    if (event.type === "turn_end" || event.type === "run_end") return this.store();
  }

  append(record: TranscriptRecord): void {
    this.inner.append(record);
  }

  appendMessage(message: ConversationMessage): void {
    this.inner.appendMessage(message);
  }

  async close(): Promise<void> {
    if (this.released) return;
    this.released = true;
    try {
      this.inner.close();
      await this.store();
    } finally {
      this.owner.closed(this.sessionId);
      await releaseLock(this.lockClient, this.sessionId);
    }
  }

  /** Stores the lines written since the last time, one store at a time. */
  store(): Promise<void> {
    this.storing = this.storing.then(async () => {
      this.stored = await this.owner.storeLines(this.sessionId, this.inner.location, this.stored);
    });
    return this.storing;
  }
}

async function releaseLock(client: PoolClient, id: string): Promise<void> {
  try {
    await client.query(`SELECT pg_advisory_unlock(${SESSION_LOCK_KEY})`, [id]);
  } finally {
    client.release();
  }
}

async function insertLines(
  client: PoolClient,
  table: "transcript_lines" | "subagent_lines",
  id: string,
  agentId: string | null,
  lines: readonly string[],
  from: number,
): Promise<void> {
  if (lines.length === 0) return;
  const numbers = lines.map((_, i) => from + i + 1);
  if (table === "transcript_lines")
    await client.query(
      `INSERT INTO cairn.transcript_lines (session_id, line_no, line)
       SELECT $1, n, l FROM unnest($2::int[], $3::text[]) AS t(n, l) ON CONFLICT DO NOTHING`,
      [id, numbers, lines],
    );
  else
    await client.query(
      `INSERT INTO cairn.subagent_lines (session_id, agent_id, line_no, line)
       SELECT $1, $2, n, l FROM unnest($3::int[], $4::text[]) AS t(n, l) ON CONFLICT DO NOTHING`,
      [id, agentId, numbers, lines],
    );
}

/** The complete lines of a local transcript (a line being written has no newline yet). */
function completeLines(file: string): string[] {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return [];
  }
  const lines = text.split("\n");
  lines.pop();
  return lines;
}

function countLines(file: string): number {
  return completeLines(file).length;
}

/** Replaces a local copy's file at once (a reader never sees it half written). */
function writeCopy(file: string, text: string): void {
  mkdirSync(path.dirname(file), { recursive: true, mode: DIR_MODE });
  const temporary = `${file}.${process.pid}.pull.tmp`;
  writeFileSync(temporary, text, { mode: FILE_MODE });
  renameSync(temporary, file);
}
