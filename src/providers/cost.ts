import type { Usage } from "../engine/messages.js";
import { type CatalogEntry, findModel, type Prices } from "./catalog.js";

/** Provider prefixes whose model ids are priced by the catalog (others — local, compatible servers — are not). */
const PRICED_PREFIXES: Record<string, CatalogEntry["provider"]> = {
  anthropic: "anthropic",
  openai: "openai",
};

/**
 * The price of a model as named by the user: `anthropic/claude-sonnet-5-5`, `openai/gpt-5`, or a
 * bare catalog id (`claude-haiku-4-5`, `gpt-4.1-2025-04-14`). A model served by anything else
 * (`ollama/…`, `openai-compatible/…`, `local:…`, `replay:…`) has no known price, even when its
 * name matches a catalog id: someone else's server bills (or doesn't) by its own rules.
 */
export function pricesFor(model: string): CatalogEntry | undefined {
  const slash = model.indexOf("/");
  if (slash === -1) return model.includes(":") ? undefined : findModel(model);
  const provider = PRICED_PREFIXES[model.slice(0, slash)];
  return provider ? findModel(model.slice(slash + 1), provider) : undefined;
}

/**
 * What one server-side web search costs, by provider: Anthropic bills $10 per 1,000 searches
 * (`usage.server_tool_use.web_search_requests`), OpenAI $10 per 1,000 web search calls
 * (docs/tools.md, "WebSearch").
 */
const WEB_SEARCH_USD: Partial<Record<CatalogEntry["provider"], number>> = { anthropic: 0.01, openai: 0.01 };

/**
 * USD cost of ONE model call's usage (Anthropic naming: `input_tokens` excludes cache reads and
 * writes). `undefined` when the model or its price is unknown — never 0 for "don't know".
 *
 * Long-context tiers (Claude Haiku 5.5 above 100K prompt tokens, GPT-5.x above 272K) apply per
 * request, so price each call and add the results rather than pricing a run's summed usage.
 */
export function costUSD(model: string, usage: Partial<Usage>): number | undefined {
  const entry = pricesFor(model);
  if (!entry?.prices) return undefined;
  const input = usage.input_tokens ?? 0;
  const cacheRead = usage.cache_read_input_tokens ?? 0;
  const cacheWrite = usage.cache_creation_input_tokens ?? 0;
  const prompt = input + cacheRead + cacheWrite;
  const prices: Prices =
    entry.longContext && prompt > entry.longContext.aboveInputTokens
      ? entry.longContext.prices
      : entry.prices;
  return (
    (input * prices.input +
      (usage.output_tokens ?? 0) * prices.output +
      cacheRead * prices.cacheRead +
      cacheWrite * prices.cacheWrite) /
      1_000_000 +
    (usage.server_tool_use?.web_search_requests ?? 0) * (WEB_SEARCH_USD[entry.provider] ?? 0)
  );
}
