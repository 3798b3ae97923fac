import { MessageAssembler } from "../engine/message-assembler.js";
import type { ModelStreamEvent, StreamedMessage } from "../engine/messages.js";
import { estimateTokens, type ReplyStep, renderReplyEvents } from "../providers/scenario.js";
import {
  isObject,
  type MediaScan,
  quote,
  type RecordedMedia,
  type ReplyContext,
  type ScriptedWire,
  scanParts,
  type WireFrame,
} from "./wire.js";

/** Anthropic's error `type` for an HTTP status. */
export function anthropicErrorType(status: number): string {
  switch (status) {
    case 400:
      return "invalid_request_error";
    case 401:
      return "authentication_error";
    case 402:
      return "billing_error";
    case 403:
      return "permission_error";
    case 404:
      return "not_found_error";
    case 413:
      return "request_too_large";
    case 429:
      return "rate_limit_error";
    case 504:
      return "timeout_error";
    case 529:
      return "overloaded_error";
    default:
      return status >= 500 ? "api_error" : "invalid_request_error";
  }
}

const DEFAULT_ERROR_MESSAGES: Record<string, string> = {
  invalid_request_error: "Invalid request (scripted)",
  authentication_error: "invalid x-api-key (scripted)",
  billing_error: "Billing problem (scripted)",
  permission_error: "Permission denied (scripted)",
  not_found_error: "Not found (scripted)",
  request_too_large: "Request exceeds the maximum allowed size (scripted)",
  rate_limit_error: "Rate limited (scripted)",
  timeout_error: "Request timed out (scripted)",
  overloaded_error: "Overloaded (scripted)",
  api_error: "Internal server error (scripted)",
};

/** The exact events of a reply step, with the server's deterministic ids and default token counts. */
export function renderAnthropicEvents(
  step: ReplyStep,
  body: unknown,
  context: ReplyContext,
): ModelStreamEvent[] {
  return renderReplyEvents(step, {
    chunkSize: context.chunkSize,
    model: context.model,
    messageId: `msg_scripted_${context.replyNumber}`,
    toolUseId: (blockIndex) => `toolu_scripted_${context.stepIndex}_${blockIndex}`,
    inputTokens: estimateTokens(body),
  });
}

/** One Server-Sent Event as Anthropic writes it: `event: <type>\ndata: <json>\n\n`. */
export function formatSseEvent(event: { type: string }): string {
  return `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}

/** Folds stream events into the final message, the way a client accumulates a stream (the engine's own assembler). */
export function assembleMessage(events: readonly ModelStreamEvent[]): StreamedMessage {
  const assembler = new MessageAssembler();
  for (const event of events) assembler.apply(event);
  const message = assembler.snapshot();
  if (!message) throw new Error("assembleMessage: no message_start event");
  return message;
}

/** Whitespace collapsed, cut to `max` UTF-16 units (never inside a surrogate pair), quoted. */

function describeUserContent(content: unknown): string {
  if (typeof content === "string") return `text ${quote(content)}`;
  if (!Array.isArray(content)) return "(no content)";
  const parts = content.map((block: unknown) => {
    if (!isObject(block)) return "?";
    if (block.type === "text" && typeof block.text === "string") return `text ${quote(block.text)}`;
    if (block.type === "tool_result") {
      const raw = block.content;
      const text =
        typeof raw === "string"
          ? raw
          : Array.isArray(raw)
            ? raw
                .map((part: unknown) => (isObject(part) && typeof part.text === "string" ? part.text : ""))
                .join(" ")
            : "";
      return `tool_result ${String(block.tool_use_id)}${block.is_error ? " (error)" : ""} ${quote(text, 80)}`;
    }
    return String(block.type ?? "?");
  });
  return parts.length ? parts.join(", ") : "(empty)";
}

/** An Anthropic `image` / `document` block's source, checked as the API does. */
function anthropicMedia(block: Record<string, unknown>, where: RecordedMedia["in"]): RecordedMedia | string {
  const kind = block.type as RecordedMedia["kind"];
  const source = block.source;
  if (!isObject(source)) return `${kind}.source: Field required`;
  if (source.type === "base64") {
    if (typeof source.media_type !== "string") return `${kind}.source.media_type: Field required`;
    if (typeof source.data !== "string") return `${kind}.source.data: Field required`;
    return { kind, in: where, mediaType: source.media_type, data: source.data };
  }
  if (source.type === "url") {
    return typeof source.url === "string"
      ? { kind, in: where, url: source.url }
      : `${kind}.source.url: Field required`;
  }
  if (kind === "document" && source.type === "text" && typeof source.data === "string") {
    return { kind, in: where, mediaType: "text/plain", data: source.data };
  }
  return `${kind}.source.type: Input should be 'base64' or 'url'`;
}

function scanAnthropicMedia(body: Record<string, unknown>): MediaScan {
  return scanParts((add) => {
    const visit = (blocks: unknown, where: RecordedMedia["in"]) => {
      if (!Array.isArray(blocks)) return;
      for (const block of blocks) {
        if (!isObject(block)) continue;
        if (block.type === "image" || block.type === "document") add(anthropicMedia(block, where));
        else if (block.type === "tool_result") visit(block.content, "tool_result");
      }
    };
    for (const message of body.messages as unknown[]) {
      if (isObject(message) && message.role === "user") visit(message.content, "prompt");
    }
  });
}

export const anthropicWire: ScriptedWire = {
  name: "anthropic-messages",
  path: "/v1/messages",
  requestIdHeader: "request-id",
  streamContentType: "text/event-stream",

  checkRequest(body) {
    if (!isObject(body)) return "the request body must be a JSON object";
    if (typeof body.model !== "string") return "model: Field required";
    if (typeof body.max_tokens !== "number") return "max_tokens: Field required";
    if (!Array.isArray(body.messages)) return "messages: Field required";
    return undefined;
  },

  scanMedia: scanAnthropicMedia,

  isStreaming(body) {
    return isObject(body) && body.stream === true;
  },

  streamFrames(step, body, context): WireFrame[] {
    return renderAnthropicEvents(step, body, context).map((event) => ({
      text: formatSseEvent(event),
      delta: event.type === "content_block_delta",
    }));
  },

  jsonResponse(step, body, context) {
    return assembleMessage(renderAnthropicEvents(step, body, context));
  },

  errorBody(status, message, errorType, requestId) {
    const type = errorType ?? anthropicErrorType(status);
    return {
      type: "error",
      error: { type, message: message ?? DEFAULT_ERROR_MESSAGES[type] ?? `HTTP ${status} (scripted)` },
      request_id: requestId,
    };
  },

  overflowBody(tokens, window, requestId) {
    return this.errorBody(
      400,
      `prompt is too long: ${tokens} tokens > ${window} maximum`,
      "invalid_request_error",
      requestId,
    );
  },

  summarizeRequest(body) {
    if (!isObject(body) || !Array.isArray(body.messages)) return "(no messages)";
    const messages = body.messages as unknown[];
    const count = `${messages.length} message${messages.length === 1 ? "" : "s"}`;
    for (let i = messages.length - 1; i >= 0; i--) {
      const message = messages[i];
      if (isObject(message) && message.role === "user") {
        return `${count}; last user message: ${describeUserContent(message.content)}`;
      }
    }
    return `${count}; no user message`;
  },
};
