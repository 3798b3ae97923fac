import { eachOf } from "../engine/event-batches.js";
import type { AssistantContentBlock, ConversationMessage } from "../engine/messages.js";
import { accountFingerprint } from "./account-fingerprint.js";
import { anthropicEventBatches } from "./anthropic-events.js";
import { anthropicRateLimit } from "./anthropic-rate-limits.js";
import { toProviderError } from "./errors.js";
import { withLibraryWarnings } from "./library-warnings.js";
import type {
  ApiKeySource,
  LimitScope,
  MediaInput,
  ModelProvider,
  ModelRequest,
  ModelResponse,
} from "./types.js";

export const DEFAULT_ANTHROPIC_BASE_URL = "https://api.anthropic.com";

export type AnthropicProviderOptions = {
  model: string;
  displayName: string;
  apiKey: string;
  apiKeySource: ApiKeySource;
  /** Which media the model takes (the catalog's); undefined: unknown, sent as given. */
  mediaInput?: MediaInput | undefined;
  baseURL?: string;
  /** Extra headers on every request (`-H`). */
  headers?: Readonly<Record<string, string>>;
  /**
   * Anthropic prompt caching: marks the system prompt and the conversation so far (the last block
   * of the last user message) as cache breakpoints, so each turn reads the previous turn's prefix
   * from the cache (`cache_read_input_tokens`) instead of paying full input price. Default off.
   */
  promptCaching?: boolean;
  /**
   * Retries the client itself performs. Default 0: the engine retries (with backoff, Retry-After
   * and de-duplicated output), and two retry layers would multiply the attempts.
   */
  maxRetries?: number;
  /** Beta features, sent as the `anthropic-beta` header of every request (SDK `betas`). */
  betas?: readonly string[];
};

type ClientModule = typeof import("./anthropic-client.js");
type AnthropicClient = import("./anthropic-client.js").AnthropicMessagesClient;
type CreateParams = Parameters<AnthropicClient["messages"]["create"]>[0];
type LoadedClient = { client: AnthropicClient; streamError: ClientModule["streamError"] };

/**
 * Anthropic Messages API through the official client, streaming. Works against any server that
 * speaks that API (ANTHROPIC_BASE_URL). The client module is imported on first use so that
 * start-up never pays for it.
 */
export class AnthropicProvider implements ModelProvider {
  readonly wire = "anthropic-messages" as const;
  readonly displayName: string;
  readonly apiKeySource: ApiKeySource;
  readonly mediaInput: MediaInput | undefined;
  readonly serverWebSearch = true;
  private client: Promise<LoadedClient> | undefined;

  constructor(private readonly options: AnthropicProviderOptions) {
    this.displayName = options.displayName;
    this.apiKeySource = options.apiKeySource;
    this.mediaInput = options.mediaInput;
  }

  limitScope(): LimitScope {
    return {
      provider: "anthropic",
      account: accountFingerprint(this.options.baseURL ?? DEFAULT_ANTHROPIC_BASE_URL, this.options.apiKey),
    };
  }

