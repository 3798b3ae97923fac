import type { IncomingMessage, ServerResponse } from "node:http";
import type { RunRow } from "../durable/database.js";
import type { RunExtras } from "../durable/run-extras.js";
import { catalogModels } from "../providers/offered-models.js";
import { randomUuid } from "../util/random-id.js";
import {
  type AgentView,
  agentOf,
  type Context,
  cancelRun,
  createAgentRecord,
  deleteAgent,
  enqueueRun,
  latestRunOf,
  listAgentRows,
  resolveSource,
} from "./agent-records.js";
import type { ApiKey } from "./api-keys.js";
import { ApiError, methodNotAllowed, notFound, optionalString, readJson, sendJson } from "./http-json.js";
import { requestPrompt, withPromptImages } from "./prompt-images.js";
import { runPriorityOf } from "./run-report.js";
import { v0AgentJson } from "./v0-shapes.js";

/** The reference asks webhook secrets of at least this length (its launch page's example says so). */
const MIN_SECRET_LENGTH = 32;

/**
 * v0 of the API, the reference's "Background Agents API", for the clients still on it: the same
 * durable agents and runs as v1, shown v0's way (an agent with a status; no runs). docs/serve.md
 * lists the routes and where each shape comes from.
 */
export async function handleV0(
  context: Context,
  account: ApiKey,
  parts: string[],
  url: URL,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const method = request.method ?? "GET";
  const [resource, agentId, action] = parts;
  if (parts.length === 1 && method === "GET") {
    if (resource === "me")
      return sendJson(response, 200, {
        apiKeyName: account.name,
        createdAt: account.createdAt.toISOString(),
      });
    if (resource === "models")
      return sendJson(response, 200, { models: catalogModels().map((model) => model.value) });
    // The reference lists the GitHub repositories its app can reach; cairn has no forge account.
    if (resource === "repositories") return sendJson(response, 200, { repositories: [] });
  }
  if (resource !== "agents") throw notFound(url.pathname);
  if (!agentId) {
    if (method === "POST")
      return sendJson(response, 200, await launch(context, account, await readJson(request)));
    if (method === "GET") {
      const page = await listAgentRows(context, account, url.searchParams);
      const agents = [];
      for (const row of page.rows) agents.push(v0AgentJson(context, row, await latestRunOf(context, row)));
      return sendJson(response, 200, { agents, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) });
    }
    throw methodNotAllowed(method, url.pathname);
  }
  const agent = await agentOf(context, account, agentId);
  if (!action) {
    if (method === "GET")
      return sendJson(response, 200, v0AgentJson(context, agent, await latestRunOf(context, agent)));
    if (method === "DELETE") {
      await deleteAgent(context, agent);
      return sendJson(response, 200, { id: agent.id });
    }
    throw methodNotAllowed(method, url.pathname);
  }
  if (action === "conversation" && method === "GET")
    return sendJson(response, 200, { id: agent.id, messages: await conversation(context, agent) });
  if (action === "followup" && method === "POST") {
    const body = await readJson(request);
    const prompt = requestPrompt(body);
    await enqueueRun(context, agent, prompt.text, withPromptImages(priorityExtras(body), prompt));
    return sendJson(response, 200, { id: agent.id });
  }
  if (action === "stop" && method === "POST") {
    const latest = await latestRunOf(context, agent);
    if (latest) await cancelRun(context, latest);
    return sendJson(response, 200, { id: agent.id });
  }
  throw notFound(url.pathname);
}

