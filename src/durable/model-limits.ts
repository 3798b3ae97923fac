import { existsSync, readFileSync } from "node:fs";
import type { Pool } from "pg";
import type { LimitScope } from "../engine/provider.js";
import { sleep } from "../engine/retry.js";
import { randomUuid } from "../util/random-id.js";
import { whileDatabaseAway } from "./database-outage.js";
import { inTransaction } from "./transaction.js";

/** A limit on the model requests of one provider, or one model of it, over all workers of a deployment. */
export type ModelLimit = {
  /** Requests in flight at once (from the request until its answer has streamed). */
  concurrency?: number;
  /** Requests started in any 60 seconds. */
  requestsPerMinute?: number;
};

/** `--model-limits`: limits by `provider` (every model of it) or `provider/model` (that model). */
export type ModelLimits = Readonly<Record<string, ModelLimit>>;

/**
 * The shared state: requests in flight (leases, each renewed while its request lasts, so a worker
 * that dies frees its places when they expire), the starts of the last minute, the pauses a 429
 * set, and who is waiting for what (for the operator: `SELECT * FROM cairn.model_waits`).
 * Keys are `<account fingerprint>:<limit name>`: the API key itself is never stored.
 */
export const MODEL_LIMITS_SCHEMA = `
CREATE TABLE IF NOT EXISTS cairn.model_leases (
  id text NOT NULL, limit_key text NOT NULL, worker text NOT NULL, run_id text,
  expires_at timestamptz NOT NULL, PRIMARY KEY (id, limit_key));
CREATE INDEX IF NOT EXISTS model_leases_key ON cairn.model_leases (limit_key);
CREATE TABLE IF NOT EXISTS cairn.model_request_starts (limit_key text NOT NULL, at timestamptz NOT NULL);
CREATE INDEX IF NOT EXISTS model_request_starts_key ON cairn.model_request_starts (limit_key, at);
CREATE TABLE IF NOT EXISTS cairn.model_pauses (
  scope text PRIMARY KEY, until timestamptz NOT NULL, reason text NOT NULL);
CREATE TABLE IF NOT EXISTS cairn.model_waits (
  id text PRIMARY KEY, worker text NOT NULL, run_id text, scope text NOT NULL, reason text NOT NULL,
  since timestamptz NOT NULL DEFAULT now());
`;

/** How long a lease lasts unless renewed; renewed at a third of it while its request is in flight. */
const LEASE_SECONDS = 30;
/** How often a waiting request looks again (sooner when a pause or a minute's window ends first). */
const POLL_MS = 200;
/** A 429 without Retry-After pauses the account's requests to that model this long. */
const DEFAULT_PAUSE_MS = 2000;
/** A Retry-After is honoured up to this, as the engine's own retry caps it (src/engine/retry.ts). */
const MAX_PAUSE_MS = 60_000;

/**
 * `--model-limits`: a JSON object, given inline or as the path of a file holding it, such as
 * `{"anthropic": {"concurrency": 8}, "anthropic/claude-sonnet-5-5": {"requestsPerMinute": 50}}`.
 * Anything it cannot apply is refused (thrown as `bad`), never ignored.
 */
