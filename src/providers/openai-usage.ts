import type { Usage } from "../engine/messages.js";

/**
 * OpenAI usage → the engine's Anthropic naming. OpenAI counts cached (and cache-written) tokens
 * inside the prompt total; Anthropic's `input_tokens` excludes them. So:
 *   input_tokens                = prompt total − cached − cache writes (never below 0)
 *   cache_read_input_tokens     = cached_tokens
 *   cache_creation_input_tokens = cache_write_tokens (0 where the server does not report it)
 *   output_tokens               = completion / output tokens (reasoning tokens included, as on Anthropic)
 */
export function usageFromOpenAI(
  totalInput: unknown,
  output: unknown,
  details: { cached_tokens?: unknown; cache_write_tokens?: unknown } | null | undefined,
): Usage {
  const count = (value: unknown) =>
    typeof value === "number" && Number.isFinite(value) && value > 0 ? value : 0;
  const cached = count(details?.cached_tokens);
  const written = count(details?.cache_write_tokens);
  return {
    input_tokens: Math.max(0, count(totalInput) - cached - written),
    output_tokens: count(output),
    cache_read_input_tokens: cached,
    cache_creation_input_tokens: written,
  };
}

/** Chat Completions `usage` (`prompt_tokens`, `completion_tokens`, `prompt_tokens_details`). */
export function usageFromChatCompletions(usage: unknown): Usage {
  const u = (usage ?? {}) as {
    prompt_tokens?: unknown;
    completion_tokens?: unknown;
    prompt_tokens_details?: never;
  };
  return usageFromOpenAI(u.prompt_tokens, u.completion_tokens, u.prompt_tokens_details);
}

/** Responses API `usage` (`input_tokens`, `output_tokens`, `input_tokens_details`). */
export function usageFromResponses(usage: unknown): Usage {
  const u = (usage ?? {}) as {
    input_tokens?: unknown;
    output_tokens?: unknown;
    input_tokens_details?: never;
  };
  return usageFromOpenAI(u.input_tokens, u.output_tokens, u.input_tokens_details);
}

/** The inverse, for the scripted server: Anthropic-named usage → OpenAI's counting. */
export function usageToOpenAI(usage: Usage): {
  input: number;
  output: number;
  cached: number;
  cacheWrite: number;
} {
  const cached = usage.cache_read_input_tokens ?? 0;
  const cacheWrite = usage.cache_creation_input_tokens ?? 0;
  return { input: usage.input_tokens + cached + cacheWrite, output: usage.output_tokens, cached, cacheWrite };
}
