import type { ConversationMessage } from "./messages.js";

/**
 * A rough, deterministic token estimate: 4 characters of JSON a token. Real tokenizers give about
 * as many for English and code; what the estimate misses, the provider's reported input tokens
 * (src/engine/context-meter.ts) and overflow recovery make up for.
 */
export function estimateTokens(value: unknown): number {
  return Math.max(1, Math.ceil(JSON.stringify(value).length / 4));
}

/** Messages are never changed once in the history, so each one is measured once. */
const measured = new WeakMap<ConversationMessage, number>();

export function messageTokens(message: ConversationMessage): number {
  let tokens = measured.get(message);
  if (tokens === undefined) {
    tokens = estimateTokens(message);
    measured.set(message, tokens);
  }
  return tokens;
}

export function messagesTokens(messages: readonly ConversationMessage[], from = 0): number {
  let total = 0;
  for (let i = from; i < messages.length; i++) total += messageTokens(messages[i]!);
  return total;
}
