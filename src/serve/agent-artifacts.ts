import { createHmac, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Pool } from "pg";
import { withoutCredentials } from "./agent-records.js";
import { ApiError, sendJson } from "./http-json.js";
import { workspaceJson } from "./run-workspace.js";

/**
 * An agent's artifacts, as the reference's v1 lists them (docs/serve.md, "Artifacts"): files with a
 * path relative to the agent, listed by `GET /v1/agents/{id}/artifacts` as `{items: [{path,
 * sizeBytes, updatedAt}]}`, and fetched through a download URL that needs no key and expires,
 * `GET /v1/agents/{id}/artifacts/download?path=…` answering `{url, expiresAt}`.
 *
 * cairn's artifacts are what its runs keep in the database: each ended run's patch
 * (`runs/<runId>.patch`), its git workspace (`runs/<runId>.workspace.json`: the branch, remote and
 * commits of `GET …/runs/{runId}/workspace`) and its HTML report when it was asked for
 * (`runs/<runId>.html`).
 */

/** How long a download URL works, as the reference's (15 minutes). */
const DOWNLOAD_TTL_MS = 15 * 60 * 1000;
/** The path under which download URLs are answered, without a key. */
export const ARTIFACT_FILES_PATH = "/v1/artifact-files/";

type Artifact = { path: string; body: string; contentType: string; updatedAt: Date };

async function artifactsOf(pool: Pool, agentId: string): Promise<Artifact[]> {
  const result = await pool.query(
    `SELECT r.id, r.updated_at, w.branch, w.remote, w.start_sha, w.commit_sha, w.pushed_sha, w.push_error,
            w.patch, w.ended, e.report_html
       FROM cairn.runs r
       LEFT JOIN cairn.run_workspaces w ON w.run_id = r.id
       LEFT JOIN cairn.run_extras e ON e.run_id = r.id
      WHERE r.agent_id = $1 ORDER BY r.number`,
    [agentId],
  );
  const artifacts: Artifact[] = [];
  for (const row of result.rows) {
    const updatedAt = row.updated_at as Date;
    if (row.branch !== null) {
      artifacts.push({
        path: `runs/${row.id}.workspace.json`,
        body: `${JSON.stringify(workspaceJson(row), null, 2)}\n`,
        contentType: "application/json",
        updatedAt,
      });
    }
    if (row.patch !== null)
      artifacts.push({
        path: `runs/${row.id}.patch`,
        body: row.patch,
        contentType: "text/x-diff; charset=utf-8",
        updatedAt,
      });
    if (row.report_html !== null)
      artifacts.push({
        path: `runs/${row.id}.html`,
        body: row.report_html,
        contentType: "text/html; charset=utf-8",
        updatedAt,
      });
  }
  return artifacts;
}

export async function sendArtifactList(pool: Pool, agentId: string, response: ServerResponse): Promise<void> {
  const artifacts = await artifactsOf(pool, agentId);
  sendJson(response, 200, {
    items: artifacts.map((artifact) => ({
      path: artifact.path,
      sizeBytes: Buffer.byteLength(artifact.body),
      updatedAt: artifact.updatedAt.toISOString(),
    })),
  });
}

/** The signature of a download URL: the agent's key (as stored) signs the agent, the path and the expiry. */
function signature(keyHash: string, agentId: string, path: string, expires: number): string {
  return createHmac("sha256", keyHash).update(`${agentId}\n${path}\n${expires}`).digest("base64url");
}

export async function sendArtifactDownload(
  pool: Pool,
  agent: { id: string; key_hash: string },
  path: string | null,
  request: IncomingMessage,
  baseUrl: string,
  response: ServerResponse,
): Promise<void> {
  if (!path) throw new ApiError(400, "invalid_request", "path is required: an artifact's path, as listed.");
  const artifacts = await artifactsOf(pool, agent.id);
  if (!artifacts.some((artifact) => artifact.path === path))
    throw new ApiError(404, "not_found", `Agent ${agent.id} has no artifact ${path}.`);
  const expires = Date.now() + DOWNLOAD_TTL_MS;
  // The URL the client reached the API by, so the download goes where the client can reach.
  const origin = request.headers.host ? `http://${request.headers.host}` : baseUrl;
  const query = new URLSearchParams({
    expires: String(expires),
    signature: signature(agent.key_hash, agent.id, path, expires),
  });
  sendJson(response, 200, {
    url: `${origin}${ARTIFACT_FILES_PATH}${encodeURIComponent(agent.id)}/${path}?${query}`,
    expiresAt: new Date(expires).toISOString(),
  });
}

/** `GET /v1/artifact-files/{agentId}/{path}?expires=…&signature=…`: a download URL, answered without a key. */
export async function sendSignedArtifact(pool: Pool, url: URL, response: ServerResponse): Promise<void> {
  const rest = url.pathname.slice(ARTIFACT_FILES_PATH.length);
  const slash = rest.indexOf("/");
  const agentId = decodeURIComponent(rest.slice(0, slash));
  const path = decodeURIComponent(rest.slice(slash + 1));
  const expires = Number(url.searchParams.get("expires"));
  const given = Buffer.from(url.searchParams.get("signature") ?? "");
  const agent = (await pool.query("SELECT key_hash FROM cairn.agents WHERE id = $1", [agentId])).rows[0] as
    | { key_hash: string }
    | undefined;
  const expected = agent ? Buffer.from(signature(agent.key_hash, agentId, path, expires)) : undefined;
  if (
    slash < 0 ||
    !expected ||
    given.length !== expected.length ||
    !timingSafeEqual(given, expected) ||
    !Number.isFinite(expires) ||
    Date.now() > expires
  )
    throw new ApiError(
      403,
      "forbidden",
      "This download URL is not valid, or has expired: ask for a new one.",
    );
  const artifact = (await artifactsOf(pool, agentId)).find((candidate) => candidate.path === path);
  if (!artifact) throw new ApiError(404, "not_found", `Agent ${agentId} has no artifact ${path}.`);
  response.writeHead(200, {
    "content-type": artifact.contentType,
    "content-length": Buffer.byteLength(artifact.body),
    "content-disposition": `attachment; filename="${path.slice(path.lastIndexOf("/") + 1)}"`,
  });
  response.end(artifact.body);
}

/**
 * `GET /v1/repositories`: the reference lists the GitHub repositories its app can reach, as
 * `{items: [{url}]}`. cairn has no forge account and clones any URL a create names, so it lists
 * the repositories the key's agents were created on (without credentials), in the order first used.
 */
export async function sendRepositories(pool: Pool, keyHash: string, response: ServerResponse): Promise<void> {
  const result = await pool.query(
    `SELECT o.repository, min(a.created_at) AS first FROM cairn.agents a
       JOIN cairn.agent_options o ON o.agent_id = a.id
      WHERE a.key_hash = $1 AND o.repository IS NOT NULL AND o.clone
      GROUP BY o.repository ORDER BY first`,
    [keyHash],
  );
  const urls = [...new Set(result.rows.map((row) => withoutCredentials(row.repository) as string))];
  sendJson(response, 200, { items: urls.map((url) => ({ url })) });
}
