import type { Pool } from "pg";
import { inTransaction } from "./transaction.js";

export type TakeoverOptions = {
  pool: Pool;
  /** This worker's name (its DBOS executor id). */
  id: string;
  /** A worker whose heartbeat is older than this is dead: a live worker takes over its runs. */
  deadAfterMs: number;
  /**
   * Puts the runs a dead worker had under way back on their queue (DBOS's recovery of that
   * executor's pending workflows), for any worker to take.
   */
  recover: (deadWorker: string) => Promise<unknown>;
};

export type Heartbeats = { stop(): Promise<void> };

/**
 * Each worker writes a heartbeat into `cairn.workers`, and takes over the runs of a worker whose
 * heartbeat stopped `deadAfterMs` ago: a worker that dies and never comes back (its machine is
 * gone) does not leave its runs waiting for a worker of its name.
 *
 * The takeover holds the dead worker's row locked while DBOS puts its runs back on the queue, so a
 * worker of that name starting again meanwhile waits for it (`beat()` blocks on the row) and does not
 * run them too. Two workers never drive one run at once: DBOS stamps each execution of a workflow
 * with an owner token when a worker dequeues it, and an execution whose token was replaced can
 * record no further step. A worker takes over others only after its own heartbeat has been written
 * without a break for `deadAfterMs`: after a database outage, when every heartbeat is stale, the
 * workers beat again before any of them judges the others dead.
 */
export async function startHeartbeats(options: TakeoverOptions): Promise<Heartbeats> {
  const { pool, id, deadAfterMs } = options;
  const beatEveryMs = Math.min(5000, Math.max(200, Math.floor(deadAfterMs / 4)));
  // The first beat happens before the worker takes runs (and waits for a takeover of its name).
  await beat(pool, id);
  let connectedSince = Date.now();
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const tick = async () => {
    try {
      await beat(pool, id);
    } catch {
      // The database is away: no heartbeat, no takeover, until it is back.
      connectedSince = Number.POSITIVE_INFINITY;
      return;
    }
    if (connectedSince === Number.POSITIVE_INFINITY) connectedSince = Date.now();
    if (Date.now() - connectedSince < deadAfterMs) return;
    try {
      while (!stopped && (await takeOverOne(options))) {}
    } catch {
      // Tried again at the next beat.
    }
  };
  const schedule = () => {
    timer = setTimeout(() => {
      running = tick().finally(() => {
        if (!stopped) schedule();
      });
    }, beatEveryMs);
    timer.unref();
  };
  schedule();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}

async function beat(pool: Pool, id: string): Promise<void> {
  await pool.query(
    `INSERT INTO cairn.workers (id) VALUES ($1)
     ON CONFLICT (id) DO UPDATE SET heartbeat_at = now()`,
    [id],
  );
}

/** Takes over one dead worker's runs; false when there is none. */
async function takeOverOne({ pool, id, deadAfterMs, recover }: TakeoverOptions): Promise<boolean> {
  return inTransaction(pool, async (client) => {
    const dead = await client.query(
      `SELECT id FROM cairn.workers
       WHERE id <> $1 AND heartbeat_at < now() - make_interval(secs => $2::double precision / 1000)
       ORDER BY heartbeat_at LIMIT 1 FOR UPDATE SKIP LOCKED`,
      [id, deadAfterMs],
    );
    const deadWorker = dead.rows[0]?.id as string | undefined;
    if (!deadWorker) return false;
    await recover(deadWorker);
    await client.query("DELETE FROM cairn.workers WHERE id = $1", [deadWorker]);
    return true;
  });
}
