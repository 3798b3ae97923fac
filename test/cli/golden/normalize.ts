import type { EngineEvent } from "../../../src/engine/events.js";

/** Stand-ins for what changes from run to run, so recorded events are stable files. */
export const GOLDEN_SESSION_ID = "c6b62c6f-7ead-4fd6-9922-e952131177ff";
export const GOLDEN_CWD = "/workspace";
/** Event i's clock fields read GOLDEN_T0 + i: increasing, like the real clock, but fixed. */
export const GOLDEN_T0 = 1_770_000_000_000;

const CLOCK_FIELDS = new Set(["startedAt", "receivedAt", "endedAt"]);
const DURATION_FIELDS: Record<string, number> = {
  durationMs: 5,
  durationApiMs: 3,
  executionTime: 4,
};

/**
 * Replaces the volatile parts of recorded engine events: the session id, the temporary workspace
 * path, clock readings, durations and block uuids. Everything else (text, tool data, request ids) is kept.
 */
export function normalizeEvents(events: EngineEvent[], sessionId: string, cwds: string[]): EngineEvent[] {
  let json = JSON.stringify(events);
  json = json.split(sessionId).join(GOLDEN_SESSION_ID);
  for (const cwd of [...cwds].sort((a, b) => b.length - a.length)) json = json.split(cwd).join(GOLDEN_CWD);
  const parsed = JSON.parse(json) as EngineEvent[];
  // Block uuids are random: numbered in order of appearance instead.
  let uuids = 0;
  const uuid = () => `00000000-0000-4000-9000-${String(++uuids).padStart(12, "0")}`;
  return parsed.map((event, index) => rewrite(event, index, uuid) as EngineEvent);
}

function rewrite(value: unknown, index: number, uuid: () => string): unknown {
  if (Array.isArray(value)) return value.map((item) => rewrite(item, index, uuid));
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (key === "uuid" && typeof item === "string") out[key] = uuid();
    else if (CLOCK_FIELDS.has(key) && typeof item === "number") out[key] = GOLDEN_T0 + index;
    else if (key in DURATION_FIELDS && typeof item === "number") out[key] = DURATION_FIELDS[key];
    else out[key] = rewrite(item, index, uuid);
  }
  return out;
}