  async stream(request: ModelRequest, signal: AbortSignal): Promise<ModelResponse> {
    const baseURL = this.options.baseURL ?? DEFAULT_ANTHROPIC_BASE_URL;
    const mapError = (error: unknown) => toProviderError(error, { provider: "Anthropic", baseURL });
    // The client keeps an abort listener on the signal it is given until it has finished reading the
    // body, which here it never does: it gets a signal of its own, unlinked once the body is done.
    const link = linkedSignal(signal);
    try {
      const { client, streamError } = await this.getClient();
      // The client sends the request (auth, headers, HTTP errors as its APIError); the event stream
      // is read from the raw body, a network chunk at a time (src/providers/anthropic-events.ts).
      // `create` console.warns about deprecated models before it sends: that goes to cairn's notices.
      const response = await withLibraryWarnings("@anthropic-ai/sdk", () =>
        client.messages.create(
          {
            model: request.model,
            max_tokens: request.maxTokens,
            ...(thinkingParams(request) as Partial<CreateParams>),
            ...(this.options.promptCaching
              ? withCacheBreakpoints(request)
              : // The engine's shapes are the Messages API's own; the cast only bridges declared types.
                {
                  system: request.system,
                  messages: withoutForeignSearches(request.messages) as CreateParams["messages"],
                }),
            tools: [...request.tools, ...webSearchTool(request)] as CreateParams["tools"],
            stream: true,
          },
          {
            signal: link.signal,
            ...(this.options.betas ? { headers: { "anthropic-beta": this.options.betas.join(",") } } : {}),
          },
        ),
      ).asResponse();
      const requestId = response.headers.get("request-id");
      const rateLimit = anthropicRateLimit(response.headers);
      const batches = anthropicEventBatches(response, {
        signal,
        baseURL,
        mapError,
        streamError,
        onFinished: link.unlink,
      });
      return {
        ...(requestId ? { requestId } : {}),
        ...(rateLimit ? { rateLimit } : {}),
        batches,
        events: eachOf(batches),
      };
    } catch (error) {
      link.unlink();
      throw mapError(error);
    }
  }

  private getClient(): Promise<LoadedClient> {
    this.client ??= import("./anthropic-client.js").then(({ createAnthropicClient, streamError }) => ({
      client: createAnthropicClient({
        apiKey: this.options.apiKey,
        ...(this.options.baseURL ? { baseURL: this.options.baseURL } : {}),
        maxRetries: this.options.maxRetries ?? 0,
        ...(this.options.headers ? { headers: this.options.headers } : {}),
      }),
      streamError,
    }));
    return this.client;
  }
}

/**
 * The Messages API's web search server tool, when the request offers the provider's search
 * (docs/tools.md, "WebSearch"). The API takes `allowed_domains` or `blocked_domains`, never both:
 * an allowed list (stricter) wins.
 */
export function webSearchTool(request: Pick<ModelRequest, "webSearch">): Record<string, unknown>[] {
  const search = request.webSearch;
  if (!search) return [];
  const location = search.userLocation;
  return [
    {
      type: "web_search_20250305",
      name: "web_search",
      ...(search.maxUses !== undefined ? { max_uses: search.maxUses } : {}),
      ...(search.allowedDomains?.length
        ? { allowed_domains: [...search.allowedDomains] }
        : search.blockedDomains?.length
          ? { blocked_domains: [...search.blockedDomains] }
          : {}),
      ...(location ? { user_location: { type: "approximate", ...location } } : {}),
    },
  ];
}

/** A search result block or a citation without the Messages API's encrypted content: another provider's. */
function foreign(block: AssistantContentBlock): boolean {
  if (block.type === "web_search_tool_result")
    return Array.isArray(block.content) && block.content.some(isForeignResult);
  return block.type === "text" && block.citations?.some(isForeignCitation) === true;
}

const isForeignResult = (result: { encrypted_content?: string }) => !result.encrypted_content;
const isForeignCitation = (citation: { encrypted_index?: string }) => !citation.encrypted_index;

/**
 * Whether any assistant message holds a foreign search. Plain loops over module-level functions:
 * this runs on every request over the whole history, and the closures it made per call were
 * compiled again by TurboFan after each of the interactive mode's full collections (43 times in
 * 250 turns, in V8's log: docs/performance.md, "TurboFan churn").
 */
function hasForeignSearches(messages: readonly ConversationMessage[]): boolean {
  for (const message of messages) {
    if (message.role !== "assistant") continue;
    for (const block of message.content) if (foreign(block)) return true;
  }
  return false;
}

/**
 * The history without searches another provider ran (OpenAI's, after a model switch or a
 * fallback): the Messages API takes back only its own, with their encrypted content. Their blocks
 * are left out, and citations without an encrypted index dropped from the text; the text stays.
 * The history itself is not changed; one without such blocks is returned as it is.
 */
