import type {
  ModelStreamEvent,
  StopReason,
  Usage,
  WebSearchCitation,
  WebSearchToolResultBlock,
} from "../engine/messages.js";
import { ProviderError } from "./types.js";

/**
 * Synthesises the engine's Anthropic-shaped stream from another wire's deltas — the one place where
 * non-Anthropic wires become `message_start`, `content_block_start/delta/stop` (with indices),
 * `message_delta` and `message_stop`.
 *
 * Blocks are strictly sequential, as on Anthropic's wire: a delta of another kind (or for another
 * key) closes the open block and opens the next index. Usage is reported once, complete, on
 * `message_delta` (message_start carries zeros: OpenAI wires only report usage at the end).
 */
export class AnthropicStreamBuilder {
  private started = false;
  private finished = false;
  private nextIndex = 0;
  private open: { kind: "text" | "thinking" | "tool_use"; key: string; index: number } | undefined;
  private readonly tools = new Map<string, { index: number; closed: boolean; argChars: number }>();
  /** Searches the provider ran (server-side web search), reported in the usage. */
  private searches = 0;

  constructor(
    private readonly fallbackId: string,
    private readonly fallbackModel: string,
  ) {}

  get hasStarted(): boolean {
    return this.started;
  }
  get hasFinished(): boolean {
    return this.finished;
  }
  /** Tool calls opened so far. */
  get toolCount(): number {
    return this.tools.size;
  }

  /** `message_start` (idempotent: later calls return nothing). */
  start(id?: string, model?: string): ModelStreamEvent[] {
    if (this.started) return [];
    this.started = true;
    return [
      {
        type: "message_start",
        message: {
          id: id || this.fallbackId,
          type: "message",
          role: "assistant",
          model: model || this.fallbackModel,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: {
            input_tokens: 0,
            output_tokens: 0,
            cache_read_input_tokens: 0,
            cache_creation_input_tokens: 0,
          },
        },
      },
    ];
  }

  /** A text delta; `key` separates distinct text parts (e.g. two output messages). */
  text(text: string, key = "text"): ModelStreamEvent[] {
    if (text.length === 0) return [];
    const events = this.ensureOpen("text", key);
    events.push({
      type: "content_block_delta",
      index: this.open!.index,
      delta: { type: "text_delta", text },
    });
    return events;
  }

  /** A reasoning delta; `key` separates distinct reasoning items. */
  thinking(thinking: string, key = "thinking"): ModelStreamEvent[] {
    if (thinking.length === 0) return [];
    const events = this.ensureOpen("thinking", key);
    events.push({
      type: "content_block_delta",
      index: this.open!.index,
      delta: { type: "thinking_delta", thinking },
    });
    return events;
  }

  /** True when the block open right now is a thinking block with this key. */
  isThinkingOpen(key: string): boolean {
    return this.open?.kind === "thinking" && this.open.key === key;
  }

  /** Opens a tool_use block; its arguments follow through `toolArguments(key, …)`. */
  toolStart(key: string, id: string, name: string): ModelStreamEvent[] {
    if (this.tools.has(key)) return [];
    const events = [...this.start(), ...this.closeOpen()];
    const index = this.nextIndex++;
    this.open = { kind: "tool_use", key, index };
    this.tools.set(key, { index, closed: false, argChars: 0 });
    events.push({
      type: "content_block_start",
      index,
      content_block: { type: "tool_use", id, name, input: {} },
    });
    return events;
  }

  hasTool(key: string): boolean {
    return this.tools.has(key);
  }

  /** Characters of arguments streamed so far for a tool call (0 when none or unknown). */
  toolArgumentChars(key: string): number {
    return this.tools.get(key)?.argChars ?? 0;
  }

