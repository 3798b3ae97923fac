import type { StopReason, Usage } from "../engine/messages.js";
import { usageToOpenAI } from "../providers/openai-usage.js";
import { chunkText, estimateTokens, type ReplyStep } from "../providers/scenario.js";
import {
  fromUrl,
  isObject,
  partsText,
  quote,
  type ReplyContext,
  type ScriptedWire,
  scanParts,
  type WireFrame,
} from "./wire.js";

/**
 * OpenAI Chat Completions as the scripted server speaks it (`POST /v1/chat/completions`), rendered
 * from the same reply steps as the Anthropic wire:
 * - text → `choices[0].delta.content` chunks; thinking → `delta.reasoning_content` chunks (the
 *   DeepSeek / llama.cpp / LM Studio convention);
 * - a tool call → a first `delta.tool_calls[{index, id, type, function:{name, arguments:""}}]`
 *   fragment, then `function.arguments` pieces carrying only the `index`;
 * - a closing chunk with `finish_reason`, a usage chunk (`choices: []`) when the request asked for
 *   `stream_options.include_usage`, then `data: [DONE]`.
 * Each of those is one event for `cutAfterEvents` / `stall`.
 */

/** OpenAI's error `type` for an HTTP status. */
export function openaiErrorType(status: number): string {
  if (status === 401) return "authentication_error";
  if (status === 403) return "permission_error";
  if (status === 404) return "not_found_error";
  if (status === 429) return "rate_limit_exceeded";
  if (status >= 500) return "server_error";
  return "invalid_request_error";
}

const DEFAULT_MESSAGES: Record<string, string> = {
  authentication_error: "Incorrect API key provided (scripted)",
  permission_error: "Permission denied (scripted)",
  not_found_error: "Not found (scripted)",
  rate_limit_exceeded: "Rate limit reached (scripted)",
  server_error: "The server had an error while processing your request (scripted)",
  invalid_request_error: "Invalid request (scripted)",
};

/** `{"error":{"message","type","param","code"}}`, OpenAI's error body (both OpenAI wires). */
export function openaiErrorBody(
  status: number,
  message: string | undefined,
  errorType: string | undefined,
): unknown {
  const type = errorType ?? openaiErrorType(status);
  return {
    error: {
      message: message ?? DEFAULT_MESSAGES[type] ?? `HTTP ${status} (scripted)`,
      type,
      param: null,
      code: status === 429 ? "rate_limit_exceeded" : status === 401 ? "invalid_api_key" : null,
    },
  };
}

/** OpenAI's answer to a request over the context window (Chat Completions and Responses alike). */
export function openaiOverflowBody(tokens: number, window: number, param: string): unknown {
  return {
    error: {
      message: `This model's maximum context length is ${window} tokens. However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages.`,
      type: "invalid_request_error",
      param,
      code: "context_length_exceeded",
    },
  };
}

/** Usage of a reply in Anthropic naming: the step's overrides over estimates of request and reply. */
export function replyUsage(step: ReplyStep, body: unknown): Usage {
  let outputChars = 0;
  for (const block of step.content) {
    outputChars +=
      block.type === "text"
        ? block.text.length
        : block.type === "thinking"
          ? block.thinking.length
          : block.type === "web_search"
            ? 0
            : JSON.stringify(block.input).length;
  }
  return {
    input_tokens: step.usage?.input_tokens ?? estimateTokens(body),
    output_tokens: step.usage?.output_tokens ?? Math.max(1, Math.ceil(outputChars / 4)),
    cache_read_input_tokens: step.usage?.cache_read_input_tokens ?? 0,
    cache_creation_input_tokens: step.usage?.cache_creation_input_tokens ?? 0,
  };
}

export function defaultStopReason(step: ReplyStep): StopReason {
  return (
    step.stopReason ?? (step.content.some((block) => block.type === "tool_use") ? "tool_use" : "end_turn")
  );
}

function finishReason(stop: StopReason): string {
  switch (stop) {
    case "tool_use":
      return "tool_calls";
    case "max_tokens":
      return "length";
    case "refusal":
      return "content_filter";
    default:
      return "stop";
  }
}

function chatUsage(usage: Usage) {
  const { input, output, cached, cacheWrite } = usageToOpenAI(usage);
  return {
    prompt_tokens: input,
    completion_tokens: output,
    total_tokens: input + output,
    prompt_tokens_details: { cached_tokens: cached, cache_write_tokens: cacheWrite },
  };
}

function toolCallId(step: ReplyStep, blockIndex: number, context: ReplyContext): string {
  const block = step.content[blockIndex];
  return block?.type === "tool_use" && block.id
    ? block.id
    : `call_scripted_${context.stepIndex}_${blockIndex}`;
}

