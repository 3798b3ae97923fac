import type { Usage } from "../../engine/messages.js";

/** The result's usage in the reference CLI's camelCase form; inputTokens excludes cache reads. */
export function cliUsage(usage: Usage): {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
} {
  return {
    inputTokens: usage.input_tokens,
    outputTokens: usage.output_tokens,
    cacheReadTokens: usage.cache_read_input_tokens ?? 0,
    cacheWriteTokens: usage.cache_creation_input_tokens ?? 0,
  };
}
