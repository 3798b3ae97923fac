import { createHmac } from "node:crypto";
import type { Context } from "./agent-records.js";
import { withoutCredentials } from "./agent-records.js";
import { agentTarget, v0Status } from "./v0-shapes.js";

/** How often a `cairn serve` process looks for webhooks owed. */
const POLL_MS = 250;
/** How long a delivery it took stays its own; past that (its process died) another takes it. */
const LEASE_SECONDS = 30;
/** A receiver that has not answered in this long has failed this attempt. */
const ATTEMPT_TIMEOUT_MS = 10_000;
/** Attempts before a delivery is given up (recorded as failed): about 8.5 minutes of backoff in all. */
export const MAX_ATTEMPTS = 10;
/** The wait after the n-th failed attempt: 1 s, 2 s, 4 s, … at most 10 minutes. */
export const backoffSeconds = (attempt: number): number => Math.min(2 ** (attempt - 1), 600);

/** The signature header's value: `sha256=` and the HMAC-SHA256 of the raw body with the secret. */
export const signature = (secret: string, body: string): string =>
  `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;

type Due = {
  id: string;
  agent_id: string;
  status: string;
  created_at: Date;
  repository: string | null;
  ref: string | null;
  cwd: string;
  branch_name: string | null;
  auto_create_pr: boolean;
  webhook_url: string;
  webhook_secret: string | null;
  result: string | null;
  error: string | null;
};

/**
 * Delivers the webhooks owed (cairn.webhook_deliveries, written by the database when a run ends)
 * as the reference's v0 does: a POST of `{event: "statusChange", timestamp, id, status, source,
 * target, summary}` with `X-Webhook-Signature`, `X-Webhook-ID` (the delivery's id, the same on every
 * attempt), `X-Webhook-Event` and `User-Agent`. A receiver that fails (no 2xx, no answer) gets the
 * same body again after a backoff. Deliveries are taken with a lease, so any number of API
 * processes share the work and a delivery whose process died is taken again: at least once.
 * This runs beside the API, never in a run: a slow receiver delays no run.
 */
export function startWebhookDeliveries(context: Context): { stop(): Promise<void> } {
  let stopped = false;
  let current: Promise<void> = Promise.resolve();
  const tick = async () => {
    if (stopped) return;
    current = deliverDue(context).catch(() => {});
    await current;
    if (!stopped) timer = setTimeout(tick, POLL_MS);
  };
  let timer = setTimeout(tick, POLL_MS);
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await current;
    },
  };
}

async function deliverDue(context: Context): Promise<void> {
  const claimed = await context.pool.query(
    `UPDATE cairn.webhook_deliveries SET attempts = attempts + 1,
       next_attempt_at = now() + make_interval(secs => $1)
     WHERE id IN (SELECT id FROM cairn.webhook_deliveries
       WHERE delivered_at IS NULL AND failed_at IS NULL AND next_attempt_at <= now()
       ORDER BY next_attempt_at LIMIT 10 FOR UPDATE SKIP LOCKED)
     RETURNING id, attempts`,
    [LEASE_SECONDS],
  );
  if (claimed.rowCount === 0) return;
  const attempts = new Map(claimed.rows.map((row) => [row.id as string, row.attempts as number]));
  const due = await context.pool.query(
    `SELECT d.id, d.agent_id, d.status, d.created_at, a.cwd, o.repository, o.ref, o.branch_name,
       o.auto_create_pr, o.webhook_url, o.webhook_secret, r.result, r.error
     FROM cairn.webhook_deliveries d JOIN cairn.agents a ON a.id = d.agent_id
       JOIN cairn.agent_options o ON o.agent_id = d.agent_id JOIN cairn.runs r ON r.id = d.run_id
     WHERE d.id = ANY($1::text[])`,
    [[...attempts.keys()]],
  );
  await Promise.all(
    (due.rows as Due[]).map((delivery) => deliver(context, delivery, attempts.get(delivery.id) ?? 1)),
  );
}

async function deliver(context: Context, delivery: Due, attempt: number): Promise<void> {
  const status = v0Status(delivery.status);
  // The body is made from what does not change once the run has ended: every attempt sends the same.
  const body = JSON.stringify({
    event: "statusChange",
    timestamp: delivery.created_at.toISOString(),
    id: delivery.agent_id,
    status,
    source: {
      repository: withoutCredentials(delivery.repository) ?? delivery.cwd,
      ...(delivery.ref ? { ref: delivery.ref } : {}),
    },
    target: agentTarget(context, delivery.agent_id, delivery),
    ...(summaryOf(delivery) ? { summary: summaryOf(delivery) } : {}),
  });
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "user-agent": "Cursor-Agent-Webhook/1.0",
    "x-webhook-id": delivery.id,
    "x-webhook-event": "statusChange",
  };
  if (delivery.webhook_secret) headers["x-webhook-signature"] = signature(delivery.webhook_secret, body);
  let failure: string | undefined;
  try {
    const response = await fetch(delivery.webhook_url, {
      method: "POST",
      headers,
      body,
      signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
      redirect: "manual",
    });
    await response.arrayBuffer().catch(() => {});
    if (response.status < 200 || response.status > 299) failure = `the receiver answered ${response.status}`;
  } catch (error) {
    failure = (error as Error).message;
  }
  if (failure === undefined) {
    await context.pool.query(
      "UPDATE cairn.webhook_deliveries SET delivered_at = now(), last_error = NULL WHERE id = $1",
      [delivery.id],
    );
    return;
  }
  await context.pool.query(
    `UPDATE cairn.webhook_deliveries SET last_error = $2,
       next_attempt_at = now() + make_interval(secs => $3),
       failed_at = CASE WHEN attempts >= $4 THEN now() END
     WHERE id = $1`,
    [delivery.id, failure, backoffSeconds(attempt), MAX_ATTEMPTS],
  );
}

function summaryOf(delivery: { status: string; result: string | null; error: string | null }) {
  if (delivery.status === "CANCELLED") return "The agent was stopped.";
  return delivery.result ?? delivery.error ?? undefined;
}
