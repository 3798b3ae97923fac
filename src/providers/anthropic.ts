import type { ModelStreamEvent } from "../engine/messages.js";
import {
  type ApiKeySource,
  type ModelProvider,
  type ModelRequest,
  type ModelResponse,
  ProviderError,
} from "./types.js";

export type AnthropicProviderOptions = {
  model: string;
  displayName: string;
  apiKey: string;
  apiKeySource: ApiKeySource;
  baseURL?: string;
  /** Retries the client performs before a stream starts (connection errors, 429/5xx). */
  maxRetries?: number;
};

type AnthropicClient = import("@anthropic-ai/sdk").Anthropic;

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
    const client = await this.getClient();
    try {
      const { data, request_id } = await client.messages
        .create(
          {
            model: request.model,
            max_tokens: request.maxTokens,
            system: request.system,
            // The engine's shapes are the Messages API's own; the cast only bridges declared types.
            messages: request.messages as Parameters<AnthropicClient["messages"]["create"]>[0]["messages"],
            tools: request.tools as Parameters<AnthropicClient["messages"]["create"]>[0]["tools"],
            stream: true,
          },
          { signal },
        )
        .withResponse();
      return {
        ...(request_id ? { requestId: request_id } : {}),
        events: translateErrors(data as AsyncIterable<unknown> as AsyncIterable<ModelStreamEvent>),
      };
    } catch (error) {
      throw toProviderError(error, this.options.baseURL);
    }
  }

  private getClient(): Promise<AnthropicClient> {
    this.client ??= import("@anthropic-ai/sdk").then(
      ({ Anthropic }) =>
        new Anthropic({
          apiKey: this.options.apiKey,
          ...(this.options.baseURL ? { baseURL: this.options.baseURL } : {}),
          maxRetries: this.options.maxRetries ?? 2,
        }),
    );
    return this.client;
  }
}

async function* translateErrors(events: AsyncIterable<ModelStreamEvent>): AsyncIterable<ModelStreamEvent> {
  try {
    for await (const event of events) {
      // Anthropic interleaves `ping` events; they carry nothing for the engine.
      if ((event as { type: string }).type === "ping") continue;
      yield event;
    }
  } catch (error) {
    throw toProviderError(error);
  }
}

function toProviderError(error: unknown, baseURL?: string): Error {
  if (error instanceof Error && (error.name === "AbortError" || error.name === "APIUserAbortError"))
    return error;
  const status = (error as { status?: number }).status;
  const message = error instanceof Error ? error.message : String(error);
  if (status) return new ProviderError(`Anthropic API error ${status}: ${message}`, status, { cause: error });
  const where = baseURL ? ` (${baseURL})` : "";
  return new ProviderError(`Anthropic API request failed${where}: ${message}`, undefined, { cause: error });
}
