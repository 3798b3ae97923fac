import type { RunEndEvent } from "../../engine/events.js";
import { cliUsage } from "./usage.js";

/** The terminal `result` object shared by `json` and `stream-json` (PM-8, PM-17). */
export function resultObject(end: RunEndEvent): Record<string, unknown> {
  return {
    type: "result",
    subtype: end.subtype,
    is_error: end.isError,
    duration_ms: end.durationMs,
    duration_api_ms: end.durationApiMs,
    num_turns: end.numTurns,
    result: end.result,
    session_id: end.sessionId,
    ...(end.requestId ? { request_id: end.requestId } : {}),
    usage: cliUsage(end.usage),
  };
}
