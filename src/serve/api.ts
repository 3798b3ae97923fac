import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { ACTIVE_RUN_STATUSES, migrate, openPool, type RunRow } from "../durable/database.js";
import { isDatabaseUnavailable } from "../durable/database-outage.js";
import { loadDbos } from "../durable/libraries.js";
import type { RunExtras } from "../durable/run-extras.js";
import { APPLICATION } from "../durable/worker.js";
import { catalogModels } from "../providers/offered-models.js";
import { randomUuid } from "../util/random-id.js";
import {
  ARTIFACT_FILES_PATH,
  sendArtifactDownload,
  sendArtifactList,
  sendRepositories,
  sendSignedArtifact,
} from "./agent-artifacts.js";
import {
  type AgentSource,
  type AgentView,
  type ApiOptions,
  agentOf,
  type Context,
  cancelRun,
  createAgentRecord,
  deleteAgent,
  enqueueRun,
  listAgentRows,
  resolveSource,
  runOf,
  runsOf,
  setArchived,
  withoutCredentials,
} from "./agent-records.js";
import { type ApiKey, findApiKey, presentedKey } from "./api-keys.js";
import { handleV0 } from "./api-v0.js";
import { ApiError, methodNotAllowed, notFound, optionalString, readJson, sendJson } from "./http-json.js";
import { requestPrompt, withPromptImages } from "./prompt-images.js";
import { countRequest } from "./rate-limit.js";
import { streamVocabularyOf } from "./reference-stream-frames.js";
import { runExtrasOfRequest, sendRunReport } from "./run-report.js";
import { streamRunEvents } from "./run-stream.js";
import { sendRunPatch, sendRunWorkspace } from "./run-workspace.js";
import { migrateServe } from "./serve-schema.js";
import { startWebhookDeliveries } from "./webhooks.js";

export type { ApiOptions } from "./agent-records.js";
export { ApiError } from "./http-json.js";

export type RunningApi = { url: string; stop(): Promise<void> };

const DATABASE_AWAY =
  "The database is unreachable (stopped, restarting or out of reach); runs resume when it is back. Try again shortly.";

/**
 * The HTTP API of `cairn serve`: the reference's Cloud Agents API v1 and its v0 (the Background
 * Agents API), the subsets docs/serve.md lists. Agents and runs live in the database; runs are
 * enqueued for the workers, whose events the run's SSE stream sends from the database (so any API
 * process can serve any run's stream). Each API process also delivers the webhooks owed.
 */
