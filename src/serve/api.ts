import { mkdirSync, statSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { isAbsolute, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { DBOSClient } from "@dbos-inc/dbos-sdk";
import type { Pool } from "pg";
import {
  ACTIVE_RUN_STATUSES,
  type AgentRow,
  migrate,
  openPool,
  RUN_STATUS,
  type RunRow,
} from "../durable/database.js";
import { loadDbos } from "../durable/libraries.js";
import { type RunExtras, saveRunExtras } from "../durable/run-extras.js";
import { APPLICATION, RUN_QUEUE, RUN_WORKFLOW } from "../durable/worker.js";
import { catalogModels } from "../providers/offered-models.js";
import { randomUuid } from "../util/random-id.js";
import { type ApiKey, findApiKey, presentedKey } from "./api-keys.js";
import { runExtrasOfRequest, sendRunReport } from "./run-report.js";
import { streamRunEvents } from "./run-stream.js";

export type ApiOptions = {
  databaseUrl: string;
  port: number;
  host: string;
  /** Where agents without a workspace of their own get an empty directory. */
  workspaces: string;
  /** The version the workers run (a run is enqueued for it). */
  version: string;
};

export type RunningApi = { url: string; stop(): Promise<void> };

/** An error answered as the reference answers errors: its status and `{ "error": { code, message } }`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

type Context = { pool: Pool; client: DBOSClient; options: ApiOptions };

const fail = (status: number, code: string, message: string): never => {
  throw new ApiError(status, code, message);
};

/**
 * The HTTP API of `cairn serve`: the reference's Cloud Agents API v1, the subset docs/serve.md
 * lists. Agents and runs live in the database; runs are enqueued for the workers, whose events
 * the run's SSE stream sends from the database (so any API process can serve any run's stream).
 */
export async function startApi(options: ApiOptions): Promise<RunningApi> {
  const pool = await openPool(options.databaseUrl, 10);
  await migrate(pool);
  const { DBOS, DBOSClient } = loadDbos();
  // DBOS's own tables, which a worker would otherwise make only when it first starts.
  await DBOS.migrate(options.databaseUrl);
  const client = await DBOSClient.create({
    systemDatabaseUrl: options.databaseUrl,
    applicationName: APPLICATION,
  });
  const context: Context = { pool, client, options };
  const server: Server = createServer((request, response) => {
    handle(context, request, response).catch((error: unknown) => {
      const apiError =
        error instanceof ApiError
          ? error
          : new ApiError(500, "internal_error", (error as Error).message ?? "error");
      if (response.headersSent) response.end();
      else sendJson(response, apiError.status, { error: { code: apiError.code, message: apiError.message } });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : options.port;
  return {
    url: `http://${options.host}:${port}`,
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await client.destroy();
      await pool.end();
    },
  };
}

async function handle(context: Context, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const url = new URL(request.url ?? "/", "http://localhost");
  const key = presentedKey(request);
  const account = key ? await findApiKey(context.pool, key) : undefined;
  if (!account)
    throw new ApiError(401, "unauthorized", "A valid API key is required (HTTP Basic user name or Bearer).");
  const parts = url.pathname.split("/").filter(Boolean).map(decodeURIComponent);
  const method = request.method ?? "GET";
  if (parts[0] !== "v1") throw notFound(url.pathname);
  const [, resource, agentId, sub, runId, action] = parts;
  if (resource === "me" && parts.length === 2 && method === "GET")
    return sendJson(response, 200, { apiKeyName: account.name, createdAt: account.createdAt.toISOString() });
  if (resource === "models" && parts.length === 2 && method === "GET")
    return sendJson(response, 200, {
      items: catalogModels().map((model) => ({ id: model.value, name: model.displayName })),
    });
  if (resource !== "agents") throw notFound(url.pathname);
  if (!agentId) {
    if (method === "POST") {
      const body = await readJson(request);
      return sendJson(
        response,
        200,
        await createAgent(context, account, body, runExtrasOfRequest(body, request, fail)),
      );
    }
    if (method === "GET")
      return sendJson(response, 200, await listAgents(context, account, url.searchParams));
    throw methodNotAllowed(method, url.pathname);
  }
  const agent = await agentOf(context, account, agentId);
  if (!sub && method === "GET") return sendJson(response, 200, agentJson(agent));
  if (sub !== "runs") throw notFound(url.pathname);
  if (!runId) {
    if (method === "POST") {
      const body = await readJson(request);
      return sendJson(response, 200, {
        run: runJson(await followUp(context, agent, body, runExtrasOfRequest(body, request, fail))),
      });
    }
    if (method === "GET")
      return sendJson(response, 200, { items: (await runsOf(context, agent)).map(runJson) });
    throw methodNotAllowed(method, url.pathname);
  }
  const run = await runOf(context, agent, runId);
  if (!action && method === "GET") return sendJson(response, 200, runJson(run));
  if (action === "stream" && method === "GET") {
    const after = Number(request.headers["last-event-id"] ?? url.searchParams.get("lastEventId") ?? 0);
    if (!Number.isInteger(after) || after < 0)
      throw new ApiError(400, "invalid_request", "Last-Event-ID must be an event id.");
    return streamRunEvents(context.pool, run.id, after, request, response);
  }
  if (action === "report" && method === "GET")
    return sendRunReport(context.pool, run, ACTIVE_RUN_STATUSES.includes(run.status), response, fail);
  if (action === "cancel" && method === "POST")
    return sendJson(response, 200, runJson(await cancelRun(context, run)));
  throw notFound(url.pathname);
}

const notFound = (path: string) => new ApiError(404, "not_found", `No such resource: ${path}`);
const methodNotAllowed = (method: string, path: string) =>
  new ApiError(405, "method_not_allowed", `${method} is not allowed on ${path}`);

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
  });
  response.end(text);
}

const MAX_BODY = 20 * 1024 * 1024;

async function readJson(request: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new ApiError(413, "payload_too_large", "The request body is too large.");
    chunks.push(chunk as Buffer);
  }
  try {
    const parsed = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) return parsed;
  } catch {}
  throw new ApiError(400, "invalid_request", "The request body must be a JSON object.");
}

