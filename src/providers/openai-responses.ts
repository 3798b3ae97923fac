import { randomUUID } from "node:crypto";
import type {
  FunctionTool,
  ResponseCreateParamsStreaming,
  ResponseFunctionWebSearch,
  ResponseInputItem,
  ResponseStreamEvent,
  Tool,
} from "openai/resources/responses/responses";
import {
  type ConversationMessage,
  contentText,
  isMediaBlock,
  type ModelStreamEvent,
  type PromptBlock,
  type StopReason,
  type WebSearchCitation,
} from "../engine/messages.js";
import { accountFingerprint } from "./account-fingerprint.js";
import { toProviderError } from "./errors.js";
import { toolResultText } from "./openai-chat.js";
import { createOpenAIClient } from "./openai-client.js";
import { openaiEffort } from "./openai-effort.js";
import { responsesPart } from "./openai-media.js";
import { usageFromResponses } from "./openai-usage.js";
import { AnthropicStreamBuilder, endedEarly } from "./stream-builder.js";
import {
  type ApiKeySource,
  type LimitScope,
  type MediaInput,
  type ModelProvider,
  type ModelRequest,
  type ModelResponse,
  ProviderError,
  type ToolSpec,
} from "./types.js";

type OpenAIClient = import("openai").OpenAI;

export const DEFAULT_OPENAI_BASE_URL = "https://api.openai.com/v1";

export type OpenAIResponsesProviderOptions = {
  displayName: string;
  apiKey: string;
  apiKeySource: ApiKeySource;
  /** Extra headers on every request (`-H`). */
  headers?: Readonly<Record<string, string>>;
  /** Which media the model takes (the catalog's); undefined: unknown, sent as given. */
  mediaInput?: MediaInput | undefined;
  baseURL: string;
  organization?: string;
  project?: string;
  /** Ask for reasoning summaries (reasoning models only: others reject the parameter). */
  reasoningSummaries?: boolean;
};

/**
 * The OpenAI Responses API (`POST {baseURL}/responses`, streamed) through the official client.
 * Stateless: `store: false`, the whole conversation is sent each turn, as on the other wires.
 */
export class OpenAIResponsesProvider implements ModelProvider {
  readonly wire = "openai-responses" as const;
  readonly displayName: string;
  readonly apiKeySource: ApiKeySource;
  readonly mediaInput: MediaInput | undefined;
  readonly serverWebSearch = true;
  private client: Promise<OpenAIClient> | undefined;

  constructor(private readonly options: OpenAIResponsesProviderOptions) {
    this.displayName = options.displayName;
    this.apiKeySource = options.apiKeySource;
    this.mediaInput = options.mediaInput;
  }

  limitScope(): LimitScope {
    return { provider: "openai", account: accountFingerprint(this.options.baseURL, this.options.apiKey) };
  }

  async stream(request: ModelRequest, signal: AbortSignal): Promise<ModelResponse> {
    const context = { provider: "OpenAI", baseURL: this.options.baseURL };
    try {
      this.client ??= createOpenAIClient({
        baseURL: this.options.baseURL,
        apiKey: this.options.apiKey,
        ...(this.options.organization ? { organization: this.options.organization } : {}),
        ...(this.options.project ? { project: this.options.project } : {}),
        ...(this.options.headers ? { headers: this.options.headers } : {}),
      });
      const client = await this.client;
      const body = toResponsesRequest(request, {
        reasoningSummaries: this.options.reasoningSummaries ?? false,
      });
      const { data, request_id } = await client.responses.create(body, { signal }).withResponse();
      return {
        ...(request_id ? { requestId: request_id } : {}),
        events: translateResponsesStream(data, {
          model: request.model,
          signal,
          onError: (error) => toProviderError(error, context),
          server: `OpenAI at ${context.baseURL}`,
        }),
      };
    } catch (error) {
      throw toProviderError(error, context);
    }
  }
}

