import type { IncomingMessage, ServerResponse } from "node:http";
import type { Pool } from "pg";
import { ACTIVE_RUN_STATUSES } from "../durable/database.js";
import { ApiError } from "./http-json.js";
import { referenceFrameOf, type StreamVocabulary } from "./reference-stream-frames.js";

/** How often a stream looks for new events of a run under way. */
const POLL_MS = 150;
/** How long the stream of an ended run without its run_end waits for more events. */
const ENDED_QUIET_MS = 3000;

/**
 * A run's Server-Sent-Events stream. It opens with the run's status (`event: status`, no id, as the
 * reference sends at every connect), then sends each stored event after `after` as the workers
 * store them — in the reference's vocabulary (`assistant`, `thinking`, `tool_call`, `status`;
 * src/serve/reference-stream-frames.ts), or with `vocabulary` "cairn" as cairn's own events
 * (`event: <type>`, `data: <the event as JSON>`) — each with `id: <seq>`, until the run has ended
 * and every event was sent, closed by `event: result` (the run's status) and `event: done`, without
 * ids. A client that reconnects with `Last-Event-ID` gets the events after that one: the events are
 * read from the database, where each number holds one event whatever worker stored it, and each
 * maps to the same frame every time, so nothing is missed or sent twice.
 */
export async function streamRunEvents(
  pool: Pool,
  runId: string,
  after: number,
  vocabulary: StreamVocabulary,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  // A client that already has the run_end gets the end of the stream at once.
  let lastType: string | undefined =
    after > 0
      ? (await pool.query("SELECT type FROM cairn.run_events WHERE run_id = $1 AND seq = $2", [runId, after]))
          .rows[0]?.type
      : undefined;
  if (after > 0 && lastType === undefined)
    throw new ApiError(400, "invalid_last_event_id", `Event ${after} is not an event of run ${runId}.`);
  response.writeHead(200, {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    connection: "keep-alive",
  });
  let closed = false;
  request.on("close", () => {
    closed = true;
  });
  let last = after;
  const opening = (await pool.query("SELECT status FROM cairn.runs WHERE id = $1", [runId])).rows[0]?.status;
  response.write(`event: status\ndata: ${JSON.stringify({ runId, status: opening })}\n\n`);
  let quietSince = Date.now();
  while (!closed) {
    // The status first: events stored before the run ended are all there once it has ended.
    const status = (await pool.query("SELECT status FROM cairn.runs WHERE id = $1", [runId])).rows[0]?.status;
    const events = await pool.query(
      "SELECT seq, type, event FROM cairn.run_events WHERE run_id = $1 AND seq > $2 ORDER BY seq",
      [runId, last],
    );
    for (const row of events.rows) {
      // A gap is an event not stored yet (a step still running): wait for it rather than skip it.
      if (row.seq !== last + 1) break;
      const frame =
        vocabulary === "cairn" ? { event: row.type, data: row.event } : referenceFrameOf(runId, row.event);
      if (frame)
        response.write(`id: ${row.seq}\nevent: ${frame.event}\ndata: ${JSON.stringify(frame.data)}\n\n`);
      last = row.seq;
      lastType = row.type;
      quietSince = Date.now();
    }
    // An ended run's stream ends with its run_end; a run cancelled mid-step stores its last events
    // after it is marked cancelled, so its stream waits for them (a run cancelled before it started,
    // or whose worker is gone, has none coming: the stream ends after a quiet while).
    const ended = !ACTIVE_RUN_STATUSES.includes(status);
    if (ended && (lastType === "run_end" || Date.now() - quietSince > ENDED_QUIET_MS)) {
      // The reference's closing frames, which its clients wait for (a stream that ends without
      // `done` is incomplete to them): the run's final status, then `done`. They carry no `id`, so
      // a reconnect's Last-Event-ID stays the last stored event's.
      const { result, error } = (
        await pool.query("SELECT status, result, error FROM cairn.runs WHERE id = $1", [runId])
      ).rows[0] as { result: string | null; error: string | null };
      const final = {
        runId,
        status,
        // `text` is the reference's name for the run's final text; `result` cairn's, as on the run.
        ...(result !== null ? { result, text: result } : {}),
        ...(error !== null ? { error } : {}),
      };
      response.write(`event: result\ndata: ${JSON.stringify(final)}\n\nevent: done\ndata: {}\n\n`);
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  response.end();
}