export async function startApi(options: ApiOptions): Promise<RunningApi> {
  const pool = await openPool(options.databaseUrl, 10);
  await migrate(pool);
  await migrateServe(pool);
  const { DBOS, DBOSClient } = loadDbos();
  // DBOS's own tables, which a worker would otherwise make only when it first starts.
  await DBOS.migrate(options.databaseUrl);
  const client = await DBOSClient.create({
    systemDatabaseUrl: options.databaseUrl,
    applicationName: APPLICATION,
  });
  const context: Context = { pool, client, options, baseUrl: "" };
  const server: Server = createServer((request, response) => {
    handle(context, request, response).catch((error: unknown) => {
      const apiError =
        error instanceof ApiError
          ? error
          : isDatabaseUnavailable(error)
            ? new ApiError(503, "database_unavailable", DATABASE_AWAY, { "retry-after": "5" })
            : new ApiError(500, "internal_error", (error as Error).message ?? "error");
      if (response.headersSent) response.end();
      else
        sendJson(
          response,
          apiError.status,
          { error: { code: apiError.code, message: apiError.message } },
          apiError.headers,
        );
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : options.port;
  context.baseUrl = `http://${options.host}:${port}`;
  const deliveries = startWebhookDeliveries(context);
  return {
    url: context.baseUrl,
    async stop() {
      await deliveries.stop();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await client.destroy();
      await pool.end();
    },
  };
}

async function handle(context: Context, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const url = new URL(request.url ?? "/", "http://localhost");
  // A download URL carries its own signature instead of a key, as the reference's presigned URLs.
  if (url.pathname.startsWith(ARTIFACT_FILES_PATH) && request.method === "GET")
    return sendSignedArtifact(context.pool, url, response);
  const key = presentedKey(request);
  const account = key ? await findApiKey(context.pool, key) : undefined;
  if (!account)
    throw new ApiError(401, "unauthorized", "A valid API key is required (HTTP Basic user name or Bearer).");
  await countRequest(context, account);
  const parts = url.pathname.split("/").filter(Boolean).map(decodeURIComponent);
  if (parts[0] === "v0") return handleV0(context, account, parts.slice(1), url, request, response);
  if (parts[0] !== "v1") throw notFound(url.pathname);
  const method = request.method ?? "GET";
  const [, resource, agentId, sub, runId, action] = parts;
  if (resource === "me" && parts.length === 2 && method === "GET")
    return sendJson(response, 200, { apiKeyName: account.name, createdAt: account.createdAt.toISOString() });
  if (resource === "models" && parts.length === 2 && method === "GET")
    return sendJson(response, 200, {
      items: catalogModels().map((model) => ({ id: model.value, name: model.displayName })),
    });
  if (resource === "repositories" && parts.length === 2 && method === "GET")
    return sendRepositories(context.pool, account.hash, response);
  if (resource !== "agents") throw notFound(url.pathname);
  if (!agentId) {
    if (method === "POST") {
      const body = await readJson(request);
      return sendJson(
        response,
        200,
        await createAgent(context, account, body, runExtrasOfRequest(body, request)),
      );
    }
    if (method === "GET") {
      const page = await listAgentRows(context, account, url.searchParams);
      return sendJson(response, 200, {
        items: page.rows.map((row) => agentJson(row)),
        ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}),
      });
    }
    throw methodNotAllowed(method, url.pathname);
  }
  const agent = await agentOf(context, account, agentId);
  if (!sub && method === "GET") return sendJson(response, 200, agentJson(agent));
  if (!sub && method === "DELETE") {
    await deleteAgent(context, agent);
    return sendJson(response, 200, { id: agent.id });
  }
  if ((sub === "archive" || sub === "unarchive") && parts.length === 4) {
    if (method !== "POST") throw methodNotAllowed(method, url.pathname);
    await setArchived(context, agent, sub === "archive");
    return sendJson(response, 200, { id: agent.id });
  }
  if (sub === "artifacts" && method === "GET" && parts.length === 4)
    return sendArtifactList(context.pool, agent.id, response);
  if (sub === "artifacts" && method === "GET" && runId === "download" && parts.length === 5)
    return sendArtifactDownload(
      context.pool,
      agent,
      url.searchParams.get("path"),
      request,
      context.baseUrl,
      response,
    );
  if (sub !== "runs") throw notFound(url.pathname);
  if (!runId) {
    if (method === "POST") {
      const body = await readJson(request);
      const prompt = requestPrompt(body);
      const extras = withPromptImages(runExtrasOfRequest(body, request), prompt);
      return sendJson(response, 200, { run: runJson(await enqueueRun(context, agent, prompt.text, extras)) });
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
      throw new ApiError(400, "invalid_last_event_id", "Last-Event-ID must be an event id.");
    const vocabulary = streamVocabularyOf(url.searchParams.get("events"));
    if (!vocabulary)
      throw new ApiError(400, "invalid_request", "events must be reference (the default) or cairn.");
    return streamRunEvents(context.pool, run.id, after, vocabulary, request, response);
  }
  if (action === "report" && method === "GET")
    return sendRunReport(context.pool, run, ACTIVE_RUN_STATUSES.includes(run.status), response);
  if (action === "workspace" && method === "GET") return sendRunWorkspace(context.pool, run.id, response);
  if (action === "patch" && method === "GET") return sendRunPatch(context.pool, run.id, response);
  if (action === "cancel" && method === "POST")
    return sendJson(response, 200, runJson(await cancelRun(context, run)));
  throw notFound(url.pathname);
}

/** v1's create: `prompt.text`, `model.id`, `repos[0].url` (and `startingRef`), `name`. */
async function createAgent(
  context: Context,
  account: ApiKey,
  body: Record<string, unknown>,
  extras: RunExtras,
) {
  const prompt = requestPrompt(body);
  const text = prompt.text;
  const model = body.model as { id?: unknown } | undefined;
  if (model !== undefined && typeof model?.id !== "string")
    throw new ApiError(400, "invalid_request", "model.id must be a string.");
  if (body.webhook !== undefined)
    throw new ApiError(
      400,
      "invalid_request",
      "Webhooks are part of v0 (the reference's v1 has none yet): launch the agent with POST /v0/agents.",
    );
  const repos = body.repos as { url?: unknown; ref?: unknown; startingRef?: unknown }[] | undefined;
  if (repos !== undefined && !Array.isArray(repos))
    throw new ApiError(400, "invalid_request", "repos must be an array.");
  if (repos && repos.length > 1)
    throw new ApiError(400, "invalid_request", "cairn serve works on one repository per agent (repos[0]).");
  // The client may choose the agent's id (the reference's clients do, to recognise their agent
  // after a create whose answer was lost): `bc-<uuid>`; one that exists is refused (409).
  const chosen = optionalString(body.agentId, "agentId");
  if (chosen !== undefined && !AGENT_ID.test(chosen))
    throw new ApiError(400, "invalid_request", "agentId must be bc-<uuid>.");
  const id = chosen ?? `bc-${randomUuid()}`;
  // The reference's clients name the ref to start from `startingRef`; `ref` is cairn's older name.
  const startingRef = optionalString(repos?.[0]?.startingRef, "repos[0].startingRef");
  const ref = optionalString(repos?.[0]?.ref, "repos[0].ref");
  if (startingRef !== undefined && ref !== undefined && startingRef !== ref)
    throw new ApiError(
      400,
      "invalid_request",
      "repos[0].startingRef and repos[0].ref name different refs: give one.",
    );
  const source: AgentSource = resolveSource(
    context,
    id,
    optionalString(repos?.[0]?.url, "repos[0].url"),
    startingRef ?? ref,
  );
  const created = await createAgentRecord(context, account, id, {
    text,
    ...(typeof body.name === "string" ? { name: body.name } : {}),
    ...(model ? { model: model.id as string } : {}),
    source,
    extras: withPromptImages(extras, prompt),
  });
  const warnings = unappliedCreateFields(body);
  return {
    agent: agentJson(created.agent),
    run: runJson(created.run),
    ...(warnings.length > 0 ? { warnings } : {}),
  };
}

const AGENT_ID = /^bc-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Fields of the reference's v1 create that its clients send and cairn serve does not apply, each
 * with the reason, said in the answer's `warnings` (as v0's launch says `autoCreatePr`): nothing
 * a client asks for is dropped without a word. Given with the value that asks for nothing, a field
 * is not reported.
 */
function unappliedCreateFields(body: Record<string, unknown>): string[] {
  const reasons: [string, boolean, string][] = [
    ["autoCreatePR", body.autoCreatePR === true, "cairn serve has no forge to open a pull request on"],
    [
      "workOnCurrentBranch",
      body.workOnCurrentBranch === true,
      "a run works in its own clone of the repository; nothing is pushed",
    ],
    ["env", body.env !== undefined, "the workers' machines are the environment a run works in"],
    ["mode", body.mode !== undefined && body.mode !== "agent", "a run works in bypassPermissions mode"],
    [
      "mcpServers",
      Array.isArray(body.mcpServers) && body.mcpServers.length > 0,
      "MCP servers come from the workspace's config",
    ],
  ];
  return reasons
    .filter(([, given]) => given)
    .map(([field, , reason]) => `${field} is not applied by cairn serve: ${reason}.`);
}

function agentJson(agent: AgentView) {
  return {
    id: agent.id,
    name: agent.name,
    status: agent.archived_at ? "ARCHIVED" : "ACTIVE",
    archived: Boolean(agent.archived_at),
    ...(agent.latest_run_id ? { latestRunId: agent.latest_run_id } : {}),
    ...(agent.model ? { model: { id: agent.model } } : {}),
    source: {
      repository: withoutCredentials(agent.repository ?? null) ?? agent.cwd,
      ...(agent.ref ? { ref: agent.ref } : {}),
    },
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