function promptText(body: Record<string, unknown>): string {
  const prompt = body.prompt as { text?: unknown; images?: unknown } | undefined;
  if (!prompt || typeof prompt.text !== "string" || prompt.text.trim() === "")
    throw new ApiError(400, "invalid_request", "prompt.text is required.");
  if (prompt.images !== undefined)
    throw new ApiError(400, "invalid_request", "prompt.images is not supported by cairn serve yet.");
  return prompt.text;
}

/** The workspace: a local directory named by `repos[0].url` (a path or file: URL), else a new empty one. */
function workspaceOf(context: Context, body: Record<string, unknown>, agentId: string): string {
  const repos = body.repos as { url?: unknown }[] | undefined;
  const url = repos?.[0]?.url;
  if (url === undefined) {
    const dir = join(context.options.workspaces, agentId);
    mkdirSync(dir, { recursive: true });
    return dir;
  }
  if (typeof url !== "string") throw new ApiError(400, "invalid_request", "repos[0].url must be a string.");
  const path = url.startsWith("file:") ? fileURLToPath(url) : url;
  if (!isAbsolute(path))
    throw new ApiError(
      400,
      "invalid_request",
      "repos[0].url must be a local directory (git repositories are not supported yet).",
    );
  if (!statSync(path, { throwIfNoEntry: false })?.isDirectory())
    throw new ApiError(400, "invalid_request", `The workspace ${path} is not a directory.`);
  return path;
}

async function createAgent(
  context: Context,
  account: ApiKey,
  body: Record<string, unknown>,
  extras: RunExtras,
) {
  const text = promptText(body);
  const model = body.model as { id?: unknown } | undefined;
  if (model !== undefined && typeof model?.id !== "string")
    throw new ApiError(400, "invalid_request", "model.id must be a string.");
  const id = `bc-${randomUuid()}`;
  const cwd = workspaceOf(context, body, id);
  const name = typeof body.name === "string" ? body.name : text.slice(0, 60);
  const result = await context.pool.query(
    "INSERT INTO cairn.agents (id, key_hash, name, cwd, model, session_id) VALUES ($1, $2, $3, $4, $5, $6) RETURNING *",
    [id, account.hash, name, cwd, (model?.id as string | undefined) ?? null, randomUuid()],
  );
  const agent = result.rows[0] as AgentRow;
  const run = await enqueueRun(context, agent, text, extras);
  return { agent: agentJson({ ...agent, latest_run_id: run.id }), run: runJson(run) };
}

