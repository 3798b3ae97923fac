import type { Pool } from "pg";

/**
 * The API's own tables, beside the durable runs' (src/durable/database.ts): what an agent was
 * launched with beyond its conversation (its git source and target branch, its webhook), the
 * webhook deliveries still owed, and the per-key request counts of the rate limit.
 *
 * A delivery is written by a trigger in the same transaction that ends a run (whoever ends it: a
 * worker, or the API's cancel), so a status change and the promise to report it are never apart:
 * a `cairn serve` process that dies mid-delivery leaves the row, which another (or the same one,
 * started again) delivers.
 */
const SCHEMA = `
CREATE TABLE IF NOT EXISTS cairn.agent_options (
  agent_id text PRIMARY KEY REFERENCES cairn.agents(id) ON DELETE CASCADE,
  repository text, ref text, clone boolean NOT NULL DEFAULT false,
  branch_name text, auto_create_pr boolean NOT NULL DEFAULT false,
  webhook_url text, webhook_secret text);
ALTER TABLE cairn.agent_options ADD COLUMN IF NOT EXISTS archived_at timestamptz;
CREATE TABLE IF NOT EXISTS cairn.webhook_deliveries (
  id text PRIMARY KEY, agent_id text NOT NULL, run_id text NOT NULL, status text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(), attempts int NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(), delivered_at timestamptz,
  failed_at timestamptz, last_error text);
CREATE INDEX IF NOT EXISTS webhook_deliveries_due ON cairn.webhook_deliveries (next_attempt_at)
  WHERE delivered_at IS NULL AND failed_at IS NULL;
CREATE TABLE IF NOT EXISTS cairn.rate_windows (
  key_hash text NOT NULL, window_start timestamptz NOT NULL, count int NOT NULL,
  PRIMARY KEY (key_hash, window_start));
CREATE OR REPLACE FUNCTION cairn.owe_webhook() RETURNS trigger AS $$
BEGIN
  IF NEW.status IS DISTINCT FROM OLD.status AND NEW.status IN ('FINISHED', 'ERROR', 'CANCELLED') THEN
    INSERT INTO cairn.webhook_deliveries (id, agent_id, run_id, status)
    SELECT 'wh-' || gen_random_uuid(), NEW.agent_id, NEW.id, NEW.status
      FROM cairn.agent_options o WHERE o.agent_id = NEW.agent_id AND o.webhook_url IS NOT NULL;
  END IF;
  RETURN NEW;
END $$ LANGUAGE plpgsql;
CREATE OR REPLACE TRIGGER runs_owe_webhook AFTER UPDATE OF status ON cairn.runs
  FOR EACH ROW EXECUTE FUNCTION cairn.owe_webhook();
`;

/** Creates the API's tables and trigger where missing (idempotent; serialized like cairn's own). */
export async function migrateServe(pool: Pool): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query("SELECT pg_advisory_lock(4242002)");
    await client.query(SCHEMA);
  } finally {
    await client.query("SELECT pg_advisory_unlock(4242002)").catch(() => {});
    client.release();
  }
}

export type AgentOptionsRow = {
  agent_id: string;
  repository: string | null;
  ref: string | null;
  clone: boolean;
  branch_name: string | null;
  auto_create_pr: boolean;
  webhook_url: string | null;
  webhook_secret: string | null;
  /** When `POST /v1/agents/{id}/archive` archived it (null: not archived). */
  archived_at: Date | null;
};