export function parseModelLimits(text: string, bad: (message: string) => Error): ModelLimits {
  const source = text.trim().startsWith("{")
    ? text
    : existsSync(text)
      ? readFileSync(text, "utf8")
      : undefined;
  if (source === undefined) throw bad(`--model-limits: ${text} is neither a JSON object nor a file`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(source);
  } catch (error) {
    throw bad(`--model-limits is not JSON: ${(error as Error).message}`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
    throw bad('--model-limits must be an object such as {"anthropic": {"concurrency": 4}}');
  const limits: Record<string, ModelLimit> = {};
  for (const [name, value] of Object.entries(parsed)) {
    if (!/^[a-z0-9-]+(\/.+)?$/.test(name))
      throw bad(
        `--model-limits: "${name}" is not a provider or provider/model (such as anthropic/claude-sonnet-5-5)`,
      );
    if (typeof value !== "object" || value === null)
      throw bad(`--model-limits: "${name}" must be an object of concurrency and requestsPerMinute`);
    const limit: ModelLimit = {};
    for (const [field, n] of Object.entries(value)) {
      if (field !== "concurrency" && field !== "requestsPerMinute")
        throw bad(`--model-limits: "${name}" has ${field}; a limit takes concurrency and requestsPerMinute`);
      if (typeof n !== "number" || !Number.isInteger(n) || n < 1)
        throw bad(`--model-limits: "${name}".${field} must be a whole number of at least 1`);
      limit[field] = n;
    }
    limits[name] = limit;
  }
  return limits;
}

/**
 * What a model request holds while it is in flight: released when its answer has ended (again:
 * nothing more), resolving once the place is free for the other workers.
 */
export type ModelLease = { release(): Promise<void> };

/**
 * The deployment's model limits, kept in PostgreSQL so that every worker on every machine counts
 * against the same numbers. Each worker holds one; `acquire` is called before each model request.
 */
export class ModelLimiter {
  constructor(
    private readonly pool: Pool,
    private readonly worker: string,
    private readonly limits: ModelLimits,
  ) {}

  /** A worker starting again under its name frees what its previous life held. */
  async clearOwn(): Promise<void> {
    await this.pool.query("DELETE FROM cairn.model_leases WHERE worker = $1", [this.worker]);
    await this.pool.query("DELETE FROM cairn.model_waits WHERE worker = $1", [this.worker]);
  }

  /**
   * Waits until a request of `scope` to `model` may start: no pause set by a 429 of that account
   * and model, and room under each limit that names the provider or the model. Rejects when
   * `signal` aborts (a cancelled run does not keep waiting).
   */
  async acquire(scope: LimitScope, model: string, runId: string, signal: AbortSignal): Promise<ModelLease> {
    const pause = pauseScope(scope, model);
    const matched = [`${scope.provider}/${model}`, scope.provider]
      .filter((name) => this.limits[name] !== undefined)
      .map((name) => ({ key: `${scope.account}:${name}`, name, limit: this.limits[name]! }))
      .sort((a, b) => (a.key < b.key ? -1 : 1));
    const id = randomUuid();
    let waiting: string | undefined;
    try {
      while (true) {
        // While the database is away the request waits for it, as the run's other queries do.
        const blocked = await whileDatabaseAway(() => this.tryStart(id, pause, matched, runId));
        if (!blocked) break;
        if (blocked.reason !== waiting) {
          waiting = blocked.reason;
          await this.pool.query(
            `INSERT INTO cairn.model_waits (id, worker, run_id, scope, reason) VALUES ($1, $2, $3, $4, $5)
             ON CONFLICT (id) DO UPDATE SET reason = EXCLUDED.reason`,
            [id, this.worker, runId, blocked.scope, blocked.reason],
          );
        }
        await sleep(Math.max(10, Math.min(POLL_MS, blocked.retryInMs)), signal);
      }
    } finally {
      if (waiting) await this.pool.query("DELETE FROM cairn.model_waits WHERE id = $1", [id]).catch(() => {});
    }
    if (!matched.some((entry) => entry.limit.concurrency)) return { release: async () => {} };
    const renew = setInterval(
      () => {
        this.pool
          .query(
            "UPDATE cairn.model_leases SET expires_at = now() + make_interval(secs => $2) WHERE id = $1",
            [id, LEASE_SECONDS],
          )
          .catch(() => {});
      },
      (LEASE_SECONDS * 1000) / 3,
    );
    renew.unref();
    let released: Promise<void> | undefined;
    return {
      release: () => {
        clearInterval(renew);
        // Should the database be away, the lease expires by itself.
        released ??= this.pool.query("DELETE FROM cairn.model_leases WHERE id = $1", [id]).then(
          () => {},
          () => {},
        );
        return released;
      },
    };
  }

  /**
   * A 429 from the provider: every worker's next request of this account to this model waits for
   * its Retry-After (or 2 s), instead of each getting a 429 of its own.
   */
  async rateLimited(scope: LimitScope, model: string, retryAfterMs: number | undefined): Promise<void> {
    const ms = Math.min(MAX_PAUSE_MS, retryAfterMs ?? DEFAULT_PAUSE_MS);
    await this.pool.query(
      `INSERT INTO cairn.model_pauses (scope, until, reason) VALUES ($1, now() + make_interval(secs => $2), $3)
       ON CONFLICT (scope) DO UPDATE SET until = greatest(cairn.model_pauses.until, EXCLUDED.until),
         reason = EXCLUDED.reason`,
      [pauseScope(scope, model), ms / 1000, `429 from ${scope.provider}/${model}`],
    );
  }

  /** One attempt, in one transaction: starts the request (null) or says what it waits for. */
  private async tryStart(
    id: string,
    pause: string,
    matched: { key: string; name: string; limit: ModelLimit }[],
    runId: string,
  ): Promise<{ reason: string; scope: string; retryInMs: number } | null> {
    // A refusal commits too: it wrote nothing but the removal of expired leases and request starts.
    return inTransaction(this.pool, async (client) => {
      const paused = await client.query(
        "SELECT extract(epoch FROM until - now())::float8 * 1000 AS left_ms FROM cairn.model_pauses WHERE scope = $1 AND until > now()",
        [pause],
      );
      if (paused.rowCount) {
        return { reason: "rate-limited (429)", scope: pause, retryInMs: paused.rows[0].left_ms as number };
      }
      for (const { key, name, limit } of matched) {
        // One worker at a time counts and takes a key's places: the count and the insert agree.
        await client.query("SELECT pg_advisory_xact_lock(4242003, hashtext($1))", [key]);
        if (limit.concurrency) {
          await client.query("DELETE FROM cairn.model_leases WHERE limit_key = $1 AND expires_at < now()", [
            key,
          ]);
          const held = await client.query(
            "SELECT count(*)::int AS n FROM cairn.model_leases WHERE limit_key = $1",
            [key],
          );
          if ((held.rows[0].n as number) >= limit.concurrency) {
            return { reason: `concurrency ${limit.concurrency} of ${name}`, scope: key, retryInMs: POLL_MS };
          }
        }
        if (limit.requestsPerMinute) {
          await client.query(
            "DELETE FROM cairn.model_request_starts WHERE limit_key = $1 AND at <= now() - interval '60 seconds'",
            [key],
          );
          const started = await client.query(
            `SELECT count(*)::int AS n, extract(epoch FROM min(at) + interval '60 seconds' - now())::float8 * 1000 AS next_ms
             FROM cairn.model_request_starts WHERE limit_key = $1`,
            [key],
          );
          if ((started.rows[0].n as number) >= limit.requestsPerMinute) {
            return {
              reason: `${limit.requestsPerMinute} requests a minute of ${name}`,
              scope: key,
              retryInMs: started.rows[0].next_ms as number,
            };
          }
        }
      }
      for (const { key, limit } of matched) {
        if (limit.concurrency)
          await client.query(
            `INSERT INTO cairn.model_leases (id, limit_key, worker, run_id, expires_at)
             VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5))`,
            [id, key, this.worker, runId, LEASE_SECONDS],
          );
        if (limit.requestsPerMinute)
          await client.query("INSERT INTO cairn.model_request_starts (limit_key, at) VALUES ($1, now())", [
            key,
          ]);
      }
      return null;
    });
  }
}

/** What a 429 pauses: this account's requests to this model (providers limit per model class). */
function pauseScope(scope: LimitScope, model: string): string {
  return `${scope.account}:${scope.provider}/${model}`;
}