function renderChunks(
  step: ReplyStep,
  body: unknown,
  context: ReplyContext,
): { chunk: unknown; delta: boolean }[] {
  const base = {
    id: `chatcmpl-scripted-${context.replyNumber}`,
    object: "chat.completion.chunk",
    created: 1_700_000_000 + context.replyNumber,
    model: context.model,
  };
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
    ...base,
    choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
  });
  const out: { chunk: unknown; delta: boolean }[] = [
    { chunk: chunk({ role: "assistant", content: "" }), delta: false },
  ];
  let toolIndex = 0;
  step.content.forEach((block, blockIndex) => {
    if (block.type === "text") {
      for (const piece of chunkText(block.text, context.chunkSize))
        out.push({ chunk: chunk({ content: piece }), delta: true });
    } else if (block.type === "thinking") {
      for (const piece of chunkText(block.thinking, context.chunkSize)) {
        out.push({ chunk: chunk({ reasoning_content: piece }), delta: true });
      }
    } else if (block.type === "web_search") {
      // Chat Completions has no server-side search to script: nothing is sent for it.
    } else {
      const index = toolIndex++;
      const id = toolCallId(step, blockIndex, context);
      out.push({
        chunk: chunk({
          tool_calls: [{ index, id, type: "function", function: { name: block.name, arguments: "" } }],
        }),
        delta: true,
      });
      for (const piece of chunkText(JSON.stringify(block.input), context.chunkSize)) {
        out.push({ chunk: chunk({ tool_calls: [{ index, function: { arguments: piece } }] }), delta: true });
      }
    }
  });
  out.push({ chunk: chunk({}, finishReason(defaultStopReason(step))), delta: false });
  const includeUsage =
    isObject(body) && isObject(body.stream_options) && body.stream_options.include_usage === true;
  if (includeUsage)
    out.push({ chunk: { ...base, choices: [], usage: chatUsage(replyUsage(step, body)) }, delta: false });
  return out;
}

export const openaiChatWire: ScriptedWire = {
  name: "openai-chat",
  path: "/v1/chat/completions",
  requestIdHeader: "x-request-id",
  streamContentType: "text/event-stream",

  checkRequest(body) {
    if (!isObject(body)) return "the request body must be a JSON object";
    if (typeof body.model !== "string") return "model: Field required";
    if (!Array.isArray(body.messages)) return "messages: Field required";
    return undefined;
  },

  // Chat has media only in user messages (a `tool` message is text): `image_url` and `file` parts.
  scanMedia(body) {
    return scanParts((add) => {
      for (const message of body.messages as unknown[]) {
        if (!isObject(message) || message.role !== "user" || !Array.isArray(message.content)) continue;
        for (const part of message.content) {
          if (!isObject(part)) continue;
          if (part.type === "image_url") {
            add(fromUrl(isObject(part.image_url) ? part.image_url.url : undefined, "image", "prompt"));
          } else if (part.type === "file") {
            add(fromUrl(isObject(part.file) ? part.file.file_data : undefined, "document", "prompt"));
          }
        }
      }
    });
  },

  isStreaming(body) {
    return isObject(body) && body.stream === true;
  },

  streamFrames(step, body, context): WireFrame[] {
    const frames = renderChunks(step, body, context).map(({ chunk, delta }) => ({
      text: `data: ${JSON.stringify(chunk)}\n\n`,
      delta,
    }));
    frames.push({ text: "data: [DONE]\n\n", delta: false });
    return frames;
  },

  jsonResponse(step, body, context) {
    const text = step.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("");
    const thinking = step.content
      .flatMap((block) => (block.type === "thinking" ? [block.thinking] : []))
      .join("");
    const toolCalls = step.content.flatMap((block, blockIndex) =>
      block.type === "tool_use"
        ? [
            {
              id: toolCallId(step, blockIndex, context),
              type: "function",
              function: { name: block.name, arguments: JSON.stringify(block.input) },
            },
          ]
        : [],
    );
    return {
      id: `chatcmpl-scripted-${context.replyNumber}`,
      object: "chat.completion",
      created: 1_700_000_000 + context.replyNumber,
      model: context.model,
      choices: [
        {
          index: 0,
          message: {
            role: "assistant",
            content: text.length > 0 ? text : null,
            refusal: null,
            ...(thinking ? { reasoning_content: thinking } : {}),
            ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
          },
          finish_reason: finishReason(defaultStopReason(step)),
          logprobs: null,
        },
      ],
      usage: chatUsage(replyUsage(step, body)),
    };
  },

  errorBody(status, message, errorType) {
    return openaiErrorBody(status, message, errorType);
  },

  overflowBody(tokens, window) {
    return openaiOverflowBody(tokens, window, "messages");
  },

  summarizeRequest(body) {
    if (!isObject(body) || !Array.isArray(body.messages)) return "(no messages)";
    const messages = body.messages as unknown[];
    const count = `${messages.length} message${messages.length === 1 ? "" : "s"}`;
    for (let i = messages.length - 1; i >= 0; i--) {
      const message = messages[i];
      if (!isObject(message)) continue;
      if (message.role === "user")
        return `${count}; last user message: text ${quote(partsText(message.content))}`;
      if (message.role === "tool") {
        return `${count}; last message: tool result ${String(message.tool_call_id)} ${quote(partsText(message.content), 80)}`;
      }
    }
    return `${count}; no user message`;
  },
};
