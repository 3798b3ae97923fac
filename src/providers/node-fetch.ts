/**
 * `fetch` over node:http / node:https, for the official clients (`new Anthropic({ fetch })`,
 * `new OpenAI({ fetch })`).
 *
 * Node's own `fetch` (undici, with web streams and a WebAssembly HTTP parser; in Node 20, 22 and
 * 24 alike) is loaded and initialised on first use: about 25 ms of CPU in every CLI run, more than
 * the request itself (docs/performance.md). This does what the clients need from `fetch`, with
 * Node's HTTP stack: one request with a string or byte body, the response's status, headers and
 * body (read with `getReader()` or `for await`, or whole with `text()` / `json()`), the abort
 * signal (before the response and while reading the body), and keep-alive through Node's global
 * agents (on by default since Node 19; idle sockets never hold the process open). Errors look like
 * `fetch`'s: a failed connection rejects with `TypeError("fetch failed")` whose `cause` is Node's
 * error (ECONNREFUSED, ECONNRESET, …); an abort with an `AbortError`. Anything else — another body
 * type, a `Request` object, a redirect to follow — goes to the global `fetch`, unchanged. So does
 * every request once undici is loaded and has a global dispatcher: the host program may have set
 * one (a proxy agent, custom TLS options) that its requests are meant to go through, and undici
 * costs nothing more by then. With a proxy set (HTTPS_PROXY, HTTP_PROXY or the config's `proxy`),
 * every request goes through undici's proxy agent instead (src/util/network-proxy.ts). It asks for
 * no compression, so a body never needs decoding.
 */
import type { IncomingMessage } from "node:http";
import { lazyRequire } from "../util/lazy-require.js";
import { proxiedFetch } from "../util/network-proxy.js";
import { type HeadersInitLike, headerPairs, LightHeaders } from "./client-globals.js";

type FetchInit = {
  method?: string;
  headers?: HeadersInitLike;
  body?: unknown;
  signal?: AbortSignal | null;
  redirect?: string;
};

type ReadResult = { done: true; value: undefined } | { done: false; value: Uint8Array };

/** What the client and cairn read of a response; the same names as `Response`. */
export type NodeResponse = {
  readonly ok: boolean;
  readonly status: number;
  readonly statusText: string;
  readonly url: string;
  readonly redirected: false;
  readonly headers: LightHeaders;
  readonly body: ResponseBody;
  readonly bodyUsed: boolean;
  text(): Promise<string>;
  json(): Promise<unknown>;
  arrayBuffer(): Promise<ArrayBuffer>;
};

type ResponseBody = AsyncIterable<Uint8Array> & {
  getReader(): {
    read(): Promise<ReadResult>;
    cancel(reason?: unknown): Promise<void>;
    releaseLock(): void;
  };
  cancel(reason?: unknown): Promise<void>;
};

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** Where undici (Node's fetch) keeps its global dispatcher, set when it loads or by the host program. */
const UNDICI_DISPATCHER = Symbol.for("undici.globalDispatcher.1");

export function nodeFetch(input: unknown, init: FetchInit = {}): Promise<unknown> {
  const viaProxy = proxiedFetch();
  if (viaProxy) {
    const headers: Record<string, string> = {};
    if (init.headers) for (const [name, value] of headerPairs(init.headers)) headers[name] = value;
    return viaProxy(input as string, { ...init, headers });
  }
  // Also true in a host program that never fetched: in Node 22 and 24 reading the property
  // descriptor of a fetch global (`Headers`, `fetch`, …) loads undici, and test runners do that.
  const undiciInUse = (globalThis as Record<symbol, unknown>)[UNDICI_DISPATCHER] !== undefined;
  return undiciInUse ? globalThis.fetch(input as string, init as RequestInit) : httpFetch(input, init);
}

/**
 * The node:http / node:https transport itself, whatever the process has loaded (nodeFetch picks it
 * while undici is not in use). What it does not do goes to the global `fetch`.
 */
export function httpFetch(input: unknown, init: FetchInit = {}): Promise<unknown> {
  const url = typeof input === "string" ? input : input instanceof URL ? input.href : undefined;
  const body = requestBody(init.body);
  const target = url === undefined ? undefined : new URL(url);
  if (!target || body === unsupported || (target.protocol !== "http:" && target.protocol !== "https:")) {
    return globalThis.fetch(input as string, init as RequestInit);
  }
  const signal = init.signal ?? undefined;
  if (signal?.aborted) return Promise.reject(abortError(signal));

  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = {};
    if (init.headers)
      for (const [name, value] of headerPairs(init.headers)) headers[name.toLowerCase()] = value;
    if (body !== undefined) headers["content-length"] = String(body.byteLength);
    const send = target.protocol === "https:" ? httpsRequest() : httpRequest();
    const request = send(target, { method: (init.method ?? "GET").toUpperCase(), headers });
    let response: IncomingMessage | undefined;

    const onAbort = () => {
      const error = abortError(signal);
      if (response) {
        if (!response.complete) response.destroy(error);
      } else {
        reject(error);
      }
      request.destroy(error);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    const unlink = () => signal?.removeEventListener("abort", onAbort);

    request.on("error", (error) => {
      if (response) {
        // The connection failed while the body was being read: the reader sees it.
        if (!response.complete) response.destroy(error);
        return;
      }
      unlink();
      reject(signal?.aborted ? abortError(signal) : new TypeError("fetch failed", { cause: error }));
    });
    request.on("response", (incoming) => {
      if (
        REDIRECTS.has(incoming.statusCode ?? 0) &&
        init.redirect !== "manual" &&
        incoming.headers.location
      ) {
        incoming.resume();
        unlink();
        resolve(globalThis.fetch(input as string, init as RequestInit));
        return;
      }
      response = incoming;
      // Errors reach whoever reads the body; one nobody reads must not crash the process.
      incoming.on("error", () => undefined);
      incoming.once("close", unlink);
      resolve(toResponse(incoming, url as string));
    });
    request.end(body);
  });
}

