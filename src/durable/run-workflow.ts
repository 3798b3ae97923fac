import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Pool } from "pg";
import type { RunEndEvent } from "../engine/events.js";
import { Session } from "../session/session.js";
import { JsonlTranscriptStore } from "../sessions/store.js";
import { builtinTools } from "../tools/index.js";
import { randomUuid } from "../util/random-id.js";
import {
  type AgentRow,
  commitTranscript,
  RUN_STATUS,
  type RunRow,
  storeEvents,
  transcriptLines,
} from "./database.js";
import { whileDatabaseAway } from "./database-outage.js";
import { DurableSteps, type RunStep } from "./durable-steps.js";
import { git, prepareWorkspace, type WorkspaceSettings } from "./git-workspace.js";
import { limitedProvider } from "./limited-provider.js";
import type { ModelLimiter } from "./model-limits.js";
import { envWithTraceContext, runExtrasOf, runPrompt, writeRunReport } from "./run-extras.js";
import { recordCheckpoint, recordPatch, recordRunWorkspace } from "./run-workspaces.js";
import { WorkspaceCheckpoints, type WorkspacePlan } from "./workspace-checkpoints.js";

/** How often a running run looks whether it was cancelled. */
const CANCEL_POLL_MS = 500;

export type RunWorkflowDeps = {
  pool: Pool;
  runStep: RunStep;
  /** Where each execution lays out its transcript (the worker's own scratch directory). */
  scratch: string;
  env: NodeJS.ProcessEnv;
  /** The deployment's model limits, shared by all workers (src/durable/model-limits.ts). */
  limiter: ModelLimiter;
  /** Where this worker keeps agents' clones and pushes their checkpoints (`--workspaces`, `--workspace-remote`). */
  workspace?: WorkspaceSettings;
  /** Whether this worker still drives the run (another may have taken it over). */
  drivesRun?: (runId: string) => Promise<boolean>;
  /** A line for the worker's stderr (a push that failed). */
  warn?: (line: string) => void;
};

/**
 * One run (one prompt of an agent) as a durable workflow: the session controller runs the turn,
 * its model calls and tool batches as checkpointed steps (DurableSteps). Run again after its worker
 * died, it replays the completed steps from their records and goes on from there. Its events are
 * stored at their numbers as each step starts and at the end, and its transcript lines once, when it
 * ends: whatever execution stores them, they are the same, with no gap and no duplicate. While the
 * database is away, each of these waits for it (the run pauses) rather than failing the run.
 *
 * The session's transcript is kept as the JSONL store keeps it, in a temporary cairn home of this
 * execution, laid out from the stored lines before the run and stored back after it.
 */
export async function runWorkflow(deps: RunWorkflowDeps, runId: string): Promise<string> {
  const { pool, runStep } = deps;
  const started = await runStep(() => whileDatabaseAway(() => startRun(pool, runId)), { name: "start" });
  if (!started) return "not-run";
  try {
    return await driveRun(deps, runId, started);
  } catch (error) {
    // The run cannot go on (its model cannot be used, the workspace is gone…): it ends ERROR with
    // the reason, so the agent takes follow-ups again. A cancelled run's workflow cannot record
    // another step; the API has already marked it CANCELLED.
    const message = error instanceof Error ? error.message : String(error);
    await runStep(() => whileDatabaseAway(() => failRun(pool, runId, message)), { name: "fail" }).catch(
      () => {},
    );
    return RUN_STATUS.error;
  }
}

