import type { ModelStreamEvent } from "../engine/messages.js";
import { toProviderError } from "./errors.js";
import { endedEarly } from "./stream-builder.js";
import {
  type ApiKeySource,
  type ModelProvider,
  type ModelRequest,
  type ModelResponse,
  ProviderError,
} from "./types.js";

export const DEFAULT_ANTHROPIC_BASE_URL = "https://api.anthropic.com";

export type AnthropicProviderOptions = {
  model: string;
  displayName: string;
  apiKey: string;
  apiKeySource: ApiKeySource;
  baseURL?: string;
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
};

type AnthropicClient = import("@anthropic-ai/sdk").Anthropic;
type CreateParams = Parameters<AnthropicClient["messages"]["create"]>[0];

/**
 * Anthropic Messages API through the official client, streaming. Works against any server that
 * speaks that API (ANTHROPIC_BASE_URL). The client module is imported on first use so that
 * start-up never pays for it.
 */
export class AnthropicProvider implements ModelProvider {
  readonly wire = "anthropic-messages" as const;
  readonly displayName: string;
  readonly apiKeySource: ApiKeySource;
  private client: Promise<AnthropicClient> | undefined;

  constructor(private readonly options: AnthropicProviderOptions) {
    this.displayName = options.displayName;
    this.apiKeySource = options.apiKeySource;
  }

  async stream(request: ModelRequest, signal: AbortSignal): Promise<ModelResponse> {
    const context = { provider: "Anthropic", baseURL: this.options.baseURL ?? DEFAULT_ANTHROPIC_BASE_URL };
    try {
      const client = await this.getClient();
      const { data, request_id } = await client.messages
        .create(
          {
            model: request.model,
            max_tokens: request.maxTokens,
            ...(this.options.promptCaching
              ? withCacheBreakpoints(request)
              : // The engine's shapes are the Messages API's own; the cast only bridges declared types.
                { system: request.system, messages: request.messages as CreateParams["messages"] }),
            tools: request.tools as CreateParams["tools"],
            stream: true,
          },
          { signal },
        )
        .withResponse();
      return {
        ...(request_id ? { requestId: request_id } : {}),
        events: checkStream(
          data as AsyncIterable<unknown> as AsyncIterable<ModelStreamEvent>,
          signal,
          context.baseURL,
          (error) => toProviderError(error, context),
        ),
      };
    } catch (error) {
      throw toProviderError(error, context);
    }
  }

  private getClient(): Promise<AnthropicClient> {
    this.client ??= import("@anthropic-ai/sdk").then(
      ({ Anthropic }) =>
        new Anthropic({
          apiKey: this.options.apiKey,
          ...(this.options.baseURL ? { baseURL: this.options.baseURL } : {}),
          maxRetries: this.options.maxRetries ?? 0,
          logLevel: "off",
        }),
    );
    return this.client;
  }
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
  const messages = request.messages.slice() as CreateParams["messages"];
  const lastIndex = messages.length - 1;
  const last = messages[lastIndex];
  if (last?.role === "user") {
    const blocks =
      typeof last.content === "string"
        ? [{ type: "text" as const, text: last.content }]
        : last.content.slice();
    const tail = blocks.at(-1);
    if (tail && (tail.type === "text" || tail.type === "tool_result")) {
      blocks[blocks.length - 1] = { ...tail, cache_control: EPHEMERAL };
      messages[lastIndex] = { role: "user", content: blocks };
    }
  }
  return { system, messages };
}

/**
 * Passes the client's events through, dropping `ping`s, mapping failures to ProviderError, and
 * failing a stream that ends without `message_stop` (a cut connection the client did not notice,
 * or a server that answered something other than an event stream).
 */
async function* checkStream(
  events: AsyncIterable<ModelStreamEvent>,
  signal: AbortSignal,
  baseURL: string,
  mapError: (error: unknown) => Error,
): AsyncIterable<ModelStreamEvent> {
  let stopped = false;
  let count = 0;
  try {
    for await (const event of events) {
      const type = (event as { type?: unknown } | null)?.type;
      if (typeof type !== "string") {
        throw new ProviderError(
          `Anthropic server at ${baseURL} sent a stream event without a type: ${JSON.stringify(event)?.slice(0, 80)}`,
          undefined,
          { retryable: false },
        );
      }
      if (type === "ping") continue;
      count++;
      if (type === "message_stop") stopped = true;
      yield event;
    }
  } catch (error) {
    throw mapError(error);
  }
  if (count === 0 && !signal.aborted) {
    throw new ProviderError(
      `Anthropic server at ${baseURL} did not send a Messages event stream: the response had no events (is the base URL right?)`,
      undefined,
      { retryable: false },
    );
  }
  if (!stopped) endedEarly(signal, `The Anthropic stream from ${baseURL} ended before message_stop.`);
}
