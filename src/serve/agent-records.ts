import { mkdirSync, statSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import type { DBOSClient } from "@dbos-inc/dbos-sdk";
import type { Pool } from "pg";
import { ACTIVE_RUN_STATUSES, type AgentRow, RUN_STATUS, type RunRow } from "../durable/database.js";
import { SESSION_LOCK_KEY } from "../durable/pg-transcript-store.js";
import { queuePriorityOf, type RunExtras, saveRunExtras } from "../durable/run-extras.js";
import { inTransaction } from "../durable/transaction.js";
import { RUN_QUEUE, RUN_WORKFLOW } from "../durable/worker.js";
import { randomUuid } from "../util/random-id.js";
import type { ApiKey } from "./api-keys.js";
import { ApiError } from "./http-json.js";
import type { AgentOptionsRow } from "./serve-schema.js";

export type ApiOptions = {
  databaseUrl: string;
  port: number;
  host: string;
  /** Where agents get their workspace: an empty directory, or the clone of their repository. */
  workspaces: string;
  /** The version the workers run (a run is enqueued for it). */
  version: string;
  /** Requests per minute one key may make (0: no limit). */
  rateLimit: number;
};

/** What every handler works with: the database, DBOS's client (to enqueue runs), the options. */
export type Context = { pool: Pool; client: DBOSClient; options: ApiOptions; baseUrl: string };

/** Where an agent's files come from: a directory used in place, or a repository a worker clones. */
export type AgentSource = {
  cwd: string;
  repository: string | null;
  ref: string | null;
  /** A worker clones `repository` at `ref` into `cwd` before the agent's first run. */
  clone: boolean;
};

/** A URL git fetches from (https, ssh, git, file…), or scp-like `user@host:path`. */
const GIT_URL = /^[a-z][a-z0-9+.-]*:\/\//i;
const SCP_LIKE = /^[^/\s:]+@[^/\s:]+:/;

/**
 * The workspace of a new agent. A repository URL (or scp-like address) is cloned by the worker
 * into the agent's own directory under `--workspaces`; so is a local repository given with a ref,
 * or a bare one. A local directory without a ref is used in place (the agent works in it). Nothing:
 * an empty directory of the agent's own.
 */
export function resolveSource(
  context: Context,
  agentId: string,
  repository: string | undefined,
  ref: string | undefined,
): AgentSource {
  const own = join(context.options.workspaces, agentId);
  if (repository === undefined) {
    if (ref !== undefined) throw new ApiError(400, "invalid_request", "A ref needs a repository.");
    mkdirSync(own, { recursive: true });
    return { cwd: own, repository: null, ref: null, clone: false };
  }
  if (GIT_URL.test(repository) || SCP_LIKE.test(repository))
    return { cwd: own, repository, ref: ref ?? null, clone: true };
  if (!isAbsolute(repository))
    throw new ApiError(
      400,
      "invalid_request",
      "The repository must be a git URL (https://, ssh://, file://, user@host:path) or an absolute local path.",
    );
  if (!statSync(repository, { throwIfNoEntry: false })?.isDirectory())
    throw new ApiError(400, "invalid_request", `The workspace ${repository} is not a directory.`);
  const bare =
    statSync(join(repository, "objects"), { throwIfNoEntry: false })?.isDirectory() &&
    statSync(join(repository, "HEAD"), { throwIfNoEntry: false })?.isFile();
  if (ref !== undefined || bare) return { cwd: own, repository, ref: ref ?? null, clone: true };
  return { cwd: repository, repository, ref: null, clone: false };
}

export type NewAgent = {
  text: string;
  name?: string;
  model?: string;
  source: AgentSource;
  branchName?: string;
  autoCreatePr?: boolean;
  webhook?: { url: string; secret: string | null };
  /** The first run's report option and trace context (src/serve/run-report.ts). */
  extras?: RunExtras;
};

/** Stores a new agent (and what it was launched with), then enqueues its first run. */
export async function createAgentRecord(
  context: Context,
  account: ApiKey,
  id: string,
  agent: NewAgent,
): Promise<{ agent: AgentView; run: RunRow }> {
  const name = agent.name ?? agent.text.slice(0, 60);
  const { row, options } = await inTransaction(context.pool, async (connection) => {
    const inserted = await connection.query(
      `INSERT INTO cairn.agents (id, key_hash, name, cwd, model, session_id) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (id) DO NOTHING RETURNING *`,
      [id, account.hash, name, agent.source.cwd, agent.model ?? null, randomUuid()],
    );
    // An id the client chose (v1's `agentId`) that names an agent already.
    if (inserted.rowCount !== 1) throw new ApiError(409, "conflict", `Agent ${id} exists already.`);
    const row = inserted.rows[0] as AgentRow;
    const options = (
      await connection.query(
        `INSERT INTO cairn.agent_options (agent_id, repository, ref, clone, branch_name, auto_create_pr, webhook_url, webhook_secret)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING *`,
        [
          id,
          agent.source.repository,
          agent.source.ref,
          agent.source.clone,
          agent.branchName ?? null,
          agent.autoCreatePr ?? false,
          agent.webhook?.url ?? null,
          agent.webhook?.secret ?? null,
        ],
      )
    ).rows[0] as AgentOptionsRow;
    return { row, options };
  });
  const run = await enqueueRun(context, row, agent.text, agent.extras);
  return { agent: { ...row, ...options, latest_run_id: run.id }, run };
}

/** Enqueues a run of the agent; 409 while it has an active one (one active run per agent). */
export async function enqueueRun(
  context: Context,
  agent: AgentRow,
  text: string,
  extras: RunExtras = { report: false },
): Promise<RunRow> {
  const runId = `run-${randomUuid()}`;
  const run = await inTransaction(context.pool, async (connection) => {
    // One active run per agent: the agent's row is locked while it is checked.
    await connection.query("SELECT id FROM cairn.agents WHERE id = $1 FOR UPDATE", [agent.id]);
    const archived = await connection.query(
      "SELECT 1 FROM cairn.agent_options WHERE agent_id = $1 AND archived_at IS NOT NULL",
      [agent.id],
    );
    if (archived.rowCount)
      throw new ApiError(409, "conflict", `Agent ${agent.id} is archived: unarchive it to give it a run.`);
    const active = await connection.query(
      "SELECT id FROM cairn.runs WHERE agent_id = $1 AND status = ANY($2::text[])",
      [agent.id, ACTIVE_RUN_STATUSES],
    );
    if (active.rowCount) {
      throw new ApiError(
        409,
        "conflict",
        `Agent ${agent.id} has an active run (${active.rows[0].id}); wait for it or cancel it.`,
      );
    }
    // Nor while a cairn process outside serve writes its conversation (`cairn -p --resume <id>
    // --database-url`): it holds the session's lock; this transaction takes it until it commits the
    // run, and that process checks for an active run once it holds the lock.
    const free = await connection.query(`SELECT pg_try_advisory_xact_lock(${SESSION_LOCK_KEY}) AS ok`, [
      agent.session_id,
    ]);
    if (free.rows[0].ok !== true) {
      throw new ApiError(
        409,
        "conflict",
        `Agent ${agent.id}'s conversation is in use by another cairn process (cairn -p --resume on this database); wait for it to end.`,
      );
    }
    const inserted = await connection.query(
      `INSERT INTO cairn.runs (id, agent_id, number, prompt, status)
       VALUES ($1, $2, (SELECT coalesce(max(number), 0) + 1 FROM cairn.runs WHERE agent_id = $2), $3, $4) RETURNING *`,
      [runId, agent.id, text, RUN_STATUS.queued],
    );
    await saveRunExtras(connection, runId, extras);
    await connection.query("UPDATE cairn.agents SET latest_run_id = $2 WHERE id = $1", [agent.id, runId]);
    return inserted.rows[0] as RunRow;
  });
  await context.client.enqueue(
    {
      workflowName: RUN_WORKFLOW,
      queueName: RUN_QUEUE,
      workflowID: runId,
      appVersion: context.options.version,
      // The key's partition: workers started with --key-concurrency share the queue fairly between keys.
      queuePartitionKey: agent.key_hash,
      // Higher `priority` first when runs wait (within a key's partition, with --key-concurrency).
      priority: queuePriorityOf(extras),
    },
    runId,
  );
  return run;
}

/** A page of the key's agents, newest first (`cursor`: the last id of the previous page). */
export async function listAgentRows(
  context: Context,
  account: ApiKey,
  params: URLSearchParams,
): Promise<{ rows: AgentView[]; nextCursor?: string }> {
  const limit = Math.min(Math.max(Number(params.get("limit") ?? 20) || 20, 1), 100);
  const cursor = params.get("cursor");
  // Archived agents are listed only when asked for (`includeArchived=true`), as the reference does.
  const includeArchived = params.get("includeArchived") === "true";
  const result = await context.pool.query(
    `SELECT a.*, o.* FROM cairn.agents a LEFT JOIN cairn.agent_options o ON o.agent_id = a.id
     WHERE a.key_hash = $1 AND ($2::text IS NULL OR (a.created_at, a.id) < (
       SELECT created_at, id FROM cairn.agents WHERE id = $2))
       AND ($4::boolean OR o.archived_at IS NULL)
     ORDER BY a.created_at DESC, a.id DESC LIMIT $3`,
    [account.hash, cursor, limit + 1, includeArchived],
  );
  const rows = result.rows as AgentView[];
  const page = rows.slice(0, limit);
  return { rows: page, ...(rows.length > limit ? { nextCursor: page.at(-1)!.id } : {}) };
}

/**
 * Archives an agent (it stops taking runs and leaves the default listing) or brings it back; a run
 * under way goes on. An agent made before its options were kept gets its options row here.
 */
export async function setArchived(context: Context, agent: AgentRow, archived: boolean): Promise<void> {
  await inTransaction(context.pool, async (connection) => {
    // Under the agent's lock, as a run is queued: no run is queued on an agent being archived.
    await connection.query("SELECT id FROM cairn.agents WHERE id = $1 FOR UPDATE", [agent.id]);
    await connection.query(
      `INSERT INTO cairn.agent_options (agent_id, archived_at) VALUES ($1, CASE WHEN $2 THEN now() END)
       ON CONFLICT (agent_id) DO UPDATE
       SET archived_at = CASE WHEN $2 THEN coalesce(cairn.agent_options.archived_at, now()) END`,
      [agent.id, archived],
    );
  });
}

/** An agent with what it was launched with (none for an agent made before those were kept). */
export type AgentView = AgentRow & Partial<Omit<AgentOptionsRow, "agent_id">>;

export async function agentOf(context: Context, account: ApiKey, id: string): Promise<AgentView> {
  const result = await context.pool.query(
    `SELECT a.*, o.* FROM cairn.agents a LEFT JOIN cairn.agent_options o ON o.agent_id = a.id
     WHERE a.id = $1 AND a.key_hash = $2`,
    [id, account.hash],
  );
  const agent = result.rows[0] as AgentView | undefined;
  if (!agent) throw new ApiError(404, "not_found", `No agent ${id}.`);
  return agent;
}

export async function runsOf(context: Context, agent: AgentRow): Promise<RunRow[]> {
  const result = await context.pool.query(
    "SELECT * FROM cairn.runs WHERE agent_id = $1 ORDER BY number DESC",
    [agent.id],
  );
  return result.rows as RunRow[];
}

export async function runOf(context: Context, agent: AgentRow, id: string): Promise<RunRow> {
  const result = await context.pool.query("SELECT * FROM cairn.runs WHERE id = $1 AND agent_id = $2", [
    id,
    agent.id,
  ]);
  const run = result.rows[0] as RunRow | undefined;
  if (!run) throw new ApiError(404, "not_found", `No run ${id} of agent ${agent.id}.`);
  return run;
}

export async function latestRunOf(context: Context, agent: AgentRow): Promise<RunRow | undefined> {
  if (!agent.latest_run_id) return undefined;
  const result = await context.pool.query("SELECT * FROM cairn.runs WHERE id = $1", [agent.latest_run_id]);
  return result.rows[0] as RunRow | undefined;
}

/** Cancels a queued or running run: it stops before its next step; a finished run is left as it is. */
export async function cancelRun(context: Context, run: RunRow): Promise<RunRow> {
  if (!ACTIVE_RUN_STATUSES.includes(run.status)) return run;
  await context.client.cancelWorkflow(run.id);
  const result = await context.pool.query(
    "UPDATE cairn.runs SET status = $2, updated_at = now() WHERE id = $1 AND status = ANY($3::text[]) RETURNING *",
    [run.id, RUN_STATUS.cancelled, ACTIVE_RUN_STATUSES],
  );
  return (result.rows[0] as RunRow | undefined) ?? run;
}

/**
 * Deletes an agent: its active run is cancelled first, then its runs, their events, its
 * transcript, its options and owed webhooks. Its workspace directory is left on disk (it may be
 * the user's own directory, worked in place).
 */
export async function deleteAgent(context: Context, agent: AgentRow): Promise<void> {
  for (const run of await runsOf(context, agent)) await cancelRun(context, run);
  await inTransaction(context.pool, async (connection) => {
    await connection.query(
      "DELETE FROM cairn.run_events WHERE run_id IN (SELECT id FROM cairn.runs WHERE agent_id = $1)",
      [agent.id],
    );
    await connection.query("DELETE FROM cairn.webhook_deliveries WHERE agent_id = $1", [agent.id]);
    await connection.query("DELETE FROM cairn.runs WHERE agent_id = $1", [agent.id]);
    await connection.query("DELETE FROM cairn.transcript_lines WHERE session_id = $1", [agent.session_id]);
    await connection.query("DELETE FROM cairn.agents WHERE id = $1", [agent.id]);
  });
}

/** A repository URL as shown to clients and in webhooks: without the password or token it may hold. */
export function withoutCredentials(repository: string | null): string | null {
  return repository?.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@]*@/i, "$1") ?? null;
}
