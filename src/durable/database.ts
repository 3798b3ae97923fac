import type { Pool } from "pg";
import { loadPg } from "./libraries.js";
import { MODEL_LIMITS_SCHEMA } from "./model-limits.js";
import { RUN_EXTRAS_SCHEMA } from "./run-extras.js";
import { RUN_WORKSPACES_SCHEMA } from "./run-workspaces.js";
import { inTransaction } from "./transaction.js";

/**
 * cairn's own tables, beside DBOS's (schema `dbos`) in the same PostgreSQL database: API keys,
 * agents (one conversation and workspace each), runs (one prompt each), the events each run showed
 * (what a run's SSE stream sends, numbered from 1), the workers' heartbeats (takeover.ts), and the
 * sessions: their JSONL transcripts' lines, and their subagents' (pg-transcript-store.ts).
 */
const SCHEMA = `
CREATE SCHEMA IF NOT EXISTS cairn;
CREATE TABLE IF NOT EXISTS cairn.api_keys (
  key_hash text PRIMARY KEY, name text NOT NULL, created_at timestamptz NOT NULL DEFAULT now());
CREATE TABLE IF NOT EXISTS cairn.agents (
  id text PRIMARY KEY, key_hash text NOT NULL, name text NOT NULL, cwd text NOT NULL,
  model text, session_id text NOT NULL, latest_run_id text, created_at timestamptz NOT NULL DEFAULT now());
CREATE TABLE IF NOT EXISTS cairn.runs (
  id text PRIMARY KEY, agent_id text NOT NULL REFERENCES cairn.agents(id), number int NOT NULL,
  prompt text NOT NULL, status text NOT NULL, result text, error text,
  transcript_committed boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(), updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (agent_id, number));
CREATE TABLE IF NOT EXISTS cairn.run_events (
  run_id text NOT NULL, seq int NOT NULL, type text NOT NULL, event jsonb NOT NULL,
  PRIMARY KEY (run_id, seq));
CREATE TABLE IF NOT EXISTS cairn.workers (
  id text PRIMARY KEY, heartbeat_at timestamptz NOT NULL DEFAULT now(),
  started_at timestamptz NOT NULL DEFAULT now());
CREATE TABLE IF NOT EXISTS cairn.transcript_lines (
  session_id text NOT NULL, line_no int NOT NULL, line text NOT NULL, PRIMARY KEY (session_id, line_no));
CREATE TABLE IF NOT EXISTS cairn.sessions (
  session_id text PRIMARY KEY, cwd text NOT NULL, meta jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(), updated_at timestamptz NOT NULL DEFAULT now());
CREATE INDEX IF NOT EXISTS sessions_cwd ON cairn.sessions (cwd);
CREATE TABLE IF NOT EXISTS cairn.subagent_lines (
  session_id text NOT NULL, agent_id text NOT NULL, line_no int NOT NULL, line text NOT NULL,
  seq bigserial, PRIMARY KEY (session_id, agent_id, line_no));
`;

/** Run states, as the reference's API names them. */
export const RUN_STATUS = {
  queued: "CREATING",
  running: "RUNNING",
  finished: "FINISHED",
  error: "ERROR",
  cancelled: "CANCELLED",
} as const;

export const ACTIVE_RUN_STATUSES: readonly string[] = [RUN_STATUS.queued, RUN_STATUS.running];

/** A connection pool (pg is loaded when first needed: only `cairn serve` and `cairn worker` use it). */
export async function openPool(databaseUrl: string, max = 5): Promise<Pool> {
  const pg = loadPg();
  // A connection that cannot be made in 10 s fails (the API answers 503, a run waits and tries
  // again) rather than waiting forever; keep-alive notices a peer that vanished.
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max,
    connectionTimeoutMillis: 10_000,
    keepAlive: true,
  });
  // A connection that drops while idle must not end the process: the next query reconnects.
  pool.on("error", () => {});
  return pool;
}

