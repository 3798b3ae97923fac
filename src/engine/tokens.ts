import type { ConversationMessage } from "./messages.js";

/**
 * A rough, deterministic token estimate: 4 characters of JSON a token. Real tokenizers give about
 * as many for English and code; what the estimate misses, the provider's reported input tokens
 * (src/engine/context-meter.ts) and overflow recovery make up for.
 */
export function estimateTokens(value: unknown): number {
  mediaTokens = 0;
  const json = JSON.stringify(value, withoutMedia);
  return Math.max(1, Math.ceil(json.length / 4) + mediaTokens);
}

/** What `withoutMedia` counted during the one `JSON.stringify` under way (it is synchronous). */
let mediaTokens = 0;

/**
 * Inline media is not read as text: counting its base64 would make one screenshot look like a
 * full context (and compact at once). An image costs about a fixed amount (Anthropic: at most
 * ~1,600 tokens once scaled); a PDF, by size (a page of ~1,500–3,000 tokens is ~50–100 KB).
 * A module-level replacer, not a closure per call (docs/performance.md, "TurboFan churn").
 */
function withoutMedia(this: Record<string, unknown>, key: string, field: unknown): unknown {
  if (key === "source" && isBase64Source(field)) {
    mediaTokens +=
      this.type === "image" ? IMAGE_TOKENS : Math.ceil(field.data.length / DOCUMENT_CHARS_PER_TOKEN);
    return undefined;
  }
  return field;
}

const IMAGE_TOKENS = 1_600;
const DOCUMENT_CHARS_PER_TOKEN = 40;

function isBase64Source(value: unknown): value is { type: "base64"; data: string } {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as { type?: unknown }).type === "base64" &&
    typeof (value as { data?: unknown }).data === "string"
  );
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