const unsupported = Symbol("unsupported body");

function requestBody(body: unknown): Uint8Array | undefined | typeof unsupported {
  if (body === undefined || body === null) return undefined;
  if (typeof body === "string") return Buffer.from(body);
  if (body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  return unsupported;
}

function toResponse(incoming: IncomingMessage, url: string): NodeResponse {
  const headers = new LightHeaders();
  const raw = incoming.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i] as string, raw[i + 1] as string);
  const status = incoming.statusCode ?? 0;
  let used = false;
  const chunks = (): AsyncIterator<Uint8Array> => {
    if (used) throw new TypeError("Body is unusable: Body has already been read");
    used = true;
    return incoming[Symbol.asyncIterator]();
  };
  const whole = async (): Promise<Buffer> => {
    const parts: Uint8Array[] = [];
    const iterator = chunks();
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) parts.push(next.value);
    return Buffer.concat(parts);
  };
  const cancel = async () => {
    used = true;
    incoming.destroy();
  };
  const body: ResponseBody = {
    [Symbol.asyncIterator]: chunks,
    getReader() {
      const iterator = chunks();
      return {
        read: () =>
          iterator
            .next()
            .then(
              (next): ReadResult =>
                next.done ? { done: true, value: undefined } : { done: false, value: next.value },
            ),
        cancel,
        releaseLock: () => undefined,
      };
    },
    cancel,
  };
  return {
    ok: status >= 200 && status < 300,
    status,
    statusText: incoming.statusMessage ?? "",
    url,
    redirected: false,
    headers,
    body,
    get bodyUsed() {
      return used;
    },
    text: async () => (await whole()).toString("utf8"),
    json: async () => JSON.parse((await whole()).toString("utf8")),
    arrayBuffer: async () => {
      const bytes = await whole();
      return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
    },
  };
}

function abortError(signal: AbortSignal | undefined): Error {
  const reason = signal?.reason as { name?: unknown } | undefined;
  if (reason instanceof Error && reason.name === "AbortError") return reason;
  return new DOMException("This operation was aborted", "AbortError");
}

/**
 * node:http through `require`, not an ES import: in Node 22 and 24 an ES import of node:http reads
 * every export to build its namespace, `WebSocket` among them, and that loads undici (Node's fetch),
 * which this module exists to avoid; nodeFetch would then hand every request to it.
 */
const require = lazyRequire(import.meta.url);

function httpRequest(): typeof import("node:http").request {
  return (require("node:http") as typeof import("node:http")).request;
}

/** node:https (with node:tls) is loaded for the first https request: a local model's run never needs it. */
function httpsRequest(): typeof import("node:https").request {
  return (require("node:https") as typeof import("node:https")).request;
}
