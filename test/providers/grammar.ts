import type { ModelStreamEvent } from "../../src/engine/messages.js";

/**
 * Checks that a model call's events follow Anthropic's stream grammar exactly: message_start;
 * blocks 0, 1, 2… each `content_block_start`, deltas of its own kind, `content_block_stop`, never
 * interleaved; then one `message_delta` and `message_stop`. Returns a problem, or undefined.
 */
export function grammarProblem(events: readonly ModelStreamEvent[]): string | undefined {
  if (events[0]?.type !== "message_start") return `first event is ${events[0]?.type}`;
  let open: { index: number; kind: string } | undefined;
  let next = 0;
  for (let i = 1; i < events.length; i++) {
    const event = events[i]!;
    switch (event.type) {
      case "message_start":
        return `second message_start at ${i}`;
      case "content_block_start":
        if (open) return `block ${event.index} starts while ${open.index} is open`;
        if (event.index !== next) return `block index ${event.index}, expected ${next}`;
        open = { index: event.index, kind: event.content_block.type };
        next++;
        break;
      case "content_block_delta": {
        if (!open || open.index !== event.index) return `delta for block ${event.index} that is not open`;
        const expected = { text: "text_delta", thinking: "thinking_delta", tool_use: "input_json_delta" }[
          open.kind
        ];
        if (
          event.delta.type !== expected &&
          !(open.kind === "thinking" && event.delta.type === "signature_delta")
        ) {
          return `${event.delta.type} in a ${open.kind} block`;
        }
        break;
      }
      case "content_block_stop":
        if (!open || open.index !== event.index) return `stop for block ${event.index} that is not open`;
        open = undefined;
        break;
      case "message_delta":
        if (open) return `message_delta while block ${open.index} is open`;
        if (events[i + 1]?.type !== "message_stop" || i + 2 !== events.length)
          return "message_delta not followed by a final message_stop";
        return undefined;
      case "message_stop":
        return "message_stop without message_delta";
    }
  }
  return "no message_delta";
}
