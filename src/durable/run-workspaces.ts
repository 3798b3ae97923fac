import type { Pool } from "pg";

/**
 * A run's git workspace as the database knows it (docs/serve.md, "Workspaces that outlive
 * workers"): the run branch and the remote its checkpoints are pushed to, the commit the run
 * started from, its last checkpoint, whether that was pushed (or why not), and, once the run has
 * ended, its patch (`git diff --binary` from the start commit to the last checkpoint). The worker
 * writes it; the API reads it (`GET …/runs/{runId}/workspace`, `…/patch`).
 */
export const RUN_WORKSPACES_SCHEMA = `
CREATE TABLE IF NOT EXISTS cairn.run_workspaces (
  run_id text PRIMARY KEY REFERENCES cairn.runs(id) ON DELETE CASCADE,
  branch text NOT NULL, remote text, start_sha text NOT NULL, commit_sha text NOT NULL,
  pushed_sha text, push_error text, patch text, ended boolean NOT NULL DEFAULT false,
  updated_at timestamptz NOT NULL DEFAULT now());
`;

export type RunWorkspaceRow = {
  run_id: string;
  branch: string;
  remote: string | null;
  start_sha: string;
  commit_sha: string;
  pushed_sha: string | null;
  push_error: string | null;
  patch: string | null;
  ended: boolean;
};

/** The run's workspace as its first execution found it (idempotent: a re-run finds the row). */
export async function recordRunWorkspace(
  pool: Pool,
  runId: string,
  plan: { branch: string; remote: string | null; startSha: string },
): Promise<void> {
  await pool.query(
    `INSERT INTO cairn.run_workspaces (run_id, branch, remote, start_sha, commit_sha)
     VALUES ($1, $2, $3, $4, $4) ON CONFLICT (run_id) DO NOTHING`,
    [runId, plan.branch, plan.remote, plan.startSha],
  );
}

/** A checkpoint made: its commit, and the push's outcome (pushed, or the reason it was not). */
export async function recordCheckpoint(
  pool: Pool,
  runId: string,
  checkpoint: { sha: string; pushed: boolean; pushError?: string },
): Promise<void> {
  await pool.query(
    `UPDATE cairn.run_workspaces SET commit_sha = $2,
       pushed_sha = CASE WHEN $3 THEN $2 ELSE pushed_sha END, push_error = $4, updated_at = now()
     WHERE run_id = $1`,
    [runId, checkpoint.sha, checkpoint.pushed, checkpoint.pushError ?? null],
  );
}

/** The run has ended: its patch is kept for the API. */
export async function recordPatch(pool: Pool, runId: string, patch: string): Promise<void> {
  await pool.query(
    "UPDATE cairn.run_workspaces SET patch = $2, ended = true, updated_at = now() WHERE run_id = $1",
    [runId, patch],
  );
}

export async function runWorkspaceOf(pool: Pool, runId: string): Promise<RunWorkspaceRow | undefined> {
  const result = await pool.query("SELECT * FROM cairn.run_workspaces WHERE run_id = $1", [runId]);
  return result.rows[0] as RunWorkspaceRow | undefined;
}

/**
 * The last checkpoint of the agent's latest ended run other than `runId`: where its next run
 * starts, on whichever machine runs it.
 */
export async function previousRunCommit(pool: Pool, agentId: string, runId: string): Promise<string | null> {
  const result = await pool.query(
    `SELECT w.commit_sha FROM cairn.run_workspaces w JOIN cairn.runs r ON r.id = w.run_id
     WHERE r.agent_id = $1 AND r.id <> $2 AND w.ended ORDER BY r.number DESC LIMIT 1`,
    [agentId, runId],
  );
  return (result.rows[0]?.commit_sha as string | undefined) ?? null;
}
