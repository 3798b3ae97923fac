import type { Pool, PoolClient } from "pg";
import type { ImageBlock, PromptBlock } from "../engine/messages.js";
import { importApart } from "../util/import-apart.js";

/**
 * What a run was created with besides its prompt (docs/serve.md): `report`, an HTML report of the
 * session written when the run ends (docs/report.md), and the W3C trace context of the request that
 * created it, which the worker hands the session as `TRACEPARENT` / `TRACESTATE` so the run's spans
 * go under the caller's trace (docs/telemetry.md). Kept in a table of its own beside `cairn.runs`.
 */
export type RunExtras = {
  report: boolean;
  traceparent?: string;
  tracestate?: string;
  /**
   * cairn's extension (the reference's API has none): 0–100, default 0; when runs wait in the queue,
   * higher ones start first. Kept by DBOS with the queued run (workflow_status.priority), not here.
   */
  priority?: number;
  /**
   * The images sent with the prompt (`prompt.images`, checked by src/serve/prompt-images.ts), as the
   * model gets them. Stored with the run, so every execution of it (a resumed or taken-over one
   * too) sends the same prompt.
   */
  images?: ImageBlock[];
};

/** The highest `priority` a run may be given (cairn's extension: the reference's API has none). */
export const MAX_RUN_PRIORITY = 100;

/** DBOS dequeues the lowest number first; cairn's priority is the other way round (higher first). */
export function queuePriorityOf(extras: RunExtras): number {
  return MAX_RUN_PRIORITY - (extras.priority ?? 0);
}

export const RUN_EXTRAS_SCHEMA = `
CREATE TABLE IF NOT EXISTS cairn.run_extras (
  run_id text PRIMARY KEY REFERENCES cairn.runs(id) ON DELETE CASCADE, report boolean NOT NULL DEFAULT false,
  traceparent text, tracestate text, report_html text);
ALTER TABLE cairn.run_extras ADD COLUMN IF NOT EXISTS prompt_images jsonb;
`;

/** Stored with the run, in the transaction that creates it (nothing when there is nothing to keep). */
export async function saveRunExtras(connection: PoolClient, runId: string, extras: RunExtras): Promise<void> {
  const images = extras.images?.length ? JSON.stringify(extras.images) : null;
  if (!extras.report && extras.traceparent === undefined && images === null) return;
  await connection.query(
    "INSERT INTO cairn.run_extras (run_id, report, traceparent, tracestate, prompt_images) VALUES ($1, $2, $3, $4, $5)",
    [runId, extras.report, extras.traceparent ?? null, extras.tracestate ?? null, images],
  );
}

export async function runExtrasOf(pool: Pool, runId: string): Promise<RunExtras> {
  const result = await pool.query("SELECT * FROM cairn.run_extras WHERE run_id = $1", [runId]);
  const row = result.rows[0] as
    | {
        report: boolean;
        traceparent: string | null;
        tracestate: string | null;
        prompt_images: ImageBlock[] | null;
      }
    | undefined;
  return {
    report: row?.report === true,
    ...(row?.traceparent ? { traceparent: row.traceparent } : {}),
    ...(row?.tracestate ? { tracestate: row.tracestate } : {}),
    ...(row?.prompt_images?.length ? { images: row.prompt_images } : {}),
  };
}

/** The run's prompt as the session takes it: the images first (as Anthropic advises), then the text. */
export function runPrompt(text: string, extras: RunExtras): { text: string; content?: PromptBlock[] } {
  if (!extras.images?.length) return { text };
  return { text, content: [...extras.images, { type: "text", text }] };
}

/** The session's environment with the caller's trace context, when the run was created with one. */
export function envWithTraceContext(env: NodeJS.ProcessEnv, extras: RunExtras): NodeJS.ProcessEnv {
  if (!extras.traceparent) return env;
  return {
    ...env,
    TRACEPARENT: extras.traceparent,
    ...(extras.tracestate ? { TRACESTATE: extras.tracestate } : {}),
  };
}

/**
 * Writes the run's report from the session's transcript, once the run has ended (idempotent: a run
 * finished again after its worker died writes the same page). A report that cannot be made is
 * stored as a page saying why, so the API answers something a person can read.
 */
export async function writeRunReport(pool: Pool, runId: string, transcript: string): Promise<void> {
  let html: string;
  try {
    const { renderReport } = await importApart<typeof import("../report/render-report.js")>(
      new URL("../report/render-report.js", import.meta.url),
      import.meta.url,
    );
    html = await renderReport({ file: transcript });
  } catch (error) {
    html = `<!doctype html><meta charset="utf-8"><title>No report</title><p>The report of ${runId} could not be made: ${escapeHtml((error as Error).message)}</p>`;
  }
  await pool.query("UPDATE cairn.run_extras SET report_html = $2 WHERE run_id = $1", [runId, html]);
}

/** The run's stored report: `absent` when the run was not created with `report`, `pending` until it ends. */
export async function runReportOf(pool: Pool, runId: string): Promise<string | "absent" | "pending"> {
  const result = await pool.query("SELECT report, report_html FROM cairn.run_extras WHERE run_id = $1", [
    runId,
  ]);
  const row = result.rows[0] as { report: boolean; report_html: string | null } | undefined;
  if (!row?.report) return "absent";
  return row.report_html ?? "pending";
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]!);
}