export function toResponsesRequest(
  request: ModelRequest,
  options: { reasoningSummaries: boolean },
): ResponseCreateParamsStreaming {
  const body: ResponseCreateParamsStreaming = {
    model: request.model,
    input: toResponsesInput(request.messages),
    stream: true,
    store: false,
    max_output_tokens: request.maxTokens,
  };
  if (request.system.length > 0) body.instructions = request.system;
  const tools: Tool[] = [...request.tools.map(toFunctionTool), ...webSearchTool(request)];
  if (tools.length > 0) body.tools = tools;
  if (options.reasoningSummaries) body.reasoning = { summary: "auto" };
  if (request.effort) {
    body.reasoning = { ...body.reasoning, effort: openaiEffort(request.effort) as "high" };
  }
  return body;
}

/**
 * The Responses API's own `web_search` tool, when the request offers the provider's search
 * (docs/tools.md, "WebSearch"): `filters.allowed_domains` from the allowed list; the API has no
 * blocked list.
 */
function webSearchTool(request: Pick<ModelRequest, "webSearch">): Tool[] {
  const search = request.webSearch;
  if (!search) return [];
  const location = search.userLocation;
  return [
    {
      type: "web_search",
      ...(search.allowedDomains?.length ? { filters: { allowed_domains: [...search.allowedDomains] } } : {}),
      ...(location ? { user_location: { type: "approximate", ...location } } : {}),
    },
  ];
}

function toFunctionTool(tool: ToolSpec): FunctionTool {
  return {
    type: "function",
    name: tool.name,
    description: tool.description,
    parameters: tool.input_schema,
    // Strict mode would reject the optional properties our tool schemas have.
    strict: false,
  };
}

/**
 * Anthropic-shaped conversation → Responses input items, in order: user text → a user message
 * (with images and documents: `input_text` / `input_image` / `input_file` parts); tool_result →
 * `function_call_output` (its output as parts when it holds an image or document); assistant text → an assistant message; tool_use →
 * `function_call` (the tool_use id is the call id). Thinking blocks are not sent back: with
 * `store: false` a reasoning item can only be replayed with its encrypted content.
 */
export function toResponsesInput(messages: readonly ConversationMessage[]): ResponseInputItem[] {
  const items: ResponseInputItem[] = [];
  for (const message of messages) {
    if (message.role === "user") {
      if (typeof message.content === "string") {
        items.push({ role: "user", content: message.content });
        continue;
      }
      const parts: PromptBlock[] = [];
      for (const block of message.content) {
        if (block.type === "tool_result") {
          items.push({
            type: "function_call_output",
            call_id: block.tool_use_id,
            output:
              typeof block.content === "string" || !block.content.some(isMediaBlock)
                ? toolResultText(block.content)
                : block.content.map(responsesPart),
          });
        } else {
          parts.push(block);
        }
      }
      if (parts.some(isMediaBlock)) items.push({ role: "user", content: parts.map(responsesPart) });
      else if (parts.length > 0) items.push({ role: "user", content: contentText(parts, "\n\n") });
      continue;
    }
    let text = "";
    const flushText = () => {
      if (text.length > 0) items.push({ role: "assistant", content: text });
      text = "";
    };
    for (const block of message.content) {
      if (block.type === "text") text += block.text;
      else if (
        block.type === "server_tool_use" &&
        block.name === "web_search" &&
        block.id.startsWith("ws_")
      ) {
        // The search the provider ran, handed back as the item it came as (its result is not an
        // input item: the model read it when it searched). Another provider's search (Anthropic's,
        // after a model switch) is not OpenAI's to take back: left out, the text after it stays.
        flushText();
        items.push(webSearchCallItem(block.id, block.input));
      } else if (block.type === "tool_use") {
        flushText();
        items.push({
          type: "function_call",
          call_id: block.id,
          name: block.name,
          arguments: JSON.stringify(block.input),
        });
      }
    }
    flushText();
  }
  return items;
}

