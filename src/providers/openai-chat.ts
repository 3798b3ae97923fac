import { randomUUID } from "node:crypto";
import type {
  ChatCompletionChunk,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from "openai/resources/chat/completions";
import {
  type ConversationMessage,
  contentText,
  isMediaBlock,
  type ModelStreamEvent,
  type PromptBlock,
  type StopReason,
} from "../engine/messages.js";
import { accountFingerprint } from "./account-fingerprint.js";
import { toProviderError } from "./errors.js";
import { createOpenAIClient } from "./openai-client.js";
import type { CompatQuirks } from "./openai-compat.js";
import { openaiEffort } from "./openai-effort.js";
import { chatPart } from "./openai-media.js";
import { usageFromChatCompletions } from "./openai-usage.js";
import { AnthropicStreamBuilder, endedEarly } from "./stream-builder.js";
import {
  type ApiKeySource,
  type LimitScope,
  type ModelProvider,
  type ModelRequest,
  type ModelResponse,
  ProviderError,
  type ToolSpec,
} from "./types.js";

type OpenAIClient = import("openai").OpenAI;

export type OpenAIChatProviderOptions = {
  quirks: CompatQuirks;
  displayName: string;
  baseURL: string;
  /** Undefined: requests carry no Authorization header. */
  apiKey?: string;
  apiKeySource: ApiKeySource;
  /** Extra headers on every request (`-H`). */
  headers?: Readonly<Record<string, string>>;
};

/**
 * OpenAI Chat Completions (`POST {baseURL}/chat/completions`, streamed) through the official
 * `openai` client: Ollama, LM Studio, vLLM, llama.cpp's server and any other compatible server.
 * Per-server differences come from `quirks` (openai-compat.ts) only.
 */
export class OpenAIChatProvider implements ModelProvider {
  readonly wire = "openai-chat" as const;
  readonly displayName: string;
  readonly apiKeySource: ApiKeySource;
  private client: Promise<OpenAIClient> | undefined;

  constructor(private readonly options: OpenAIChatProviderOptions) {
    this.displayName = options.displayName;
    this.apiKeySource = options.apiKeySource;
  }

  limitScope(): LimitScope {
    return {
      provider: this.options.quirks.name,
      account: accountFingerprint(this.options.baseURL, this.options.apiKey),
    };
  }

  async stream(request: ModelRequest, signal: AbortSignal): Promise<ModelResponse> {
    const context = { provider: this.options.quirks.label, baseURL: this.options.baseURL };
    try {
      this.client ??= createOpenAIClient({
        baseURL: this.options.baseURL,
        ...(this.options.apiKey !== undefined ? { apiKey: this.options.apiKey } : {}),
        ...(this.options.headers ? { headers: this.options.headers } : {}),
      });
      const client = await this.client;
      const { data, request_id } = await client.chat.completions
        .create(toChatRequest(request, this.options.quirks), { signal })
        .withResponse();
      return {
        ...(request_id ? { requestId: request_id } : {}),
        events: translateChatStream(data, {
          model: request.model,
          quirks: this.options.quirks,
          signal,
          onError: (error) => toProviderError(error, context),
          server: `${context.provider} at ${context.baseURL}`,
        }),
      };
    } catch (error) {
      throw toProviderError(error, context);
    }
  }
}

/** The engine's request as a Chat Completions request body. */
export function toChatRequest(
  request: ModelRequest,
  quirks: CompatQuirks,
): ChatCompletionCreateParamsStreaming {
  const body: ChatCompletionCreateParamsStreaming = {
    model: request.model,
    messages: toChatMessages(request.system, request.messages, quirks.label),
    stream: true,
  };
  if (quirks.streamUsage) body.stream_options = { include_usage: true };
  body[quirks.maxTokensField] = request.maxTokens;
  if (request.tools.length > 0) body.tools = request.tools.map(toChatTool);
  if (request.effort) body.reasoning_effort = openaiEffort(request.effort) as "high";
  return body;
}

function toChatTool(tool: ToolSpec): ChatCompletionTool {
  return {
    type: "function",
    function: { name: tool.name, description: tool.description, parameters: tool.input_schema },
  };
}

/**
 * Anthropic-shaped conversation → Chat messages: the system prompt first; tool_use blocks become
 * the assistant's `tool_calls`; each tool_result becomes a `tool` message (right after the assistant
 * message, as the API requires) and any text beside it a following user message. Thinking blocks
 * are not sent back (Chat servers have no field for them).
 */
export function toChatMessages(
  system: string,
  messages: readonly ConversationMessage[],
  server = "The server",
): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = [];
  if (system.length > 0) out.push({ role: "system", content: system });
  for (const message of messages) {
    if (message.role === "user") {
      if (typeof message.content === "string") {
        out.push({ role: "user", content: message.content });
        continue;
      }
      // A `tool` message holds text only: a result's images and documents follow in the user message.
      const parts: PromptBlock[] = [];
      for (const block of message.content) {
        if (block.type === "tool_result") {
          out.push({ role: "tool", tool_call_id: block.tool_use_id, content: toolResultText(block.content) });
          if (typeof block.content !== "string" && block.content.some(isMediaBlock)) {
            parts.push({ type: "text", text: `Attached by tool call ${block.tool_use_id}:` });
            parts.push(...block.content.filter(isMediaBlock));
          }
        } else {
          parts.push(block);
        }
      }
      if (parts.some(isMediaBlock)) {
        out.push({ role: "user", content: parts.map((part) => chatPart(part, server)) });
      } else if (parts.length > 0) out.push({ role: "user", content: contentText(parts, "\n\n") });
      continue;
    }
    const text = message.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("");
    const toolCalls = message.content.flatMap((block) =>
      block.type === "tool_use"
        ? [
            {
              id: block.id,
              type: "function" as const,
              function: { name: block.name, arguments: JSON.stringify(block.input) },
            },
          ]
        : [],
    );
    if (text.length === 0 && toolCalls.length === 0) continue;
    out.push({
      role: "assistant",
      content: text.length > 0 ? text : null,
      ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
    });
  }
  return out;
}

