import { createHash } from "node:crypto";
import { mkdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Pool } from "pg";
import { migrate, openPool } from "./database.js";
import { loadDbos, loadDbosExecutor } from "./libraries.js";
import { ModelLimiter, type ModelLimits } from "./model-limits.js";
import { runWorkflow } from "./run-workflow.js";
import { startHeartbeats } from "./takeover.js";

/** The queue runs wait on; the API enqueues each run there, under the run's id. */
export const RUN_QUEUE = "cairn-runs";
/** The workflow's registered name (what the API enqueues). */
export const RUN_WORKFLOW = "cairnRun";
/** DBOS's application name: workflows, queues and recovery are scoped by it. */
export const APPLICATION = "cairn";

export type WorkerOptions = {
  databaseUrl: string;
  /** The environment runs get (provider keys, cairn's variables): the entry's. */
  env: NodeJS.ProcessEnv;
  /**
   * The worker's name (DBOS's executor id), unique among the live workers. A worker started again
   * under the same name resumes the runs it had under way when it died; a worker dead for
   * `takeoverAfterMs` has its runs taken over by a live one (takeover.ts).
   */
  id: string;
  /** Runs this worker drives at once. */
  concurrency: number;
  /**
   * Runs of one API key under way at once over all workers (0: no such limit). The API enqueues
   * each run under its key's partition; DBOS starts queued runs partition by partition, so a key
   * with a hundred runs queued does not hold back another key's one.
   */
  keyConcurrency?: number;
  /**
   * Runs under way at once over the whole deployment, all workers together (0: no such limit;
   * DBOS's global concurrency of the queue). A worker's own `concurrency` and `keyConcurrency`
   * count within it.
   */
  maxRunning?: number;
  /** Limits on model requests by provider or model, over all workers (give every worker the same). */
  modelLimits?: ModelLimits;
  /** Said once on stderr (the entry's): this worker changed the queue limits other workers had set. */
  notice?: (message: string) => void;
  /** Same on every worker of a deployment: a run is resumed only by a worker of its version. */
  version: string;
  /** A worker whose heartbeat stopped this long ago is dead: this worker takes over its runs. */
  takeoverAfterMs: number;
  /**
   * This worker's directory for agents' clones (`--workspaces`; default: where the API put each
   * agent), and the remote their checkpoints are pushed to (`--workspace-remote`, docs/serve.md).
   */
  workspaces?: string;
  workspaceRemote?: string;
};

/** A started worker: `stop()` ends it (the runs under way are resumed by whoever takes them over). */
export type RunningWorker = { stop(): Promise<void> };

/**
 * `cairn worker`: drives queued runs (src/durable/run-workflow.ts) as DBOS workflows on the
 * database's queue. DBOS is loaded here, never by print mode: it and pg cost about 150–300 ms
 * to load (docs/architecture.md, "Durable runs").
 */
