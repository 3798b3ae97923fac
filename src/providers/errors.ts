import { ProviderError } from "./types.js";

/**
 * Maps whatever a provider client threw into a `ProviderError` the engine can act on: HTTP status,
 * server-requested wait (`retry-after-ms` / `retry-after`), retryability, and a message that names
 * the server. Aborts are passed through untouched (the engine decides what an abort means).
 *
 * Both official clients (`@anthropic-ai/sdk`, `openai`) share the Stainless error shapes: `APIError`
 * with `status`, `headers` (a `Headers`), `error` (the parsed body); `APIConnectionError` (no
 * status); `APIUserAbortError`. Inspected structurally so no client module is loaded here.
 */
export type ErrorContext = {
  /** "Anthropic", "OpenAI", "Ollama", … — starts every message. */
  provider: string;
  /** The base URL requests go to; named in connection and garbage-stream errors. */
  baseURL: string;
};

type HeadersLike = { get(name: string): string | null } | Record<string, string | string[] | undefined>;

/** `retry-after-ms` (milliseconds) wins over `retry-after` (seconds or an HTTP date). */
export function retryAfterMsFromHeaders(
  headers: HeadersLike | null | undefined,
  now: number = Date.now(),
): number | undefined {
  if (!headers) return undefined;
  const read = (name: string): string | undefined => {
    if (typeof (headers as { get?: unknown }).get === "function") {
      return (headers as { get(name: string): string | null }).get(name) ?? undefined;
    }
    const value = (headers as Record<string, string | string[] | undefined>)[name];
    return Array.isArray(value) ? value[0] : value;
  };
  const ms = read("retry-after-ms");
  if (ms !== undefined && ms.trim() !== "") {
    const value = Number(ms);
    if (Number.isFinite(value) && value >= 0) return value;
  }
  const after = read("retry-after");
  if (after !== undefined && after.trim() !== "") {
    const seconds = Number(after);
    // A negative number is no wait at all, not a date (Date.parse("-5") is the year -5): ignored.
    if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : undefined;
    const date = Date.parse(after);
    if (!Number.isNaN(date)) return Math.max(0, date - now);
  }
  return undefined;
}

export function isAbortError(error: unknown): boolean {
  const kind = errorKind(error);
  return kind === "AbortError" || kind === "APIUserAbortError";
}

/**
 * The class of a client error. The Anthropic client sets `name`; the OpenAI client leaves it at
 * "Error", so the constructor's name is used then (both packages ship unminified classes).
 */
function errorKind(error: unknown): string | undefined {
  if (!error || typeof error !== "object") return undefined;
  const name = (error as { name?: unknown }).name;
  if (typeof name === "string" && name !== "Error") return name;
  return (error as { constructor?: { name?: string } }).constructor?.name;
}

/** Error `type`s some servers send inside a stream (no HTTP status), mapped to the status they mean. */
const STREAM_ERROR_STATUS: Record<string, number> = {
  overloaded_error: 529,
  api_error: 500,
  server_error: 500,
  rate_limit_error: 429,
  rate_limit_exceeded: 429,
  timeout_error: 504,
  invalid_request_error: 400,
  authentication_error: 401,
  permission_error: 403,
  request_too_large: 413,
};

export function toProviderError(error: unknown, context: ErrorContext): Error {
  if (error instanceof ProviderError || isAbortError(error)) return error as Error;
  const { provider, baseURL } = context;
  const e = (error ?? {}) as {
    status?: unknown;
    headers?: HeadersLike;
    error?: unknown;
  };
  const message = error instanceof Error ? error.message : String(error);

  if (typeof e.status === "number") {
    const retryAfterMs = retryAfterMsFromHeaders(e.headers);
    const shouldRetry = readHeader(e.headers, "x-should-retry");
    const text = apiMessage(e.error) ?? message;
    return new ProviderError(`${provider} API error ${e.status}: ${text}`, e.status, {
      cause: error,
      ...(isContextOverflow(e.status, e.error, text) ? { contextOverflow: true } : {}),
      // A gateway may relay Anthropic's overloaded body under another status.
      ...(errorType(e.error) === "overloaded_error" ? { overloaded: true } : {}),
      ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
      ...(shouldRetry === "true" ? { retryable: true } : shouldRetry === "false" ? { retryable: false } : {}),
    });
  }

  const kind = errorKind(error);
  if (kind === "APIConnectionError" || kind === "APIConnectionTimeoutError") {
    const reason = connectionReason(error);
    return new ProviderError(`Cannot reach ${provider} at ${baseURL}: ${reason}`, undefined, {
      cause: error,
      retryable: true,
    });
  }

  // An `error` event inside an otherwise healthy stream (Anthropic `event: error`, OpenAI `data: {"error":…}`).
  const body = e.error as object | undefined;
  const streamType = errorType(body);
  if (kind === "APIError" || (streamType !== undefined && body)) {
    const status = streamType ? STREAM_ERROR_STATUS[streamType] : undefined;
    return new ProviderError(
      `${provider} stream error${streamType ? ` (${streamType})` : ""}: ${apiMessage(body) ?? message}`,
      status,
      { cause: error, ...(status === undefined ? { retryable: true } : {}) },
    );
  }

  if (error instanceof SyntaxError) {
    return new ProviderError(
      `${provider} server at ${baseURL} sent a stream event that is not valid JSON (${message}). Is the base URL right?`,
      undefined,
      { cause: error, retryable: false },
    );
  }

  if (isNetworkError(error)) {
    return new ProviderError(
      `The ${provider} connection to ${baseURL} failed: ${connectionReason(error)}`,
      undefined,
      {
        cause: error,
        retryable: true,
      },
    );
  }

  return new ProviderError(`${provider} request to ${baseURL} failed: ${message}`, undefined, {
    cause: error,
    retryable: false,
  });
}