function webSearchCallItem(id: string, input: Record<string, unknown>): ResponseInputItem {
  const query = typeof input.query === "string" ? input.query : "";
  const item: ResponseFunctionWebSearch = {
    type: "web_search_call",
    id,
    status: "completed",
    action: { type: "search", query },
  };
  return item;
}

export type ResponsesStreamOptions = {
  model: string;
  signal: AbortSignal;
  onError?: (error: unknown) => Error;
  server?: string;
};

/**
 * Responses stream events → the engine's Anthropic-shaped events: `response.output_text.delta` →
 * `text_delta`; `response.reasoning_summary_text.delta` / `response.reasoning_text.delta` →
 * `thinking_delta`; a `function_call` output item and its `response.function_call_arguments.delta`s
 * → a tool_use block with `input_json_delta`s; `response.completed` / `response.incomplete` →
 * `message_delta` with the stop reason and usage. `response.failed` and `error` events throw.
 */
export async function* translateResponsesStream(
  events: AsyncIterable<ResponseStreamEvent>,
  options: ResponsesStreamOptions,
): AsyncGenerator<ModelStreamEvent> {
  const builder = new AnthropicStreamBuilder(`resp_${randomUUID()}`, options.model);
  const server = options.server ?? "the server";
  /** Text already streamed per part, so a `*.done` event only fills in what no delta carried. */
  const streamed = new Set<string>();
  let count = 0;
  let refused = false;
  try {
    for await (const event of events) {
      count++;
      if (!event || typeof event !== "object" || typeof (event as { type?: unknown }).type !== "string") {
        throw new ProviderError(
          `${server} did not send a Responses event stream: an event has no type (${JSON.stringify(event)?.slice(0, 80)})`,
          undefined,
          { retryable: false },
        );
      }
      switch (event.type) {
        case "response.created":
        case "response.in_progress":
          yield* builder.start(event.response?.id, event.response?.model);
          break;
        case "response.output_item.added":
          if (event.item.type === "function_call") {
            const key = event.item.id ?? event.item.call_id;
            yield* builder.toolStart(key, event.item.call_id, event.item.name);
            if (event.item.arguments) yield* builder.toolArguments(key, event.item.arguments);
          }
          break;
        case "response.output_text.delta": {
          const key = `text:${event.item_id}:${event.content_index}`;
          streamed.add(key);
          yield* builder.text(event.delta, key);
          break;
        }
        case "response.output_text.done": {
          const key = `text:${event.item_id}:${event.content_index}`;
          if (!streamed.has(key)) yield* builder.text(event.text, key);
          streamed.add(key);
          break;
        }
        case "response.refusal.delta":
          refused = true;
          streamed.add(`refusal:${event.item_id}:${event.content_index}`);
          yield* builder.text(event.delta, `refusal:${event.item_id}:${event.content_index}`);
          break;
        case "response.reasoning_summary_text.delta":
        case "response.reasoning_text.delta": {
          const part =
            event.type === "response.reasoning_text.delta"
              ? `c${event.content_index}`
              : `s${event.summary_index}`;
          const key = `thinking:${event.item_id}`;
          const partKey = `${key}:${part}`;
          // Parts of one reasoning item share a block, separated by a blank line.
          if (!streamed.has(partKey) && builder.isThinkingOpen(key)) yield* builder.thinking("\n\n", key);
          streamed.add(partKey);
          yield* builder.thinking(event.delta, key);
          break;
        }
        case "response.function_call_arguments.delta":
          yield* builder.toolArguments(event.item_id, event.delta);
          break;
        case "response.function_call_arguments.done":
          if (builder.hasTool(event.item_id) && builder.toolArgumentChars(event.item_id) === 0) {
            yield* builder.toolArguments(event.item_id, event.arguments);
          }
          break;
        case "response.output_text.annotation.added": {
          const citation = urlCitation(event.annotation);
          if (citation) yield* builder.citation(`text:${event.item_id}:${event.content_index}`, citation);
          break;
        }
        case "response.output_item.done":
          if (event.item.type === "web_search_call") {
            yield* webSearchBlocks(builder, event.item);
            break;
          }
          if (event.item.type === "function_call") {
            const key = event.item.id ?? event.item.call_id;
            if (!builder.hasTool(key)) yield* builder.toolStart(key, event.item.call_id, event.item.name);
            if (builder.toolArgumentChars(key) === 0) yield* builder.toolArguments(key, event.item.arguments);
          }
          break;
        case "response.completed":
        case "response.incomplete": {
          yield* builder.start(event.response.id, event.response.model);
          const stop = responsesStopReason(event, builder.toolCount > 0, refused);
          yield* builder.finish(stop, usageFromResponses(event.response.usage));
          break;
        }
        case "response.failed": {
          const failure = event.response.error;
          throw new ProviderError(
            `OpenAI response failed${failure?.code ? ` (${failure.code})` : ""}: ${failure?.message ?? "no reason given"}`,
            codeStatus(failure?.code),
            { retryable: failure?.code === "server_error" || failure?.code === "rate_limit_exceeded" },
          );
        }
        case "error":
          throw new ProviderError(
            `OpenAI stream error${event.code ? ` (${event.code})` : ""}: ${event.message}`,
            codeStatus(event.code),
            { retryable: true },
          );
        default:
          break;
      }
      if (builder.hasFinished) break;
    }
  } catch (error) {
    throw options.onError ? options.onError(error) : error;
  }
  if (count === 0 && !options.signal.aborted) {
    throw new ProviderError(
      `${server} did not send a Responses event stream: the response had no events (is the base URL right?)`,
      undefined,
      { retryable: false },
    );
  }
  if (!builder.hasFinished) {
    endedEarly(options.signal, `The stream from ${server} ended before the response completed.`);
  }
}

