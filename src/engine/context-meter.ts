import type { ConversationMessage, Usage } from "./messages.js";
import type { ToolSpec } from "./provider.js";
import { estimateTokens, messagesTokens } from "./tokens.js";

/** The context window assumed for a model the catalog does not know (docs/context.md). */
export const DEFAULT_CONTEXT_WINDOW = 32_768;
/** Compaction starts when a request would use more than this share of the room for input. */
export const DEFAULT_COMPACT_THRESHOLD = 0.8;

/** What the engine knows of the model's limits; injected by the run assembly (the catalog, flags, config). */
export type ContextLimits = {
  /** Tokens the model accepts in one request, input and output together. */
  contextWindow?: number;
  /** Share (0 < t ≤ 1) of the room for input at which automatic compaction starts; 0 turns it off. */
  compactThreshold?: number;
};

/**
 * Context accounting: how many tokens the next request will carry. After a model call the provider's
 * reported input tokens are exact for what was sent; what was appended since (the reply, tool
 * results, a new prompt) is estimated. Before the first call, or after a compaction replaced the
 * history, everything is estimated.
 */
export class ContextMeter {
  readonly window: number;
  /** The room for input: the window less what the reply may use. */
  readonly room: number;
  /** Automatic compaction starts above this estimate (Infinity: off). */
  readonly compactAt: number;
  private readonly fixed: number;
  private reported: { messages: number; tokens: number } | undefined;

  constructor(limits: ContextLimits, maxTokens: number, system: string, tools: readonly ToolSpec[]) {
    this.window = limits.contextWindow ?? DEFAULT_CONTEXT_WINDOW;
    // A reply may use max_tokens, but a window is not kept three-quarters empty for it.
    this.room = this.window - Math.min(maxTokens, Math.floor(this.window / 4));
    const threshold = limits.compactThreshold ?? DEFAULT_COMPACT_THRESHOLD;
    this.compactAt =
      threshold > 0 ? Math.floor(this.room * Math.min(1, threshold)) : Number.POSITIVE_INFINITY;
    this.fixed = estimateTokens(system) + (tools.length > 0 ? estimateTokens(tools) : 0);
  }

  /** Tokens of a request carrying `history` (system prompt and tools included). */
  estimate(history: readonly ConversationMessage[]): number {
    const reported = this.reported;
    if (reported && reported.messages <= history.length) {
      return reported.tokens + messagesTokens(history, reported.messages);
    }
    return this.fixed + messagesTokens(history);
  }

  /** Tokens of the system prompt and tool definitions. */
  get overhead(): number {
    return this.fixed;
  }

  /** A call that sent `messages` messages reported `usage`. */
  record(messages: number, usage: Usage): void {
    const tokens =
      usage.input_tokens + (usage.cache_read_input_tokens ?? 0) + (usage.cache_creation_input_tokens ?? 0);
    if (tokens > 0) this.reported = { messages, tokens };
  }

  /** The history was replaced: nothing reported applies to it any more. */
  reset(): void {
    this.reported = undefined;
  }
}