export async function startWorker(options: WorkerOptions): Promise<RunningWorker> {
  quietLibraryWarnings();
  // What this worker's executions lay out; a worker killed mid-run leaves its part behind, which
  // the next worker of its name (on the same database) clears: the runs resume from the database.
  const database = createHash("sha256").update(options.databaseUrl).digest("hex").slice(0, 12);
  const scratch = join(tmpdir(), `cairn-worker-${database}-${options.id.replace(/[^A-Za-z0-9._-]/g, "_")}`);
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(scratch, { recursive: true, mode: 0o700 });
  const pool: Pool = await openPool(options.databaseUrl, options.concurrency + 2);
  await migrate(pool);
  const limiter = new ModelLimiter(pool, options.id, options.modelLimits ?? {});
  await limiter.clearOwn();
  const { DBOS } = loadDbos();
  DBOS.registerWorkflow(
    (runId: string) =>
      runWorkflow(
        {
          pool,
          scratch,
          env: options.env,
          limiter,
          runStep: (run, { name }) => DBOS.runStep(run, { name }),
          workspace: {
            ...(options.workspaces ? { workspaces: options.workspaces } : {}),
            ...(options.workspaceRemote ? { remote: options.workspaceRemote } : {}),
          },
          // DBOS marks the run with the worker that dequeued it last (a takeover's new owner); a
          // cancelled run is still this worker's to end.
          drivesRun: async (runId) =>
            (
              await pool.query(
                "SELECT 1 FROM dbos.workflow_status WHERE workflow_uuid = $1 AND executor_id = $2 AND status IN ('PENDING', 'CANCELLED')",
                [runId, options.id],
              )
            ).rowCount === 1,
          warn: (line) => process.stderr.write(`${line}\n`),
        },
        runId,
      ),
    { name: RUN_WORKFLOW },
  );
  DBOS.setConfig({
    name: APPLICATION,
    systemDatabaseUrl: options.databaseUrl,
    executorID: options.id,
    applicationVersion: options.version,
    logLevel: "error",
  });
  // The first heartbeat, before DBOS resumes this worker's own runs: it waits while a live worker
  // is taking them over.
  const executor = loadDbosExecutor();
  const heartbeats = await startHeartbeats({
    pool,
    id: options.id,
    deadAfterMs: options.takeoverAfterMs,
    recover: async (deadWorker) => {
      if (!executor.globalInstance) throw new Error("DBOS is not launched");
      await executor.globalInstance.recoverPendingWorkflows([deadWorker]);
    },
  });
  await DBOS.launch();
  const limits = queueLimits(options);
  const before = await DBOS.retrieveQueue(RUN_QUEUE);
  await DBOS.registerQueue(RUN_QUEUE, limits);
  const changed = before ? changedQueueLimits(before, limits) : undefined;
  if (changed) options.notice?.(changed);
  return {
    async stop() {
      await heartbeats.stop();
      await DBOS.shutdown();
      await pool.end();
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}

/**
 * The run queue's limits. DBOS keeps them in the database, one set for the queue (the last worker to
 * start sets them): every worker of a deployment is given the same values. DBOS refuses a worker or
 * key limit above the global one; neither can be reached past it anyway, so they are capped by it.
 */
function queueLimits(options: WorkerOptions): {
  workerConcurrency: number;
  minPollingIntervalMs: number;
  partitionConcurrency?: number;
  globalConcurrency?: number;
} {
  const cap = (n: number) => (options.maxRunning ? Math.min(n, options.maxRunning) : n);
  return {
    workerConcurrency: cap(options.concurrency),
    minPollingIntervalMs: 200,
    ...(options.keyConcurrency ? { partitionConcurrency: cap(options.keyConcurrency) } : {}),
    ...(options.maxRunning ? { globalConcurrency: options.maxRunning } : {}),
  };
}

/**
 * What this worker's registration changed of the limits the queue had (set by the workers before
 * it), in one line for the user; undefined when nothing changed. Every worker polls with the
 * queue's one set of limits, so a worker started with other values changes them for all.
 */
function changedQueueLimits(
  before: { workerConcurrency?: number; partitionConcurrency?: number; concurrency?: number },
  after: ReturnType<typeof queueLimits>,
): string | undefined {
  const pairs: [string, number | undefined, number | undefined][] = [
    ["--concurrency", before.workerConcurrency, after.workerConcurrency],
    ["--key-concurrency", before.partitionConcurrency, after.partitionConcurrency],
    ["--max-running", before.concurrency, after.globalConcurrency],
  ];
  const changes = pairs
    .filter(([, was, now]) => (was ?? 0) !== (now ?? 0))
    .map(([flag, was, now]) => `${flag} ${was ?? 0} → ${now ?? 0}`);
  if (changes.length === 0) return undefined;
  return `the run queue's limits are one set for all workers, kept in the database: this worker changed them (${changes.join(", ")}) for every worker; give every worker the same values`;
}

/**
 * pg warns (a deprecation, on stderr) about how DBOS queues its queries: not something a worker's
 * user can act on, and a healthy worker prints nothing on stderr.
 */
function quietLibraryWarnings(): void {
  (process as { noDeprecation?: boolean }).noDeprecation = true;
}
