import * as z from "zod";
import { groupDigits } from "../util/group-digits.js";
import { BUILTIN_JSON_SCHEMAS } from "./builtin-json-schemas.js";
import { defineTool } from "./define.js";
import { WebCache } from "./web-cache.js";
import { type PageText, pageText } from "./web-content.js";
import { webHostRefusal } from "./web-policy.js";
import { MAX_BODY_BYTES, requestPage, timeoutMs } from "./web-request.js";

/** How much page text one call returns; `offset` reads on (the reference's cap). */
export const WEB_FETCH_MAX_CHARS = 100_000;

const input = () =>
  z.object({
    url: z.string().describe("The URL to fetch (http or https)."),
    prompt: z.string().describe("What you want to know from the page."),
    offset: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe("Character offset into the page's text, to read on where a truncated result stopped."),
  });

type CachedPage = {
  url: string;
  status: number;
  statusText: string;
  bytes: number;
  page: PageText;
  contentType: string;
  cut?: "size" | "time";
};

const cache = new WebCache<CachedPage>();

/** An http(s) URL, or why not. */
function parseUrl(raw: string): URL | string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `${raw} is not a URL; give a full http:// or https:// URL.`;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    return `${url.protocol} URLs cannot be fetched; WebFetch reads http and https only.`;
  if (url.username || url.password) return "URLs with a user name or password cannot be fetched.";
  return url;
}

export const webFetchTool = defineTool({
  name: "WebFetch",
  // Reads a web page: changes nothing here, but reaches the network (asked about unless allowed,
  // e.g. by `WebFetch(domain:example.com)`).
  effects: {
    // Not `read`: a `Read` rule is about files and must not let a fetch through.
    kind: "other",
    readOnly: true,
    network: true,
    domain: (args) => {
      const url = parseUrl(args.url);
      return typeof url === "string" ? undefined : url.hostname;
    },
  },
  payload: "webFetch",
  display: (args) => ({ title: `Fetch ${args.url}`, kind: "fetch" }),
  description: [
    "Fetches a web page (http or https) and returns its content as text: HTML turned into markdown (the readable part of the page), JSON pretty-printed, PDF as its text, plain text as it is.",
    "cairn does not pass the page to a second model: the result holds the page itself and your prompt, so answer the prompt from the page yourself.",
    `At most ${groupDigits(WEB_FETCH_MAX_CHARS)} characters of text come back per call; a truncated result says so, and \`offset\` reads on.`,
    "Redirects within the same host are followed. When a URL redirects to a different host, the tool says so and gives the redirect URL: make a new WebFetch request with that URL to fetch its content.",
    "Pages are cached for 15 minutes, so fetching a URL again (another offset, another question) is cheap.",
    "If an MCP-provided fetch tool is available, it may have fewer restrictions; prefer it.",
  ].join("\n"),
  input,
  jsonSchema: BUILTIN_JSON_SCHEMAS.WebFetch,
  // The page's own cap (above) with its notes; the default cap would cut it in the middle.
  outputLimit: WEB_FETCH_MAX_CHARS + 4_000,
  async run(args, ctx) {
    const started = Date.now();
    const url = parseUrl(args.url);
    if (typeof url === "string") return { content: url, isError: true };
    const refusal = webHostRefusal(url.hostname, ctx);
    if (refusal) return { content: refusal, isError: true };

    let fetched = cache.get(url.href);
    if (!fetched) {
      const result = await requestPage(url, {
        signal: ctx.signal,
        timeoutMs: timeoutMs(ctx.env),
        userAgent: "cairn (WebFetch)",
      });
      if (result.kind === "redirect") {
        const content = [
          "REDIRECT DETECTED: The URL redirects to a different host.",
          "",
          `Original URL: ${result.url}`,
          `Redirect URL: ${result.location}`,
          `Status: ${result.status} ${result.statusText}`.trimEnd(),
          "",
          "To complete your request, I need to fetch content from the redirected URL. Please use WebFetch again with these parameters:",
          `- url: "${result.location}"`,
          `- prompt: "${args.prompt}"`,
        ].join("\n");
        return {
          content,
          data: output(result.url, result.status, result.statusText, 0, content, started),
        };
      }
      const page = await pageText(result.body, result.contentType);
      fetched = {
        url: result.url,
        status: result.status,
        statusText: result.statusText,
        bytes: result.body.byteLength,
        page,
        contentType: result.contentType,
        ...(result.cut ? { cut: result.cut } : {}),
      };
      if (result.status < 400 && !result.cut) cache.set(url.href, fetched);
    }
    const content = describe(fetched, args.prompt, args.offset ?? 0);
    return {
      content,
      ...(fetched.status >= 400 ? { isError: true } : {}),
      data: output(fetched.url, fetched.status, fetched.statusText, fetched.bytes, content, started),
    };
  },
});

/** The reference's `WebFetchOutput` (the SDK's `tool_use_result`, stream-json's webFetchToolCall). */
function output(url: string, code: number, codeText: string, bytes: number, result: string, started: number) {
  return { bytes, code, codeText, result, durationMs: Date.now() - started, url };
}

function describe(fetched: CachedPage, prompt: string, offset: number): string {
  const type = fetched.contentType.split(";")[0] || "no content type";
  const head = `${fetched.url} answered ${fetched.status} ${fetched.statusText}`.trimEnd();
  if (fetched.page.format === "binary")
    return `${head} with ${fetched.bytes} bytes of ${type}: binary content, not shown (WebFetch reads HTML, text, JSON and PDF).`;
  const text = fetched.page.text;
  const slice = text.slice(offset, offset + WEB_FETCH_MAX_CHARS);
  const notes: string[] = [];
  if (fetched.cut === "size")
    notes.push(
      `[The response is larger than ${MAX_BODY_BYTES / 1024 / 1024} MB: only its first ${MAX_BODY_BYTES / 1024 / 1024} MB were read.]`,
    );
  if (fetched.cut === "time")
    notes.push("[The response did not finish in time: only the part that arrived was read.]");
  if (offset > 0 || offset + WEB_FETCH_MAX_CHARS < text.length) {
    const end = Math.min(text.length, offset + WEB_FETCH_MAX_CHARS);
    notes.push(
      end < text.length
        ? `[Truncated: characters ${offset}–${end} of ${text.length} shown; call WebFetch again with offset: ${end} to read on.]`
        : `[Characters ${offset}–${end} of ${text.length} shown.]`,
    );
  }
  return [
    `${head} (${type}, ${fetched.bytes} bytes, shown as ${fetched.page.format}).`,
    `Answer this from the content below: ${prompt}`,
    "",
    slice,
    ...(notes.length ? ["", ...notes] : []),
  ].join("\n");
}
