/**
 * The official Anthropic client, reduced to what cairn calls: `BaseAnthropic` (transport, auth,
 * errors) plus the `Messages` resource. `import("@anthropic-ai/sdk")` would keep the whole package
 * (every API resource, about 600 kB) because a dynamic import's namespace cannot be tree-shaken;
 * importing these statically here, and this module lazily from the provider, keeps about 200 kB
 * (docs/performance.md).
 */
import { BaseAnthropic } from "@anthropic-ai/sdk/client";
import { APIError } from "@anthropic-ai/sdk/core/error";
import { Messages } from "@anthropic-ai/sdk/resources/messages/messages";
import { nodeFetch } from "./node-fetch.js";

export type AnthropicClientOptions = {
  apiKey: string;
  baseURL?: string;
  maxRetries: number;
  /** Sent with every request (`-H`). */
  headers?: Readonly<Record<string, string>>;
};

/** What `new Anthropic(…)` gives, minus the resources cairn never uses. */
export class AnthropicMessagesClient extends BaseAnthropic {
  readonly messages: Messages = new Messages(this);
}

export function createAnthropicClient(options: AnthropicClientOptions): AnthropicMessagesClient {
  return new AnthropicMessagesClient({
    apiKey: options.apiKey,
    ...(options.baseURL ? { baseURL: options.baseURL } : {}),
    maxRetries: options.maxRetries,
    logLevel: "off",
    ...(options.headers ? { defaultHeaders: { ...options.headers } } : {}),
    // Node's HTTP stack instead of undici's fetch: about 25 ms less per run (node-fetch.ts).
    fetch: nodeFetch as unknown as typeof fetch,
  });
}

/**
 * The error the client's own stream parser throws for an `event: error` message (body parsed as
 * JSON when it is JSON), so that an in-stream error maps to the same ProviderError either way.
 */
export function streamError(data: string, headers: Headers): Error {
  let body: unknown;
  try {
    body = JSON.parse(data);
  } catch {}
  body ??= data;
  type ErrorType = ConstructorParameters<typeof APIError>[4];
  const type = (body as { error?: { type?: ErrorType } } | null)?.error?.type;
  return new APIError(undefined, body as object, undefined, headers, type);
}
