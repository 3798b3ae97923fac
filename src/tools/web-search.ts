import * as z from "zod";
import { networkFetch } from "../util/network-proxy.js";
import { BUILTIN_JSON_SCHEMAS } from "./builtin-json-schemas.js";
import { defineTool } from "./define.js";
import { webHostRefusal } from "./web-policy.js";
import { timeoutMs } from "./web-request.js";

/**
 * WebSearch through a search API cairn calls itself: SearXNG's JSON API (self-hostable), at the
 * URL of CAIRN_SEARXNG_URL or the config's `searxngUrl`. Without one, a call returns how
 * to configure one (an error the model reads), never an empty result that looks like "nothing found".
 */

const input = () =>
  z.object({
    query: z.string().min(2).describe("The search query."),
    allowed_domains: z
      .array(z.string())
      .optional()
      .describe("Only include results from these domains (and their subdomains)."),
    blocked_domains: z
      .array(z.string())
      .optional()
      .describe("Never include results from these domains (and their subdomains)."),
  });

export type SearchBackend = { searxngUrl?: string };

let configured: SearchBackend = {};

/** The config's search backend (set once the run's config is read). */
export function setSearchBackend(backend: SearchBackend): void {
  configured = { ...backend };
}

/** The SearXNG base URL in force: CAIRN_SEARXNG_URL, else the config's. */
export function searxngUrl(env: NodeJS.ProcessEnv): string | undefined {
  return env.CAIRN_SEARXNG_URL?.trim() || configured.searxngUrl?.trim() || undefined;
}

export const NO_SEARCH_BACKEND =
  "WebSearch has no search backend: this model's provider offers no search of its own to cairn, and no search API is configured. " +
  'Set "searxngUrl": "https://searx.example.org" in ~/.cairn/config.json, or CAIRN_SEARXNG_URL, to a SearXNG instance with the JSON format enabled, or use WebFetch on a search page.';

type SearchResult = { title: string; url: string; snippet?: string };

function covers(domains: readonly string[], host: string): boolean {
  const name = host.toLowerCase();
  return domains.some((domain) => {
    const bare = domain
      .trim()
      .toLowerCase()
      .replace(/^\*?\./, "");
    return bare !== "" && (name === bare || name.endsWith(`.${bare}`));
  });
}

export const webSearchTool = defineTool({
  name: "WebSearch",
  effects: { kind: "other", readOnly: true, network: true },
  payload: "webSearch",
  display: (args) => ({ title: `Search the web for "${args.query}"`, kind: "fetch" }),
  description: [
    "Searches the web and returns the results' titles, URLs and snippets, to use for information beyond your training data or about recent events.",
    "allowed_domains keeps only results from those domains, blocked_domains drops results from them.",
    "After answering from the results, list the sources you used as markdown links.",
    "To read a result in full, fetch its URL with WebFetch.",
  ].join("\n"),
  input,
  jsonSchema: BUILTIN_JSON_SCHEMAS.WebSearch,
  async run(args, ctx) {
    const started = Date.now();
    const base = searxngUrl(ctx.env);
    if (!base) return { content: NO_SEARCH_BACKEND, isError: true };
    let endpoint: URL;
    try {
      endpoint = new URL("search", base.endsWith("/") ? base : `${base}/`);
    } catch {
      return {
        content: `The search API URL ${base} is not a URL; fix searxngUrl in the config or CAIRN_SEARXNG_URL.`,
        isError: true,
      };
    }
    const refusal = webHostRefusal(endpoint.hostname, ctx);
    if (refusal) return { content: refusal, isError: true };
    endpoint.searchParams.set("q", args.query);
    endpoint.searchParams.set("format", "json");
    const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(timeoutMs(ctx.env))]);
    const response = await networkFetch(endpoint, { signal, headers: { accept: "application/json" } });
    const body = await response.text();
    if (!response.ok)
      return {
        content: `The search API at ${endpoint.origin} answered ${response.status} ${response.statusText}${response.status === 403 ? " (is its JSON format enabled? search.formats in its settings.yml)" : ""}.`,
        isError: true,
      };
    let parsed: { results?: { title?: unknown; url?: unknown; content?: unknown }[] };
    try {
      parsed = JSON.parse(body);
    } catch {
      return { content: `The search API at ${endpoint.origin} did not answer with JSON.`, isError: true };
    }
    const results: SearchResult[] = [];
    for (const item of parsed.results ?? []) {
      if (typeof item.url !== "string") continue;
      let host: string;
      try {
        host = new URL(item.url).hostname;
      } catch {
        continue;
      }
      if (args.allowed_domains?.length && !covers(args.allowed_domains, host)) continue;
      if (args.blocked_domains?.length && covers(args.blocked_domains, host)) continue;
      results.push({
        title: typeof item.title === "string" ? item.title : item.url,
        url: item.url,
        ...(typeof item.content === "string" && item.content ? { snippet: item.content } : {}),
      });
    }
    const lines = results.map(
      (result, index) =>
        `${index + 1}. [${result.title}](${result.url})${result.snippet ? `\n   ${result.snippet}` : ""}`,
    );
    const content = [
      `Web search results for query: "${args.query}"`,
      "",
      results.length ? lines.join("\n") : "No results.",
      "",
      "Cite the sources you use as markdown links.",
    ].join("\n");
    return {
      content,
      data: {
        query: args.query,
        results: results.map(({ title, url }) => ({ title, url })),
        durationSeconds: (Date.now() - started) / 1000,
        backend: "searxng",
      },
    };
  },
});
