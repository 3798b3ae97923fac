import type { ServerResponse } from "node:http";
import type { Pool } from "pg";
import { type RunWorkspaceRow, runWorkspaceOf } from "../durable/run-workspaces.js";
import { withoutCredentials } from "./agent-records.js";
import { ApiError, sendJson } from "./http-json.js";

/**
 * `GET …/runs/{runId}/workspace`: the run's git workspace (docs/serve.md, "Workspaces that outlive
 * workers"): its branch, the remote its checkpoints go to, the commit it started from, its last
 * checkpoint, and whether that reached the remote (`pushError` says why not).
 */
export async function sendRunWorkspace(pool: Pool, runId: string, response: ServerResponse): Promise<void> {
  sendJson(response, 200, workspaceJson(await workspaceOrNotFound(pool, runId)));
}

/** The answer of `…/workspace` (and the agent's `runs/<runId>.workspace.json` artifact). */
export function workspaceJson(workspace: Omit<RunWorkspaceRow, "run_id" | "patch">) {
  return {
    branch: workspace.branch,
    ...(workspace.remote ? { remote: withoutCredentials(workspace.remote) } : {}),
    startCommit: workspace.start_sha,
    commit: workspace.commit_sha,
    pushed: workspace.remote !== null && workspace.pushed_sha === workspace.commit_sha,
    ...(workspace.push_error ? { pushError: workspace.push_error } : {}),
    ended: workspace.ended,
  };
}

/** `GET …/runs/{runId}/patch`: what the run changed, `git diff --binary` from its start commit (`git apply` takes it). */
export async function sendRunPatch(pool: Pool, runId: string, response: ServerResponse): Promise<void> {
  const workspace = await workspaceOrNotFound(pool, runId);
  if (workspace.patch === null)
    throw new ApiError(409, "conflict", `Run ${runId} has not ended yet; its patch is kept when it does.`);
  response.writeHead(200, {
    "content-type": "text/x-diff; charset=utf-8",
    "content-length": Buffer.byteLength(workspace.patch),
    "content-disposition": `attachment; filename="${runId}.patch"`,
  });
  response.end(workspace.patch);
}

async function workspaceOrNotFound(pool: Pool, runId: string): Promise<RunWorkspaceRow> {
  const workspace = await runWorkspaceOf(pool, runId);
  if (!workspace)
    throw new ApiError(
      404,
      "not_found",
      `Run ${runId} has no git workspace (its agent works in a directory, not a clone, or the run never started).`,
    );
  return workspace;
}