/**
 * A `web_search_call` item as the engine's `server_tool_use` and `web_search_tool_result` blocks:
 * the query as the input, the sources the action names as the results (Responses gives their URLs
 * only: the URL is the title; no content, which the model read on OpenAI's side).
 */
function webSearchBlocks(
  builder: AnthropicStreamBuilder,
  item: ResponseFunctionWebSearch,
): ModelStreamEvent[] {
  const action = item.action as { type?: string; query?: string; sources?: { url?: string }[] } | undefined;
  const input = action?.type === "search" ? { query: action.query ?? "" } : { ...(action ?? {}) };
  const content =
    item.status === "failed"
      ? { type: "web_search_tool_result_error" as const, error_code: "unavailable" }
      : (action?.sources ?? []).flatMap((source) =>
          typeof source.url === "string"
            ? [
                {
                  type: "web_search_result" as const,
                  url: source.url,
                  title: source.url,
                  encrypted_content: "",
                  page_age: null,
                },
              ]
            : [],
        );
  return builder.webSearch(item.id, input, content);
}

/** A `url_citation` annotation as the engine's citation; undefined for other annotations. */
function urlCitation(annotation: unknown): WebSearchCitation | undefined {
  const value = annotation as { type?: string; url?: unknown; title?: unknown } | null;
  if (value?.type !== "url_citation" || typeof value.url !== "string") return undefined;
  return {
    type: "web_search_result_location",
    url: value.url,
    title: typeof value.title === "string" ? value.title : null,
    cited_text: "",
    encrypted_index: "",
  };
}

/** The HTTP status an in-stream error code stands for (for messages and retry events). */
function codeStatus(code: string | null | undefined): number | undefined {
  if (code === "rate_limit_exceeded") return 429;
  if (code === "server_error") return 500;
  return undefined;
}

function responsesStopReason(
  event: Extract<ResponseStreamEvent, { type: "response.completed" | "response.incomplete" }>,
  hasToolCalls: boolean,
  refused: boolean,
): StopReason {
  if (event.type === "response.incomplete") {
    const reason = event.response.incomplete_details?.reason;
    if (reason === "max_output_tokens") return "max_tokens";
    if (reason === "content_filter") return "refusal";
  }
  if (hasToolCalls) return "tool_use";
  return refused ? "refusal" : "end_turn";
}