/** A tool result as text; its images and documents as placeholders (text-only fields). */
export function toolResultText(content: string | PromptBlock[]): string {
  return contentText(content);
}

export type ChatStreamOptions = {
  /** Model id reported when the server sends none. */
  model: string;
  quirks: Pick<CompatQuirks, "reasoningFields">;
  signal: AbortSignal;
  /** Maps an error thrown by the chunk source (default: rethrow as is). */
  onError?: (error: unknown) => Error;
  /** "Ollama at http://…", for the messages of a stream that is not a Chat stream. */
  server?: string;
};

/**
 * Chat Completions chunks → the engine's Anthropic-shaped events. Text → `text_delta`; the
 * reasoning fields → `thinking_delta`; `delta.tool_calls` fragments → a tool_use block per call
 * with `input_json_delta`s as the arguments stream; `finish_reason` and the usage chunk →
 * `message_delta`. A pure function of the chunks, tested without a server too.
 */
export async function* translateChatStream(
  chunks: AsyncIterable<ChatCompletionChunk>,
  options: ChatStreamOptions,
): AsyncGenerator<ModelStreamEvent> {
  const builder = new AnthropicStreamBuilder(`chatcmpl_${randomUUID()}`, options.model);
  const server = options.server ?? "the server";
  /** Current tool call per `index`, so a server that reuses index 0 for every call still works. */
  const callsByIndex = new Map<number, { key: string; id: string }>();
  let finishReason: string | null = null;
  let usage: unknown;
  let chunkCount = 0;
  try {
    for await (const chunk of chunks) {
      chunkCount++;
      if (!chunk || typeof chunk !== "object") {
        throw garbage(server, `a stream event is ${JSON.stringify(chunk)?.slice(0, 80)}, not a chunk object`);
      }
      yield* builder.start(chunk.id, chunk.model);
      if (chunk.usage) usage = chunk.usage;
      const choice = chunk.choices?.[0];
      if (!choice) continue;
      const delta = (choice.delta ?? {}) as Record<string, unknown>;
      for (const field of options.quirks.reasoningFields) {
        const value = delta[field];
        if (typeof value === "string" && value.length > 0) {
          yield* builder.thinking(value);
          break;
        }
      }
      if (typeof delta.content === "string") yield* builder.text(delta.content);
      if (typeof delta.refusal === "string") yield* builder.text(delta.refusal);
      if (Array.isArray(delta.tool_calls)) {
        for (const call of delta.tool_calls as ChatCompletionChunk.Choice.Delta.ToolCall[]) {
          yield* toolCallFragment(builder, callsByIndex, call);
        }
      }
      if (choice.finish_reason) finishReason = choice.finish_reason;
    }
  } catch (error) {
    throw options.onError ? options.onError(error) : error;
  }
  if (chunkCount === 0) {
    if (options.signal.aborted) endedEarly(options.signal, "");
    throw garbage(server, "the response had no stream events (is this an OpenAI-compatible server?)");
  }
  if (finishReason === null) {
    endedEarly(
      options.signal,
      `The stream from ${server} ended before the model finished (no finish_reason).`,
    );
  }
  yield* builder.finish(chatStopReason(finishReason, builder.toolCount > 0), usageFromChatCompletions(usage));
}

function* toolCallFragment(
  builder: AnthropicStreamBuilder,
  callsByIndex: Map<number, { key: string; id: string }>,
  call: ChatCompletionChunk.Choice.Delta.ToolCall,
): Generator<ModelStreamEvent> {
  const index = typeof call.index === "number" ? call.index : 0;
  let current = callsByIndex.get(index);
  const newId = typeof call.id === "string" && call.id.length > 0 ? call.id : undefined;
  if (!current || (newId !== undefined && newId !== current.id)) {
    // Servers that omit ids (some llama.cpp builds) get one; it only has to be unique in the session.
    const id = newId ?? `call_${randomUUID().replaceAll("-", "")}`;
    current = { key: `${index}:${id}`, id };
    callsByIndex.set(index, current);
    yield* builder.toolStart(current.key, id, call.function?.name ?? "");
  }
  const args: unknown = call.function?.arguments;
  // A few servers send the arguments as an object rather than JSON text.
  const fragment =
    typeof args === "string" ? args : args && typeof args === "object" ? JSON.stringify(args) : "";
  yield* builder.toolArguments(current.key, fragment);
}

export function chatStopReason(finishReason: string, hasToolCalls: boolean): StopReason {
  switch (finishReason) {
    case "length":
      return "max_tokens";
    case "tool_calls":
    case "function_call":
      return "tool_use";
    case "content_filter":
      return "refusal";
    default:
      // Some servers say "stop" after tool calls; the calls decide.
      return hasToolCalls ? "tool_use" : "end_turn";
  }
}

function garbage(server: string, what: string): ProviderError {
  return new ProviderError(`${server} did not send a Chat Completions stream: ${what}`, undefined, {
    retryable: false,
  });
}