/** Creates cairn's tables where they are missing (every process may: the statements are idempotent). */
export async function migrate(pool: Pool): Promise<void> {
  const client = await pool.connect();
  try {
    // Two processes starting together must not race on CREATE ... IF NOT EXISTS.
    await client.query("SELECT pg_advisory_lock(4242001)");
    await client.query(SCHEMA);
    await client.query(RUN_EXTRAS_SCHEMA);
    await client.query(RUN_WORKSPACES_SCHEMA);
    await client.query(MODEL_LIMITS_SCHEMA);
  } finally {
    await client.query("SELECT pg_advisory_unlock(4242001)").catch(() => {});
    client.release();
  }
}

export type RunRow = {
  id: string;
  agent_id: string;
  number: number;
  prompt: string;
  status: string;
  result: string | null;
  error: string | null;
  created_at: Date;
  updated_at: Date;
};

export type AgentRow = {
  id: string;
  key_hash: string;
  name: string;
  cwd: string;
  model: string | null;
  session_id: string;
  latest_run_id: string | null;
  created_at: Date;
};

/** Appends events at their numbers; a number already stored keeps its first event (a re-run shows the same). */
export async function storeEvents(
  pool: Pool,
  runId: string,
  events: readonly { seq: number; event: { type: string } }[],
): Promise<void> {
  if (events.length === 0) return;
  const values: unknown[] = [];
  const rows = events.map(({ seq, event }, i) => {
    values.push(runId, seq, event.type, JSON.stringify(event));
    return `($${i * 4 + 1}, $${i * 4 + 2}, $${i * 4 + 3}, $${i * 4 + 4}::jsonb)`;
  });
  await pool.query(
    `INSERT INTO cairn.run_events (run_id, seq, type, event) VALUES ${rows.join(", ")} ON CONFLICT DO NOTHING`,
    values,
  );
}

/**
 * Stores a run's transcript: the session's lines after those already stored, in one transaction,
 * once per run (a second call, after a worker died between the commit and its checkpoint, finds
 * the run committed and writes nothing).
 */
export async function commitTranscript(
  pool: Pool,
  runId: string,
  sessionId: string,
  lines: readonly string[],
  subagents: readonly { agentId: string; lines: readonly string[] }[] = [],
): Promise<void> {
  await inTransaction(pool, async (client) => {
    const claimed = await client.query(
      "UPDATE cairn.runs SET transcript_committed = true WHERE id = $1 AND NOT transcript_committed RETURNING id",
      [runId],
    );
    if (claimed.rowCount === 1) {
      // The session as the transcript store lists it: its working directory is its header's.
      const header = lines[0] ? (JSON.parse(lines[0]) as { cwd?: string }) : {};
      await client.query(
        `INSERT INTO cairn.sessions (session_id, cwd) VALUES ($1, $2)
         ON CONFLICT (session_id) DO UPDATE SET updated_at = now()`,
        [sessionId, header.cwd ?? ""],
      );
      const stored = await client.query(
        "SELECT count(*)::int AS n FROM cairn.transcript_lines WHERE session_id = $1",
        [sessionId],
      );
      const from = stored.rows[0].n as number;
      await client.query(
        `INSERT INTO cairn.transcript_lines (session_id, line_no, line)
         SELECT $1, n, l FROM unnest($2::int[], $3::text[]) AS t(n, l)`,
        [sessionId, lines.slice(from).map((_, i) => from + i + 1), lines.slice(from)],
      );
      // A run's subagents are its own (their ids are new in each run): stored whole.
      for (const { agentId, lines: agentLines } of subagents)
        await client.query(
          `INSERT INTO cairn.subagent_lines (session_id, agent_id, line_no, line)
           SELECT $1, $2, n, l FROM unnest($3::int[], $4::text[]) AS t(n, l) ON CONFLICT DO NOTHING`,
          [sessionId, agentId, agentLines.map((_, i) => i + 1), agentLines],
        );
    }
  });
}

/** A session's stored transcript lines, in order. */
export async function transcriptLines(pool: Pool, sessionId: string): Promise<string[]> {
  const result = await pool.query(
    "SELECT line FROM cairn.transcript_lines WHERE session_id = $1 ORDER BY line_no",
    [sessionId],
  );
  return result.rows.map((row) => row.line as string);
}
