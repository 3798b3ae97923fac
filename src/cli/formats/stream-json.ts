import type { EngineEvent, RunStartEvent, ToolEndEvent, ToolStartEvent } from "../../engine/events.js";
import type { ModelStreamEvent } from "../../engine/messages.js";
import { ServerSearchEvents } from "../../engine/server-search.js";
import { type AssistantLines, assistantLines } from "./assistant-lines.js";
import { resultObject } from "./result-line.js";
import type { Fields } from "./tool-kinds.js";
import { completedToolCall, startedToolCall, type ToolPayloads } from "./tool-payloads.js";
import type { Projection } from "./types.js";

/** Has the run commands or skills besides cairn's own `/compact`? */
function customized(event: RunStartEvent): boolean {
  return (event.skills?.length ?? 0) > 0 || (event.slashCommands ?? []).some((name) => name !== "compact");
}

/**
 * `stream-json` (PM-15…PM-27) and, with `partial`, `--stream-partial-output` (PM-28…PM-30).
 *
 * Assistant text is grouped into segments: the text between two boundaries, a boundary being a tool
 * call or the end of the run. Without partial output each segment is one `assistant` line written at
 * its closing boundary. With partial output every text delta is a line with `timestamp_ms` (the
 * only kind that carries new text); at a tool call the segment is repeated once with `timestamp_ms`
 * and `model_call_id`, and at the end of the run once with neither. So a consumer that keeps only
 * the deltas rebuilds `result` byte for byte, and one that skips every `assistant` line still gets
 * the whole answer from `result`.
 *
 * Deterministic: every timestamp comes from the events themselves, never from a clock. Tool calls
 * are shown by the payload shape their tool declares (`payloads`, from the run's tool list).
 * `fullPayloads` adds the reference CLI's further payload fields (the CLI's default; PM-5 allows
 * added fields); `thinking` prints the reference's `thinking` delta/completed events (opt-in: PM-3).
 */
