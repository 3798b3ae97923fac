import { networkFetch } from "../util/network-proxy.js";

/**
 * One GET of a web page for the web tools: redirects followed only within the same host (the
 * reference's rule: a redirect elsewhere is handed back to the model, which fetches it in a call
 * of its own, so a permission rule for one host never lets another through), the body read up to
 * a byte cap, the whole request under a time cap. What was cut is said in `cut`.
 */

/** At most this much of a body is read (the reference's cap). */
export const MAX_BODY_BYTES = 10 * 1024 * 1024;
/** The whole request, redirects and body included; CAIRN_WEB_FETCH_TIMEOUT_MS overrides it. */
export const DEFAULT_TIMEOUT_MS = 60_000;
const MAX_REDIRECTS = 10;

export type FetchedPage = {
  kind: "page";
  url: string;
  status: number;
  statusText: string;
  contentType: string;
  body: Uint8Array;
  /** Why the body is incomplete: the byte cap or the time cap. */
  cut?: "size" | "time";
};

export type CrossHostRedirect = {
  kind: "redirect";
  url: string;
  location: string;
  status: number;
  statusText: string;
};

/** Same host, or the same but for a leading `www.` (as the reference allows). */
export function sameHost(from: URL, to: URL): boolean {
  const bare = (host: string) => host.toLowerCase().replace(/^www\./, "");
  return bare(from.hostname) === bare(to.hostname) && from.port === to.port;
}

export function timeoutMs(env: NodeJS.ProcessEnv): number {
  const value = Number(env.CAIRN_WEB_FETCH_TIMEOUT_MS);
  return Number.isFinite(value) && value > 0 ? value : DEFAULT_TIMEOUT_MS;
}

export async function requestPage(
  url: URL,
  options: { signal: AbortSignal; timeoutMs: number; userAgent: string },
): Promise<FetchedPage | CrossHostRedirect> {
  const timer = new AbortController();
  const timeout = setTimeout(() => timer.abort(new Error("timeout")), options.timeoutMs);
  const signal = AbortSignal.any([options.signal, timer.signal]);
  try {
    let current = url;
    for (let hop = 0; ; hop += 1) {
      const response = await networkFetch(current, {
        redirect: "manual",
        signal,
        headers: {
          "user-agent": options.userAgent,
          accept: "text/markdown, text/html, application/json, text/plain;q=0.9, */*;q=0.8",
        },
      }).catch((error: unknown) => {
        if (timer.signal.aborted && !options.signal.aborted)
          throw new Error(`no answer from ${current.host} within ${options.timeoutMs / 1000} s`);
        throw describeFailure(error, current);
      });
      const location = response.headers.get("location");
      if (response.status >= 300 && response.status < 400 && location) {
        await response.body?.cancel().catch(() => undefined);
        const next = new URL(location, current);
        if (next.protocol !== "http:" && next.protocol !== "https:")
          throw new Error(`${current.href} redirects to ${next.href}, which is not http(s)`);
        if (!sameHost(current, next))
          return {
            kind: "redirect",
            url: current.href,
            location: next.href,
            status: response.status,
            statusText: response.statusText,
          };
        if (hop >= MAX_REDIRECTS) throw new Error(`more than ${MAX_REDIRECTS} redirects from ${url.href}`);
        current = next;
        continue;
      }
      const { body, cut } = await readCapped(response, timer.signal);
      return {
        kind: "page",
        url: current.href,
        status: response.status,
        statusText: response.statusText,
        contentType: response.headers.get("content-type") ?? "",
        body,
        ...(cut ? { cut } : {}),
      };
    }
  } finally {
    clearTimeout(timeout);
  }
}

/** The body up to the byte cap; what arrived before the time cap when it runs out. */
async function readCapped(
  response: Response,
  timedOut: AbortSignal,
): Promise<{ body: Uint8Array; cut?: "size" | "time" }> {
  const parts: Uint8Array[] = [];
  let size = 0;
  let cut: "size" | "time" | undefined;
  const reader = response.body?.getReader();
  if (!reader) return { body: new Uint8Array() };
  try {
    for (;;) {
      const next = await reader.read();
      if (next.done) break;
      const room = MAX_BODY_BYTES - size;
      if (next.value.byteLength >= room) {
        parts.push(next.value.subarray(0, room));
        size += room;
        cut = "size";
        break;
      }
      parts.push(next.value);
      size += next.value.byteLength;
    }
  } catch (error) {
    if (!timedOut.aborted) throw error;
    cut = "time";
  }
  await reader.cancel().catch(() => undefined);
  return { body: Buffer.concat(parts, size), ...(cut ? { cut } : {}) };
}

/** `fetch failed` says nothing: name the cause (ECONNREFUSED, a certificate error, …). */
function describeFailure(error: unknown, url: URL): Error {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const detail = cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
  return new Error(`could not fetch ${url.href}: ${detail}`);
}
