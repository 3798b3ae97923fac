import type { ModelProvider, ServerWebSearch, ToolSpec } from "./provider.js";

/** The name of cairn's own search tool, which the provider's search replaces. */
export const WEB_SEARCH_TOOL = "WebSearch";

/**
 * The tools one model call offers: the run's tools, except that the provider's own web search
 * takes WebSearch's place when the provider has one and the run allows it (`webSearch` set: the
 * backend is `provider`, WebSearch is offered and allowed without asking; src/run/web-search-backend.ts).
 * Decided per call: a fallback model on another wire offers what its provider can.
 */
export function requestTools(
  specs: readonly ToolSpec[],
  provider: ModelProvider,
  webSearch: ServerWebSearch | undefined,
): { tools: ToolSpec[]; webSearch?: ServerWebSearch } {
  const offered = specs.some((spec) => spec.name === WEB_SEARCH_TOOL);
  if (!webSearch || !offered || !provider.serverWebSearch) return { tools: [...specs] };
  return { tools: specs.filter((spec) => spec.name !== WEB_SEARCH_TOOL), webSearch };
}