  /** A fragment of a tool call's JSON arguments, as it streams. */
  toolArguments(key: string, fragment: string): ModelStreamEvent[] {
    if (fragment.length === 0) return [];
    const tool = this.tools.get(key);
    if (!tool) {
      throw new ProviderError(
        `Malformed model stream: arguments for tool call "${key}" arrived before the call itself.`,
        undefined,
        { retryable: true },
      );
    }
    if (tool.closed || this.open?.key !== key || this.open.kind !== "tool_use") {
      // Anthropic blocks cannot interleave; no known server interleaves tool-call fragments.
      throw new ProviderError(
        `Malformed model stream: arguments for tool call "${key}" arrived after another block had started.`,
        undefined,
        { retryable: true },
      );
    }
    tool.argChars += fragment.length;
    return [
      {
        type: "content_block_delta",
        index: tool.index,
        delta: { type: "input_json_delta", partial_json: fragment },
      },
    ];
  }

  /**
   * A search the provider ran on its side, whole: a `server_tool_use` block (its input as one
   * `input_json_delta`) and the `web_search_tool_result` block after it, as Anthropic streams them.
   */
  webSearch(
    id: string,
    input: Record<string, unknown>,
    content: WebSearchToolResultBlock["content"],
  ): ModelStreamEvent[] {
    const events = [...this.start(), ...this.closeOpen()];
    const index = this.nextIndex;
    this.nextIndex += 2;
    this.searches++;
    events.push(
      {
        type: "content_block_start",
        index,
        content_block: { type: "server_tool_use", id, name: "web_search", input: {} },
      },
      {
        type: "content_block_delta",
        index,
        delta: { type: "input_json_delta", partial_json: JSON.stringify(input) },
      },
      { type: "content_block_stop", index },
      {
        type: "content_block_start",
        index: index + 1,
        content_block: { type: "web_search_tool_result", tool_use_id: id, content },
      },
      { type: "content_block_stop", index: index + 1 },
    );
    return events;
  }

  /** A source cited by the text block open under `key` (nothing when that block is not open). */
  citation(key: string, citation: WebSearchCitation): ModelStreamEvent[] {
    if (this.open?.kind !== "text" || this.open.key !== key) return [];
    return [
      { type: "content_block_delta", index: this.open.index, delta: { type: "citations_delta", citation } },
    ];
  }

  /** Closes the open block, then `message_delta` (stop reason, complete usage) and `message_stop`. */
  finish(stopReason: StopReason, usage: Usage): ModelStreamEvent[] {
    if (this.finished) return [];
    this.finished = true;
    const events = [...this.start(), ...this.closeOpen()];
    events.push({
      type: "message_delta",
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: {
        input_tokens: usage.input_tokens,
        output_tokens: usage.output_tokens,
        cache_read_input_tokens: usage.cache_read_input_tokens ?? 0,
        cache_creation_input_tokens: usage.cache_creation_input_tokens ?? 0,
        ...(this.searches > 0 ? { server_tool_use: { web_search_requests: this.searches } } : {}),
      },
    });
    events.push({ type: "message_stop" });
    return events;
  }

  private ensureOpen(kind: "text" | "thinking", key: string): ModelStreamEvent[] {
    const events = this.start();
    if (this.open?.kind === kind && this.open.key === key) return events;
    events.push(...this.closeOpen());
    const index = this.nextIndex++;
    this.open = { kind, key, index };
    events.push({
      type: "content_block_start",
      index,
      content_block:
        kind === "text" ? { type: "text", text: "" } : { type: "thinking", thinking: "", signature: "" },
    });
    return events;
  }

  private closeOpen(): ModelStreamEvent[] {
    if (!this.open) return [];
    const { index, kind, key } = this.open;
    if (kind === "tool_use") this.tools.get(key)!.closed = true;
    this.open = undefined;
    return [{ type: "content_block_stop", index }];
  }
}

/** Throws what a stream that ended early means: the caller's abort, or a retryable provider error. */
export function endedEarly(signal: AbortSignal, what: string): never {
  if (signal.aborted) {
    const reason: unknown = signal.reason;
    if (reason instanceof Error) throw reason;
    const error = new Error("The request was aborted.");
    error.name = "AbortError";
    throw error;
  }
  throw new ProviderError(what, undefined, { retryable: true });
}
