import type { ModelStreamEvent } from "./messages.js";

type Delta = Extract<ModelStreamEvent, { type: "content_block_delta" }>;

/** What consumers have been shown of one content block, across the attempts of one model call. */
type ShownBlock = {
  kind: string;
  name: string | undefined;
  text: string;
  stopped: boolean;
  /** Extended by the current attempt: its deltas pass straight through. */
  live: boolean;
};

/**
 * Keeps a retried model call from showing its output twice. Every emitted stream event is recorded
 * per content block. When an attempt fails and the call is retried, the new attempt's events are
 * compared with that record: what only repeats output already shown is dropped, and only the new
 * part goes out. A consumer that appends text deltas therefore sees the answer exactly once. If the
 * new attempt diverges from what was shown, filtering stops for this call and the new attempt
 * streams as is (the `model_call_retry` event before it marks where).
 */
export class RetryDeduper {
  private readonly shown = new Map<number, ShownBlock>();
  /** How much of each shown block the current attempt has reproduced. */
  private progress = new Map<number, number>();
  private shownMessageStart = false;
  private retrying = false;
  private diverged = false;

  /** Called when an attempt failed and another is about to start. */
  startRetry(): void {
    this.retrying = true;
    this.progress = new Map();
    for (const block of this.shown.values()) block.live = false;
  }

  /** Whether anything of this model call has been shown yet. */
  hasShown(): boolean {
    return this.shownMessageStart;
  }

  /** The event to emit (possibly with a shortened delta), or undefined when it only repeats output. */
  filter(event: ModelStreamEvent): ModelStreamEvent | undefined {
    if (this.diverged) return event;
    switch (event.type) {
      case "message_start":
        if (this.shownMessageStart) return undefined;
        this.shownMessageStart = true;
        return event;
      case "content_block_start": {
        const block = this.shown.get(event.index);
        const name = event.content_block.type === "tool_use" ? event.content_block.name : undefined;
        if (!block) {
          this.shown.set(event.index, {
            kind: event.content_block.type,
            name,
            text: "",
            stopped: false,
            live: true,
          });
          return event;
        }
        if (this.retrying && block.kind === event.content_block.type && block.name === name) {
          this.progress.set(event.index, 0);
          return undefined;
        }
        return this.diverge(event);
      }
      case "content_block_delta":
        return this.filterDelta(event);
      case "content_block_stop": {
        const block = this.shown.get(event.index);
        if (!block) return event;
        if (!block.live && block.stopped && this.progress.get(event.index) === block.text.length)
          return undefined;
        block.stopped = true;
        return event;
      }
      default:
        return event;
    }
  }

  private filterDelta(event: Delta): ModelStreamEvent | undefined {
    const block = this.shown.get(event.index);
    const piece = deltaText(event);
    if (!block || piece === undefined) return event;
    if (block.live) {
      block.text += piece;
      return event;
    }
    const done = this.progress.get(event.index) ?? 0;
    const expected = block.text.slice(done, done + piece.length);
    if (!piece.startsWith(expected)) return this.diverge(event);
    this.progress.set(event.index, done + piece.length);
    if (expected.length === piece.length) return undefined;
    // The new attempt has gone past what was shown: emit only the new tail, and stream live from here.
    const tail = piece.slice(expected.length);
    block.text += tail;
    block.live = true;
    return withDeltaText(event, tail);
  }

  private diverge(event: ModelStreamEvent): ModelStreamEvent {
    this.diverged = true;
    return event;
  }
}

function deltaText(event: Delta): string | undefined {
  const delta = event.delta;
  if (delta.type === "text_delta") return delta.text;
  if (delta.type === "thinking_delta") return delta.thinking;
  if (delta.type === "input_json_delta") return delta.partial_json;
  return undefined;
}

function withDeltaText(event: Delta, text: string): Delta {
  const delta = event.delta;
  if (delta.type === "text_delta") return { ...event, delta: { ...delta, text } };
  if (delta.type === "thinking_delta") return { ...event, delta: { ...delta, thinking: text } };
  if (delta.type === "input_json_delta") return { ...event, delta: { ...delta, partial_json: text } };
  return event;
}
