/**
 * The port the engine calls a model through. Providers (src/providers/) implement it; the engine
 * imports no provider (test/layering.test.ts holds that).
 */
import {
  type ConversationMessage,
  isMediaBlock,
  type MediaBlock,
  type ModelStreamEvent,
} from "./messages.js";

/** Wire APIs a provider can speak. Providers are keyed by wire, not by vendor. */
export type WireApi = "anthropic-messages" | "openai-chat" | "openai-responses" | "llama" | "replay";

/** A tool as offered to the model: name, description and JSON Schema of its input. */
export type ToolSpec = { name: string; description: string; input_schema: Record<string, unknown> };

/**
 * The provider's own web search, offered in place of cairn's WebSearch tool (docs/tools.md,
 * "WebSearch"): Anthropic's `web_search_20250305` server tool, OpenAI Responses' `web_search`.
 * The provider runs the searches; their blocks come back in the answer (`server_tool_use`,
 * `web_search_tool_result`). Anthropic takes either domain list, not both: `allowedDomains` wins.
 */
export type ServerWebSearch = {
  allowedDomains?: readonly string[];
  blockedDomains?: readonly string[];
  /** Searches per model call (Anthropic `max_uses`). */
  maxUses?: number;
  /** Where the user is, for local results (Anthropic's and OpenAI's `user_location`). */
  userLocation?: { city?: string; region?: string; country?: string; timezone?: string };
};

export type ModelRequest = {
  /** The provider-side model id, without the `provider/` prefix. */
  model: string;
  system: string;
  messages: ConversationMessage[];
  tools: ToolSpec[];
  /** The provider's web search, offered besides `tools` (only to a provider with `serverWebSearch`). */
  webSearch?: ServerWebSearch;
  maxTokens: number;
  /** Extended thinking; each provider maps it to its own parameter (docs/context.md, "Thinking and effort"). */
  thinking?: ThinkingSetting;
  /** Reasoning effort; each provider maps it to its own parameter. */
  effort?: EffortLevel;
};

/** `enabled` without `budgetTokens` means the model decides (as `adaptive`). */
export type ThinkingSetting =
  | { type: "adaptive" }
  | { type: "enabled"; budgetTokens?: number }
  | { type: "disabled" };

export type EffortLevel = "low" | "medium" | "high" | "xhigh" | "max";

/** One model call in flight: the request id (when the server sent one) and the raw event stream. */
/**
 * A provider's report on its rate limits for this call (Anthropic: the `anthropic-ratelimit-*`
 * headers): the most used of its limits.
 */
export type RateLimitReport = {
  status: "allowed" | "allowed_warning" | "rejected";
  /** Which limit (`requests`, `tokens`, `input-tokens`, `output-tokens`). */
  limit: string;
  /** Share of the limit used, 0..1. */
  utilization: number;
  /** When the limit is replenished, seconds since the epoch. */
  resetsAt?: number;
};

export type ModelResponse = {
  requestId?: string;
  rateLimit?: RateLimitReport;
  events: AsyncIterable<ModelStreamEvent>;
  /**
   * The same events grouped as they arrived (one array per network chunk), for providers that can
   * hand them over that way. The engine reads this one when present: a whole chunk then goes through
   * its layers in one step instead of one async step per event (docs/performance.md). A response is
   * read once, through one of the two.
   */
  batches?: AsyncIterable<ModelStreamEvent[]>;
};