/** The error `type` (or OpenAI `code`) of an error body: `{error:{type}}`, `{type}` or `{code}`. */
function errorType(body: unknown): string | undefined {
  if (!body || typeof body !== "object") return undefined;
  const record = body as { type?: unknown; code?: unknown; error?: { type?: unknown } };
  if (typeof record.error?.type === "string") return record.error.type;
  if (typeof record.type === "string") return record.type;
  if (typeof record.code === "string") return record.code;
  return undefined;
}

/**
 * How each API says a request did not fit the context window: Anthropic 400 "prompt is too long:
 * N tokens > M maximum" (413 `request_too_large` for a body over the size limit); OpenAI and
 * compatible servers 400 with code `context_length_exceeded` or "maximum context length"; llama.cpp's
 * server "exceeds the available context size"; Ollama/vLLM "context length", "too many tokens".
 */
const OVERFLOW_TEXT =
  /prompt is too long|context[_ ]length[_ ]exceeded|maximum context length|exceeds? the (available )?context|context window|too many tokens|input is too long/i;

export function isContextOverflow(status: number | undefined, body: unknown, message: string): boolean {
  if (status !== undefined && status !== 400 && status !== 413) return false;
  const code = (body as { code?: unknown; error?: { code?: unknown } } | undefined) ?? {};
  if (code.code === "context_length_exceeded" || code.error?.code === "context_length_exceeded") return true;
  return OVERFLOW_TEXT.test(message);
}

function readHeader(headers: HeadersLike | undefined, name: string): string | undefined {
  if (!headers) return undefined;
  if (typeof (headers as { get?: unknown }).get === "function") {
    return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  }
  const value = (headers as Record<string, string | string[] | undefined>)[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The human message inside an API error body: `{error:{message}}`, `{message}`, or a string. */
function apiMessage(body: unknown): string | undefined {
  if (typeof body === "string") return body.length > 0 ? body : undefined;
  if (!body || typeof body !== "object") return undefined;
  const record = body as { message?: unknown; error?: unknown };
  if (record.error && typeof record.error === "object") {
    const inner = (record.error as { message?: unknown }).message;
    if (typeof inner === "string") return inner;
  }
  if (typeof record.message === "string") return record.message;
  return undefined;
}

const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ETIMEDOUT",
  "EPIPE",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "UND_ERR_SOCKET",
  "UND_ERR_CLOSED",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
]);

function errorChain(error: unknown): { code?: string; message?: string }[] {
  const chain: { code?: string; message?: string }[] = [];
  let current: unknown = error;
  for (let depth = 0; current && typeof current === "object" && depth < 5; depth++) {
    chain.push(current as { code?: string; message?: string });
    current = (current as { cause?: unknown }).cause;
  }
  return chain;
}

function isNetworkError(error: unknown): boolean {
  return errorChain(error).some(
    (link) =>
      (typeof link.code === "string" && NETWORK_CODES.has(link.code)) ||
      link.message === "terminated" ||
      link.message === "fetch failed" ||
      link.message === "other side closed",
  );
}

function connectionReason(error: unknown): string {
  const chain = errorChain(error);
  const code = chain.find((link) => typeof link.code === "string" && NETWORK_CODES.has(link.code))?.code;
  switch (code) {
    case "ECONNREFUSED":
      return "connection refused (is the server running?)";
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return "host not found";
    case "ECONNRESET":
    case "UND_ERR_SOCKET":
    case "UND_ERR_CLOSED":
      return "the connection was reset";
    case "ETIMEDOUT":
    case "UND_ERR_CONNECT_TIMEOUT":
      return "the connection timed out";
    default: {
      const deepest = [...chain].reverse().find((link) => typeof link.message === "string" && link.message);
      return deepest?.message ?? "connection error";
    }
  }
}