async function enqueueRun(
  context: Context,
  agent: AgentRow,
  text: string,
  extras: RunExtras,
): Promise<RunRow> {
  const runId = `run-${randomUuid()}`;
  const connection = await context.pool.connect();
  let run: RunRow;
  try {
    await connection.query("BEGIN");
    // One active run per agent: the agent's row is locked while it is checked.
    await connection.query("SELECT id FROM cairn.agents WHERE id = $1 FOR UPDATE", [agent.id]);
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
    const inserted = await connection.query(
      `INSERT INTO cairn.runs (id, agent_id, number, prompt, status)
       VALUES ($1, $2, (SELECT coalesce(max(number), 0) + 1 FROM cairn.runs WHERE agent_id = $2), $3, $4) RETURNING *`,
      [runId, agent.id, text, RUN_STATUS.queued],
    );
    run = inserted.rows[0] as RunRow;
    await saveRunExtras(connection, runId, extras);
    await connection.query("UPDATE cairn.agents SET latest_run_id = $2 WHERE id = $1", [agent.id, runId]);
    await connection.query("COMMIT");
  } catch (error) {
    await connection.query("ROLLBACK").catch(() => {});
    throw error;
  } finally {
    connection.release();
  }
  await context.client.enqueue(
    {
      workflowName: RUN_WORKFLOW,
      queueName: RUN_QUEUE,
      workflowID: runId,
      appVersion: context.options.version,
    },
    runId,
  );
  return run;
}

async function followUp(
  context: Context,
  agent: AgentRow,
  body: Record<string, unknown>,
  extras: RunExtras,
): Promise<RunRow> {
  return enqueueRun(context, agent, promptText(body), extras);
}

async function listAgents(context: Context, account: ApiKey, params: URLSearchParams) {
  const limit = Math.min(Math.max(Number(params.get("limit") ?? 20) || 20, 1), 100);
  const cursor = params.get("cursor");
  const result = await context.pool.query(
    `SELECT * FROM cairn.agents WHERE key_hash = $1 AND ($2::text IS NULL OR (created_at, id) < (
       SELECT created_at, id FROM cairn.agents WHERE id = $2)) ORDER BY created_at DESC, id DESC LIMIT $3`,
    [account.hash, cursor, limit + 1],
  );
  const rows = result.rows as AgentRow[];
  const page = rows.slice(0, limit);
  return {
    items: page.map(agentJson),
    ...(rows.length > limit ? { nextCursor: page.at(-1)!.id } : {}),
  };
}

async function agentOf(context: Context, account: ApiKey, id: string): Promise<AgentRow> {
  const result = await context.pool.query("SELECT * FROM cairn.agents WHERE id = $1 AND key_hash = $2", [
    id,
    account.hash,
  ]);
  const agent = result.rows[0] as AgentRow | undefined;
  if (!agent) throw new ApiError(404, "not_found", `No agent ${id}.`);
  return agent;
}

async function runsOf(context: Context, agent: AgentRow): Promise<RunRow[]> {
  const result = await context.pool.query(
    "SELECT * FROM cairn.runs WHERE agent_id = $1 ORDER BY number DESC",
    [agent.id],
  );
  return result.rows as RunRow[];
}

async function runOf(context: Context, agent: AgentRow, id: string): Promise<RunRow> {
  const result = await context.pool.query("SELECT * FROM cairn.runs WHERE id = $1 AND agent_id = $2", [
    id,
    agent.id,
  ]);
  const run = result.rows[0] as RunRow | undefined;
  if (!run) throw new ApiError(404, "not_found", `No run ${id} of agent ${agent.id}.`);
  return run;
}

/** Cancels a queued or running run: it stops before its next step; a finished run is left as it is. */
async function cancelRun(context: Context, run: RunRow): Promise<RunRow> {
  if (!ACTIVE_RUN_STATUSES.includes(run.status)) return run;
  await context.client.cancelWorkflow(run.id);
  const result = await context.pool.query(
    "UPDATE cairn.runs SET status = $2, updated_at = now() WHERE id = $1 AND status = ANY($3::text[]) RETURNING *",
    [run.id, RUN_STATUS.cancelled, ACTIVE_RUN_STATUSES],
  );
  return (result.rows[0] as RunRow | undefined) ?? run;
}

function agentJson(agent: AgentRow) {
  return {
    id: agent.id,
    name: agent.name,
    status: "ACTIVE",
    ...(agent.latest_run_id ? { latestRunId: agent.latest_run_id } : {}),
    ...(agent.model ? { model: { id: agent.model } } : {}),
    source: { repository: agent.cwd },
    createdAt: agent.created_at.toISOString(),
  };
}

function runJson(run: RunRow) {
  return {
    id: run.id,
    agentId: run.agent_id,
    status: run.status,
    ...(run.result !== null ? { result: run.result } : {}),
    ...(run.error !== null ? { error: run.error } : {}),
    createdAt: run.created_at.toISOString(),
    updatedAt: run.updated_at.toISOString(),
  };
}
