/**
 * Builds stream-json `assistant` lines. Partial output writes one line per text delta (hundreds of
 * thousands a second on a fast model), so a line is assembled from fixed text around one
 * `JSON.stringify` of the delta rather than by serialising a fresh object; the bytes are exactly what
 * `JSON.stringify({type, message, session_id, ...extra})` would give.
 */
export type AssistantLines = {
  /** A complete message segment (no partial output), or the final flush at the end (PM-29, kind 3). */
  plain(text: string): string;
  /** A streaming delta: new text (PM-29, kind 1). */
  delta(text: string, timestampMs: number): string;
  /** The flush before a tool call: a duplicate of the deltas since the last boundary (PM-29, kind 2). */
  flush(text: string, timestampMs: number, modelCallId: string): string;
};

const HEAD = '{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":';

export function assistantLines(sessionId: string): AssistantLines {
  const tail = `}]},"session_id":${JSON.stringify(sessionId)}`;
  // The deltas of one network chunk share their timestamp: the line's end is built once for them.
  let endAt = Number.NaN;
  let end = "";
  return {
    plain: (text) => `${HEAD}${JSON.stringify(text)}${tail}}\n`,
    delta: (text, timestampMs) => {
      if (timestampMs !== endAt) {
        endAt = timestampMs;
        end = `${tail},"timestamp_ms":${timestampMs}}\n`;
      }
      return HEAD + JSON.stringify(text) + end;
    },
    flush: (text, timestampMs, modelCallId) =>
      `${HEAD}${JSON.stringify(text)}${tail},"timestamp_ms":${timestampMs},"model_call_id":${JSON.stringify(modelCallId)}}\n`,
  };
}