export function streamJsonProjection(options: StreamJsonOptions): Projection {
  let start: RunStartEvent | undefined;
  let lines: AssistantLines = assistantLines("");
  let segment = "";
  /** The segment as it was when the current model call started. */
  let segmentBeforeCall = "";
  let modelCallId = "";
  /** Started payloads by call id, so the completed event repeats the very same args (PM-23). */
  const started = new Map<string, Fields>();
  /** The provider's searches, shown as WebSearch calls; stamped with the last stream event's time. */
  const searches = new ServerSearchEvents();
  let lastReceivedAt = 0;
  /** Indexes of the open thinking blocks of the current model call (`thinking`). */
  const thinkingBlocks = new Set<number>();

  const line = (value: Fields) => `${JSON.stringify(value)}\n`;
  const sessionId = () => start?.sessionId ?? "";

  /** A tool call's `started` line; `parent` is the Agent call running it, for a subagent's calls. */
  const toolStarted = (event: ToolStartEvent, parent?: string): string => {
    const toolCall = startedToolCall(
      options.payloads(event.name),
      event.name,
      event.input,
      event.toolUseId,
      start?.cwd ?? "",
    );
    started.set(event.toolUseId, toolCall);
    return line({
      type: "tool_call",
      subtype: "started",
      call_id: event.toolUseId,
      ...(parent ? { parent_call_id: parent } : {}),
      tool_call: toolCall,
      session_id: sessionId(),
    });
  };

  const toolCompleted = (event: ToolEndEvent, parent?: string): string => {
    const payload = options.payloads(event.name);
    const toolCall =
      started.get(event.toolUseId) ??
      startedToolCall(payload, event.name, event.input, event.toolUseId, start?.cwd ?? "");
    started.delete(event.toolUseId);
    return line({
      type: "tool_call",
      subtype: "completed",
      call_id: event.toolUseId,
      ...(parent ? { parent_call_id: parent } : {}),
      tool_call: completedToolCall(payload, toolCall, event.outcome, options.fullPayloads !== false),
      session_id: sessionId(),
    });
  };

  /** Closes the current segment at a boundary; `at` is set for a tool call, absent at the end. */
  const closeSegment = (at?: number): string => {
    if (segment === "") return "";
    const text = segment;
    segment = "";
    if (!options.partial) return lines.plain(text);
    return at === undefined ? lines.plain(text) : lines.flush(text, at, modelCallId);
  };

  return {
    project(event: EngineEvent): string {
      switch (event.type) {
        case "run_start":
          start = event;
          lines = assistantLines(event.sessionId);
          return (
            line({
              type: "system",
              subtype: "init",
              apiKeySource: event.apiKeySource,
              cwd: event.cwd,
              session_id: event.sessionId,
              model: event.modelDisplayName,
              permissionMode: event.permissionMode,
              tools: event.tools,
              ...(event.mcpServers ? { mcp_servers: event.mcpServers } : {}),
              // Added (PM-5) only when the workspace or user has commands or skills of their own.
              ...(customized(event)
                ? { slash_commands: event.slashCommands, skills: event.skills ?? [] }
                : {}),
            }) +
            line({
              type: "user",
              message: { role: "user", content: [{ type: "text", text: event.prompt }] },
              session_id: event.sessionId,
            })
          );
        case "model_call_start":
          modelCallId = modelCallIdFor(sessionId(), event.turn);
          segmentBeforeCall = segment;
          thinkingBlocks.clear();
          return "";
        case "model_call_end":
          if (event.requestId) modelCallId = modelCallIdFor(event.requestId, event.turn);
          // The message as it ended, not the deltas: after a retried attempt whose text differed
          // from what was already streamed, the deltas hold both, `result` only the answer.
          segment = segmentBeforeCall + textOf(event.message);
          return "";
        case "stream": {
          const raw = event.event;
          lastReceivedAt = event.receivedAt;
          if (options.thinking) {
            const thought = thinkingLine(raw, thinkingBlocks, sessionId(), event.receivedAt);
            if (thought) return line(thought);
          }
          // Only text: thinking is not printed unless asked (PM-3), tool input arrives whole with tool_call.
          if (raw.type !== "content_block_delta" || raw.delta.type !== "text_delta") return "";
          const text = raw.delta.text;
          if (text === "") return "";
          segment += text;
          return options.partial ? lines.delta(text, event.receivedAt) : "";
        }
        case "assistant_block": {
          // A search the provider ran is shown as a WebSearch call (src/engine/server-search.ts). It
          // happens inside the model call, so it is no segment boundary: the call's text stays one
          // segment, written when the call's turn ends, as `result` counts it.
          const search = searches.of(event, lastReceivedAt);
          if (search?.type === "tool_start") return toolStarted(search);
          return search ? toolCompleted(search) : "";
        }
        case "tool_start":
          return closeSegment(event.startedAt) + toolStarted(event);
        case "tool_end":
          return toolCompleted(event);
        case "subagent": {
          // A subagent's own tool calls, marked with the Agent call running it (docs/agents.md); its
          // text is its answer, which arrives as that call's result.
          const inner = event.event;
          if (inner.type === "tool_start") return toolStarted(inner, event.toolUseId);
          if (inner.type === "tool_end") return toolCompleted(inner, event.toolUseId);
          return "";
        }
        case "compact_boundary":
          // An added system event (PM-5): consumers that do not know it skip it.
          return line({
            type: "system",
            subtype: "compact_boundary",
            session_id: sessionId(),
            compact_metadata: {
              trigger: event.trigger,
              pre_tokens: event.preTokens,
              post_tokens: event.postTokens,
              duration_ms: event.durationMs,
            },
          });
        case "run_end":
          // On failure the stream ends without `result` (PM-18); the error goes to stderr.
          return closeSegment() + (event.isError ? "" : line(resultObject(event)));
        default:
          return "";
      }
    },
  };
}

function textOf(message: { content: readonly { type: string; text?: string }[] }): string {
  let text = "";
  for (const block of message.content) if (block.type === "text") text += block.text ?? "";
  return text;
}

export type StreamJsonOptions = {
  partial: boolean;
  payloads: ToolPayloads;
  /** The reference CLI's further payload fields (default true; false: `--tool-payloads contract`). */
  fullPayloads?: boolean;
  thinking?: boolean;
};

/**
 * The reference CLI's observed thinking events: `{type: "thinking", subtype: "delta", text,
 * session_id, timestamp_ms}` per thinking delta, `{type: "thinking", subtype: "completed",
 * session_id, timestamp_ms}` when the thinking block ends; undefined for any other stream event.
 */
function thinkingLine(
  raw: ModelStreamEvent,
  open: Set<number>,
  sessionId: string,
  at: number,
): Fields | undefined {
  if (raw.type === "content_block_start" && raw.content_block.type === "thinking") open.add(raw.index);
  if (raw.type === "content_block_delta" && raw.delta.type === "thinking_delta" && raw.delta.thinking !== "")
    return {
      type: "thinking",
      subtype: "delta",
      text: raw.delta.thinking,
      session_id: sessionId,
      timestamp_ms: at,
    };
  if (raw.type === "content_block_stop" && open.delete(raw.index))
    return { type: "thinking", subtype: "completed", session_id: sessionId, timestamp_ms: at };
  return undefined;
}

/**
 * The reference CLI's `<request id>-<model call number>-<4 characters>` shape. The suffix is derived
 * from the call number, so equal runs give equal ids.
 */
function modelCallIdFor(prefix: string, turn: number): string {
  const suffix = ((turn * 48_271) % 1_679_616).toString(36).padStart(4, "0");
  return `${prefix}-${turn - 1}-${suffix}`;
}