async function driveRun(
  deps: RunWorkflowDeps,
  runId: string,
  { run, agent: stored }: { run: RunRow; agent: AgentRow },
): Promise<string> {
  const { pool, runStep } = deps;
  // An agent on a git repository works in its clone (made by the first worker to run it on this
  // machine), at its previous run's last checkpoint; a failure ends the run ERROR.
  const prepared = await whileDatabaseAway(() =>
    prepareWorkspace(pool, stored, runId, deps.env, deps.workspace),
  );
  const agent = prepared ? { ...stored, cwd: prepared.cwd } : stored;
  const checkpoints = prepared ? await workspaceCheckpoints(deps, runId, run, prepared) : undefined;
  const home = mkdtempSync(join(deps.scratch, "run-"));
  try {
    const store = new JsonlTranscriptStore({ cairnHome: home });
    const existing = await whileDatabaseAway(() => transcriptLines(pool, agent.session_id));
    const file = store.locate(agent.session_id, agent.cwd);
    if (existing.length > 0) {
      mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
      writeFileSync(file, `${existing.join("\n")}\n`, { mode: 0o600 });
    }
    const pending: { seq: number; event: { type: string } }[] = [];
    const flush = () => {
      const batch = pending.splice(0);
      return whileDatabaseAway(() => storeEvents(pool, runId, batch));
    };
    const steps = new DurableSteps(runStep, randomUuid(), flush, checkpoints, (provider) =>
      limitedProvider(provider, deps.limiter, runId),
    );
    const extras = await runExtrasOf(pool, runId);
    const env = envWithTraceContext(deps.env, extras);
    const session = new Session({
      cwd: agent.cwd,
      env,
      store,
      assembly: () => ({
        cwd: agent.cwd,
        env,
        ...(agent.model ? { model: agent.model } : {}),
        tools: builtinTools(),
        steps,
      }),
      // A cloud agent works alone: nobody is there to answer a permission question.
      permissions: { mode: "bypassPermissions", answered: false, forceHint: "", source: "cairn serve" },
      opening: existing.length > 0 ? { resume: agent.session_id } : { sessionId: agent.session_id },
    });
    session.watch((seq, event) => {
      if (event.type !== "stream") pending.push({ seq, event });
    });
    // A cancel (the API marks the run CANCELLED) reaches the step under way within a second: the
    // session is interrupted, its model request and tool processes end, and the turn ends aborted.
    const cancelWatch = setInterval(() => {
      pool
        .query("SELECT status FROM cairn.runs WHERE id = $1", [runId])
        .then((result) => {
          if (result.rows[0]?.status === RUN_STATUS.cancelled)
            session.interrupt(new Error("The run was cancelled."));
        })
        .catch(() => {});
    }, CANCEL_POLL_MS);
    let end: RunEndEvent | undefined;
    try {
      const turn = session.prompt(runPrompt(run.prompt, extras));
      while (true) {
        const next = await turn.next();
        if (next.done) {
          end = next.value;
          break;
        }
      }
    } finally {
      clearInterval(cancelWatch);
      await session.close();
    }
    await flush();
    const linesOf = (path: string) =>
      readFileSync(path, "utf8")
        .split("\n")
        .filter((line) => line !== "");
    const lines = linesOf(file);
    // The run's subagents' transcripts (their sidechains), stored with the run's own lines.
    const subagents = (await store.subagents(agent.session_id, agent.cwd)).map((agentId) => ({
      agentId,
      lines: linesOf(store.locateSubagent(agent.session_id, agent.cwd, agentId)),
    }));
    // Both are idempotent by themselves (the transcript is stored once per run, a run ends once), so
    // they are not DBOS steps: a cancelled workflow can run no further step, and its interrupted
    // turn's transcript is kept all the same, for the agent's next run.
    await whileDatabaseAway(() => commitTranscript(pool, runId, agent.session_id, lines, subagents));
    if (checkpoints) {
      // The run's artifact: its branch, pushed, and its patch from the commit it started from.
      const { patch } = await checkpoints.finish();
      await whileDatabaseAway(() => recordPatch(pool, runId, patch));
    }
    if (extras.report) await whileDatabaseAway(() => writeRunReport(pool, runId, file));
    const status = end && !end.isError ? RUN_STATUS.finished : RUN_STATUS.error;
    await whileDatabaseAway(() => finishRun(pool, runId, status, end));
    return status;
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

/**
 * The run's git workspace, checkpointed after each tool step. The branch, the remote and the
 * commit the run starts from are recorded as a step of their own: an execution that resumes the
 * run on another worker uses the same ones, whatever its own settings.
 */
async function workspaceCheckpoints(
  deps: RunWorkflowDeps,
  runId: string,
  run: RunRow,
  prepared: { cwd: string; branch: string; remote: string | null },
): Promise<WorkspaceCheckpoints> {
  const { pool, env } = deps;
  const plan = await deps.runStep(
    async (): Promise<WorkspacePlan> => ({
      branch: prepared.branch,
      remote: prepared.remote,
      startSha: (await git(env, prepared.cwd, ["rev-parse", "HEAD"])).trim(),
    }),
    { name: "workspace" },
  );
  await whileDatabaseAway(() => recordRunWorkspace(pool, runId, plan));
  return new WorkspaceCheckpoints({
    cwd: prepared.cwd,
    env,
    plan,
    subject: run.prompt.split("\n")[0]!.slice(0, 72),
    body: `Checkpoint of run ${runId} of agent ${run.agent_id}, committed by cairn serve.`,
    ...(deps.drivesRun ? { stillDrives: () => whileDatabaseAway(() => deps.drivesRun!(runId)) } : {}),
    onCheckpoint: (checkpoint) => whileDatabaseAway(() => recordCheckpoint(pool, runId, checkpoint)),
    onPushError: (message) =>
      deps.warn?.(`cairn worker: run ${runId}: the workspace checkpoint was not pushed: ${message}`),
  });
}

/** Marks the run as running; null when it was cancelled before a worker took it. */
async function startRun(pool: Pool, runId: string): Promise<{ run: RunRow; agent: AgentRow } | null> {
  const runs = await pool.query(
    "UPDATE cairn.runs SET status = $2, updated_at = now() WHERE id = $1 AND status IN ($2, $3) RETURNING *",
    [runId, RUN_STATUS.running, RUN_STATUS.queued],
  );
  const run = runs.rows[0] as RunRow | undefined;
  if (!run) return null;
  const agents = await pool.query("SELECT * FROM cairn.agents WHERE id = $1", [run.agent_id]);
  return { run, agent: agents.rows[0] as AgentRow };
}

async function finishRun(
  pool: Pool,
  runId: string,
  status: string,
  end: RunEndEvent | undefined,
): Promise<void> {
  await pool.query(
    "UPDATE cairn.runs SET status = $2, result = $3, error = $4, updated_at = now() WHERE id = $1 AND status = $5",
    [
      runId,
      status,
      end?.finalText ?? null,
      end?.isError ? end.errors.join("\n") || end.subtype : null,
      RUN_STATUS.running,
    ],
  );
}

async function failRun(pool: Pool, runId: string, message: string): Promise<void> {
  await pool.query(
    "UPDATE cairn.runs SET status = $2, error = $3, updated_at = now() WHERE id = $1 AND status = $4",
    [runId, RUN_STATUS.error, message, RUN_STATUS.running],
  );
}
