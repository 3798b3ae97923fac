import type { IncomingMessage, ServerResponse } from "node:http";
import type { Pool } from "pg";
import type { RunExtras } from "../durable/run-extras.js";
import { MAX_RUN_PRIORITY, runReportOf } from "../durable/run-extras.js";
import { ApiError } from "./http-json.js";

/** W3C traceparent: version, 32-hex trace id, 16-hex parent id, flags. */
const TRACEPARENT = /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;

/**
 * What a request that creates a run asks for besides its prompt (docs/serve.md): `report: true`
 * (an HTML report written when the run ends) and the `traceparent` / `tracestate` headers (the run's
 * spans go under the caller's trace, docs/telemetry.md).
 */
export function runExtrasOfRequest(body: Record<string, unknown>, request: IncomingMessage): RunExtras {
  if (body.report !== undefined && typeof body.report !== "boolean")
    throw new ApiError(400, "invalid_request", "report must be true or false.");
  const traceparent = header(request, "traceparent");
  if (traceparent !== undefined && !TRACEPARENT.test(traceparent))
    throw new ApiError(400, "invalid_request", "The traceparent header is not a W3C traceparent.");
  const tracestate = header(request, "tracestate");
  const priority = runPriorityOf(body.priority);
  return {
    report: body.report === true,
    ...(priority !== undefined ? { priority } : {}),
    ...(traceparent ? { traceparent } : {}),
    ...(traceparent && tracestate ? { tracestate } : {}),
  };
}

/** `GET /v1/agents/{id}/runs/{runId}/report`: the run's HTML report, as a download. */
export async function sendRunReport(
  pool: Pool,
  run: { id: string; status: string; error: string | null },
  active: boolean,
  response: ServerResponse,
): Promise<void> {
  const runId = run.id;
  const report = await runReportOf(pool, runId);
  if (report === "absent")
    throw new ApiError(
      404,
      "not_found",
      `Run ${runId} was not created with report: true, so it has no report.`,
    );
  if (report === "pending" && active)
    throw new ApiError(
      409,
      "conflict",
      `Run ${runId} has not ended yet; its report is written when it does.`,
    );
  if (report === "pending")
    throw new ApiError(
      404,
      "not_found",
      `Run ${runId} ended (${run.status}) before its session ran, so it has no report${run.error ? `: ${run.error}` : "."}`,
    );
  response.writeHead(200, {
    "content-type": "text/html; charset=utf-8",
    "content-length": Buffer.byteLength(report),
    "content-disposition": `attachment; filename="${runId}.html"`,
  });
  response.end(report);
}

function header(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  return text ? text : undefined;
}

/** A request's `priority`: an integer 0–100 (higher starts first), or undefined when not given. */
export function runPriorityOf(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0 || value > MAX_RUN_PRIORITY)
    throw new ApiError(
      400,
      "invalid_request",
      `priority must be an integer from 0 to ${MAX_RUN_PRIORITY} (higher runs start first).`,
    );
  return value;
}