export function withoutForeignSearches(messages: readonly ConversationMessage[]): ConversationMessage[] {
  if (!hasForeignSearches(messages)) return messages as ConversationMessage[];
  return messages.map((message) => {
    if (message.role !== "assistant") return message;
    const dropped = new Set(
      message.content.flatMap((block) =>
        block.type === "web_search_tool_result" && foreign(block) ? [block.tool_use_id] : [],
      ),
    );
    const content = message.content.flatMap((block): AssistantContentBlock[] => {
      if (block.type === "server_tool_use" && dropped.has(block.id)) return [];
      if (block.type === "web_search_tool_result" && dropped.has(block.tool_use_id)) return [];
      if (block.type === "text" && foreign(block)) {
        const { citations: _citations, ...text } = block;
        return [text];
      }
      return [block];
    });
    return { role: "assistant", content };
  });
}

/** Room for the answer beside a thinking budget: the API wants `budget_tokens` below `max_tokens`. */
const ANSWER_ROOM = 4_096;

/**
 * `thinking` and `effort` as Messages API parameters: `thinking: {type: "enabled", budget_tokens}`
 * (max_tokens raised above the budget when needed), `{type: "adaptive"}` (enabled without a
 * budget), `{type: "disabled"}`; effort as `output_config.effort`.
 */
export function thinkingParams(
  request: Pick<ModelRequest, "thinking" | "effort" | "maxTokens">,
): Record<string, unknown> {
  const params: Record<string, unknown> = {};
  const thinking = request.thinking;
  if (thinking?.type === "enabled" && thinking.budgetTokens !== undefined) {
    params.thinking = { type: "enabled", budget_tokens: thinking.budgetTokens };
    if (request.maxTokens <= thinking.budgetTokens) params.max_tokens = thinking.budgetTokens + ANSWER_ROOM;
  } else if (thinking) {
    params.thinking = { type: thinking.type === "disabled" ? "disabled" : "adaptive" };
  }
  if (request.effort) params.output_config = { effort: request.effort };
  return params;
}

/** A signal that follows `signal` until `unlink()`. */
function linkedSignal(signal: AbortSignal): { signal: AbortSignal; unlink: () => void } {
  const controller = new AbortController();
  const abort = () => controller.abort(signal.reason);
  if (signal.aborted) abort();
  else signal.addEventListener("abort", abort, { once: true });
  return { signal: controller.signal, unlink: () => signal.removeEventListener("abort", abort) };
}

const EPHEMERAL = { type: "ephemeral" } as const;

/**
 * The system prompt and messages with two cache breakpoints: the system prompt (tools + system,
 * shared by every turn) and the last block of the last user message (the whole conversation; the
 * next turn's request starts with it, so it reads it back from the cache). Copies, never mutates
 * the engine's history.
 */
export function withCacheBreakpoints(request: Pick<ModelRequest, "system" | "messages">): {
  system: CreateParams["system"];
  messages: CreateParams["messages"];
} {
  const system =
    request.system.length > 0
      ? [{ type: "text" as const, text: request.system, cache_control: EPHEMERAL }]
      : [];
  const messages = withoutForeignSearches(request.messages).slice() as CreateParams["messages"];
  const lastIndex = messages.length - 1;
  const last = messages[lastIndex];
  if (last?.role === "user") {
    const blocks =
      typeof last.content === "string"
        ? [{ type: "text" as const, text: last.content }]
        : last.content.slice();
    const tail = blocks.at(-1);
    if (
      tail &&
      (tail.type === "text" ||
        tail.type === "tool_result" ||
        tail.type === "image" ||
        tail.type === "document")
    ) {
      blocks[blocks.length - 1] = { ...tail, cache_control: EPHEMERAL };
      messages[lastIndex] = { role: "user", content: blocks };
    }
  }
  return { system, messages };
}
