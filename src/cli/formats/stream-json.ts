import type { EngineEvent } from "../../engine/events.js";
import { resultObject } from "./result-line.js";
import { completedToolCall, startedToolCall } from "./tool-payloads.js";
import type { Projection } from "./types.js";

/**
 * `stream-json` (PM-15…PM-27) and, with `partial`, `--stream-partial-output` (PM-28…PM-30).
 *
 * Text is grouped into segments: the assistant text between tool calls. Without partial output each
 * segment is one `assistant` line, written at its boundary (before the next tool call, or at the end
 * of the run). With partial output each text delta is a line with `timestamp_ms`; at a boundary before
 * a tool call the segment is repeated once with `timestamp_ms` and `model_call_id`, and at the end of
 * the run once with neither. Consumers keeping only the deltas rebuild `result` byte for byte.
 */
export function streamJsonProjection(options: { partial: boolean; now?: () => number }): Projection {
  const now = options.now ?? Date.now;
  let sessionId = "";
  let cwd = "";
  let segment = "";
  let modelCallId = "";

  const line = (value: Record<string, unknown>) => `${JSON.stringify(value)}\n`;
  const assistant = (text: string, extra: Record<string, unknown>) =>
    line({
      type: "assistant",
      message: { role: "assistant", content: [{ type: "text", text }] },
      session_id: sessionId,
      ...extra,
    });

  /** Closes the current text segment; `beforeTool` tells which flush kind partial output uses. */
  const flushSegment = (beforeTool: boolean): string => {
    if (segment === "") return "";
    const text = segment;
    segment = "";
    if (!options.partial) return assistant(text, {});
    return beforeTool
      ? assistant(text, { timestamp_ms: now(), model_call_id: modelCallId })
      : assistant(text, {});
  };

  return {
    project(event: EngineEvent): string {
      switch (event.type) {
        case "run_start":
          sessionId = event.sessionId;
          cwd = event.cwd;
          return (
            line({
              type: "system",
              subtype: "init",
              apiKeySource: event.apiKeySource === "none" ? "none" : event.apiKeySource,
              cwd: event.cwd,
              session_id: sessionId,
              model: event.modelDisplayName,
              permissionMode: event.permissionMode,
              tools: event.tools,
            }) +
            line({
              type: "user",
              message: { role: "user", content: [{ type: "text", text: event.prompt }] },
              session_id: sessionId,
            })
          );
        case "model_call_start":
          modelCallId = `${sessionId}-${event.turn - 1}-${callSuffix(event.turn)}`;
          return "";
        case "model_call_end":
          if (event.requestId) modelCallId = `${event.requestId}-${event.turn - 1}-${callSuffix(event.turn)}`;
          return "";
        case "stream": {
          const raw = event.event;
          if (raw.type !== "content_block_delta" || raw.delta.type !== "text_delta") return "";
          segment += raw.delta.text;
          return options.partial ? assistant(raw.delta.text, { timestamp_ms: event.receivedAt }) : "";
        }
        case "tool_start":
          return (
            flushSegment(true) +
            line({
              type: "tool_call",
              subtype: "started",
              call_id: event.toolUseId,
              tool_call: startedToolCall(event.name, event.input, event.toolUseId, cwd),
              session_id: sessionId,
            })
          );
        case "tool_end":
          return line({
            type: "tool_call",
            subtype: "completed",
            call_id: event.toolUseId,
            tool_call: completedToolCall(event.name, event.input, event.toolUseId, cwd, event.outcome),
            session_id: sessionId,
          });
        case "run_end":
          return flushSegment(false) + (event.isError ? "" : line(resultObject(event)));
        default:
          return "";
      }
    },
  };
}

/** A short, deterministic per-call suffix in the reference's `<request>-<n>-<4 chars>` shape. */
function callSuffix(turn: number): string {
  return ((turn * 48_271) % 1_679_616).toString(36).padStart(4, "0");
}
