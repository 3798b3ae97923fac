import type { EffortLevel } from "./types.js";

/**
 * `effort` as OpenAI's reasoning effort (`reasoning.effort` on Responses, `reasoning_effort` on Chat
 * Completions). OpenAI's levels end at `xhigh`: `max` asks for that.
 */
export function openaiEffort(effort: EffortLevel): string {
  return effort === "max" ? "xhigh" : effort;
}