/** v0's launch: `prompt`, `source: {repository, ref}`, `model`, `target: {autoCreatePr, branchName}`, `webhook: {url, secret}`. */
async function launch(context: Context, account: ApiKey, body: Record<string, unknown>) {
  const prompt = requestPrompt(body);
  const text = prompt.text;
  const source = (body.source ?? {}) as { repository?: unknown; ref?: unknown };
  if (typeof source !== "object") throw new ApiError(400, "invalid_request", "source must be an object.");
  const repository = optionalString(source.repository, "source.repository");
  if (repository === undefined) throw new ApiError(400, "invalid_request", "source.repository is required.");
  const ref = optionalString(source.ref, "source.ref");
  const model = optionalString(body.model, "model");
  const target = (body.target ?? {}) as { autoCreatePr?: unknown; branchName?: unknown };
  const branchName = optionalString(target.branchName, "target.branchName");
  if (target.autoCreatePr !== undefined && typeof target.autoCreatePr !== "boolean")
    throw new ApiError(400, "invalid_request", "target.autoCreatePr must be a boolean.");
  const autoCreatePr = target.autoCreatePr === true;
  const webhook = webhookOf(body.webhook);
  const id = `bc-${randomUuid()}`;
  const resolved = resolveSource(context, id, repository, ref);
  if ((branchName || autoCreatePr) && !resolved.clone)
    throw new ApiError(
      400,
      "invalid_request",
      "target.branchName and target.autoCreatePr need a workspace cairn clones (a repository URL, or a local path with a ref); a local directory is worked in place.",
    );
  const created = await createAgentRecord(context, account, id, {
    text,
    ...(model ? { model } : {}),
    source: resolved,
    // A pull request is asked for: the work goes on a branch of its own, as the reference names one.
    ...(branchName || autoCreatePr ? { branchName: branchName ?? `cairn/${id}` } : {}),
    autoCreatePr,
    ...(webhook ? { webhook } : {}),
    extras: withPromptImages(priorityExtras(body), prompt),
  });
  const answer: Record<string, unknown> = v0AgentJson(context, created.agent, created.run);
  if (autoCreatePr)
    answer.warnings = [
      `cairn serve cannot open a pull request (it has no forge to open one on): the agent's work is committed on branch ${created.agent.branch_name} of its workspace (${created.agent.cwd}) after each step and pushed (to the workers' --workspace-remote, else to the repository), and no prUrl will be set.`,
    ];
  return answer;
}

function webhookOf(value: unknown): { url: string; secret: string | null } | undefined {
  if (value === undefined || value === null) return undefined;
  const webhook = value as { url?: unknown; secret?: unknown };
  const url = optionalString(webhook.url, "webhook.url");
  if (!url || !/^https?:\/\//.test(url))
    throw new ApiError(400, "invalid_request", "webhook.url must be an http(s) URL.");
  const secret = optionalString(webhook.secret, "webhook.secret");
  if (secret !== undefined && secret.length < MIN_SECRET_LENGTH)
    throw new ApiError(
      400,
      "invalid_request",
      `webhook.secret must be at least ${MIN_SECRET_LENGTH} characters long.`,
    );
  return { url, secret: secret ?? null };
}

/**
 * The conversation as v0 shows it: each run's prompt (`user_message`), then the text the model
 * wrote during the run (`assistant_message`, one per text block), oldest first.
 */
async function conversation(context: Context, agent: AgentView) {
  const runs = (
    await context.pool.query("SELECT * FROM cairn.runs WHERE agent_id = $1 ORDER BY number", [agent.id])
  ).rows as RunRow[];
  const texts = await context.pool.query(
    `SELECT e.run_id, e.seq, e.event->'block'->>'text' AS text FROM cairn.run_events e
     JOIN cairn.runs r ON r.id = e.run_id
     WHERE r.agent_id = $1 AND e.type = 'assistant_block' AND e.event->'block'->>'type' = 'text'
     ORDER BY e.run_id, e.seq`,
    [agent.id],
  );
  const messages: { id: string; type: "user_message" | "assistant_message"; text: string }[] = [];
  for (const run of runs) {
    messages.push({ id: `msg-${run.id}-0`, type: "user_message", text: run.prompt });
    for (const row of texts.rows)
      if (row.run_id === run.id && row.text)
        messages.push({ id: `msg-${run.id}-${row.seq}`, type: "assistant_message", text: row.text });
  }
  return messages;
}

/** v0 takes cairn's `priority` too (0–100, higher starts first); it has no `report`. */
function priorityExtras(body: Record<string, unknown>): RunExtras {
  const priority = runPriorityOf(body.priority);
  return { report: false, ...(priority !== undefined ? { priority } : {}) };
}