export interface ModelProvider {
  readonly wire: WireApi;
  /** Human-readable model name for `system/init.model` (e.g. "Claude Sonnet 4.5"). */
  readonly displayName: string;
  /** How the credential was supplied, as reported in `system/init.apiKeySource`. */
  readonly apiKeySource: ApiKeySource;
  /**
   * Which media the model takes (images, PDFs). Undefined: not known here, the request is sent and
   * the server decides (an OpenAI-compatible server, a model id outside the catalog).
   */
  readonly mediaInput?: MediaInput;
  /** The context window the provider itself knows of (a local model's context size); else the catalog's. */
  readonly contextWindow?: number;
  /**
   * The wire runs a web search of its own (Anthropic Messages, OpenAI Responses): the run offers it
   * in place of cairn's WebSearch tool when the user's settings let it (`ModelRequest.webSearch`).
   */
  readonly serverWebSearch?: boolean;
  /**
   * Who this provider's requests count against, for limits shared by many processes (`cairn
   * worker`): the provider as users name it (`anthropic`, `openai`, `ollama`…) and a fingerprint of
   * its key and endpoint, never the key itself. Absent for providers with no remote account.
   */
  limitScope?(): LimitScope;
  /** Starts one streamed model call. Rejects (or the iterable throws) on provider failure. */
  stream(request: ModelRequest, signal: AbortSignal): Promise<ModelResponse>;
}

/** See `ModelProvider.limitScope`. */
export type LimitScope = { provider: string; account: string };

/** Which media blocks a model takes besides text. */
export type MediaInput = { image: boolean; pdf: boolean };

/** Whether a model that takes `input` can see `block`. A plain-text document is text to every model. */
export function takesMedia(input: MediaInput | undefined, block: MediaBlock): boolean {
  if (!input) return true;
  if (block.type === "image") return input.image;
  return block.source.type === "text" || input.pdf;
}

/**
 * Why `model` cannot be sent `messages`: the first image or document it does not take, as a clear
 * error naming the model; undefined when it takes everything in them.
 */
export function mediaRefusal(
  model: string,
  input: MediaInput | undefined,
  messages: readonly ConversationMessage[],
): string | undefined {
  if (!input || (input.image && input.pdf)) return undefined;
  for (const message of messages) {
    if (message.role !== "user" || typeof message.content === "string") continue;
    for (const block of message.content) {
      const inner =
        block.type === "tool_result" && typeof block.content !== "string" ? block.content : [block];
      const refused = inner.find((part) => isMediaBlock(part) && !takesMedia(input, part));
      if (refused) {
        const what = refused.type === "image" ? "images" : "PDF documents";
        return `The model ${model} does not take ${what}: send text, or use a model with ${refused.type === "image" ? "vision" : "PDF input"} (docs/multimodal.md).`;
      }
    }
  }
  return undefined;
}

/** `env` / `flag` for real keys; `none` for providers that need no key (replay, local models). */
export type ApiKeySource = "env" | "flag" | "none";

export type ProviderErrorOptions = {
  cause?: unknown;
  /** Server-requested wait before a retry (from Retry-After / retry-after-ms), in milliseconds. */
  retryAfterMs?: number;
  /**
   * Whether another attempt may succeed. Default: derived from `status` (408/409/429/5xx/529
   * retryable; other 4xx not); a failure without status (connection reset, cut stream, idle stream)
   * is retryable.
   */
  retryable?: boolean;
  /**
   * The request did not fit the model's context window (Anthropic "prompt is too long", OpenAI
   * `context_length_exceeded`, a local model's full context). The engine compacts and retries once.
   */
  contextOverflow?: boolean;
  /**
   * The server is overloaded (Anthropic HTTP 529 or an `overloaded_error`, also inside a stream).
   * Default: status 529. A fallback model takes over after a few of these (src/engine/retry.ts).
   */
  overloaded?: boolean;
};

/** A provider failure (HTTP error, broken or idle stream). The engine retries it when retryable. */
export class ProviderError extends Error {
  override name = "ProviderError";
  readonly retryable: boolean;
  readonly retryAfterMs: number | undefined;
  readonly contextOverflow: boolean;
  readonly overloaded: boolean;
  constructor(
    message: string,
    readonly status?: number,
    options: ProviderErrorOptions = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.retryAfterMs = options.retryAfterMs;
    this.contextOverflow = options.contextOverflow ?? false;
    this.overloaded = options.overloaded ?? status === 529;
    this.retryable = options.contextOverflow ? false : (options.retryable ?? isRetryableStatus(status));
  }
}

export function isRetryableStatus(status: number | undefined): boolean {
  if (status === undefined) return true;
  return status === 408 || status === 409 || status === 429 || status >= 500;
}
