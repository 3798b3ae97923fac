import type { RunEndEvent } from "../../engine/events.js";
import { cliUsage } from "./usage.js";

/**
 * The terminal `result` object shared by `json` and `stream-json` (PM-8, PM-17): the documented
 * fields in the documented order, then cairn's additions (`num_turns`, `usage`, and `total_cost_usd`
 * when the model's price is known: an unknown cost is left out, never reported as 0).
 */
export function resultObject(end: RunEndEvent): Record<string, unknown> {
  return {
    type: "result",
    subtype: end.subtype,
    is_error: end.isError,
    duration_ms: end.durationMs,
    duration_api_ms: end.durationApiMs,
    result: end.result,
    session_id: end.sessionId,
    ...(end.requestId ? { request_id: end.requestId } : {}),
    num_turns: end.numTurns,
    usage: cliUsage(end.usage),
    ...(typeof end.totalCostUsd === "number" ? { total_cost_usd: end.totalCostUsd } : {}),
  };
}
