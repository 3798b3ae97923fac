import type { AssistantContentBlock, ModelStreamEvent, StreamedMessage, Usage } from "./messages.js";

/** A tool_use whose streamed input was not valid JSON: it must never run. */
export type MalformedToolInput = { toolUseId: string; raw: string; problem: string };

/**
 * Folds raw stream events into the complete assistant message, block by block.
 * `apply` returns the block that just completed (on `content_block_stop`), else undefined.
 */
export class MessageAssembler {
  private message: StreamedMessage | undefined;
  private readonly partialJson = new Map<number, string>();
  readonly malformed: MalformedToolInput[] = [];
  /** Indices of the blocks whose `content_block_stop` arrived (the others were still streaming). */
  readonly completed = new Set<number>();

  apply(event: ModelStreamEvent): AssistantContentBlock | undefined {
    switch (event.type) {
      case "message_start":
        this.message = { ...event.message, content: [], usage: { ...event.message.usage } };
        return undefined;
      case "content_block_start": {
        const block = { ...event.content_block } as AssistantContentBlock;
        if (block.type === "tool_use" || block.type === "server_tool_use") {
          block.input = {};
          this.partialJson.set(event.index, "");
        }
        this.current().content[event.index] = block;
        return undefined;
      }
      case "content_block_delta": {
        const block = this.current().content[event.index];
        if (!block) return undefined;
        const delta = event.delta;
        if (delta.type === "text_delta" && block.type === "text") block.text += delta.text;
        else if (delta.type === "thinking_delta" && block.type === "thinking")
          block.thinking += delta.thinking;
        else if (delta.type === "signature_delta" && block.type === "thinking")
          block.signature = delta.signature;
        else if (delta.type === "citations_delta" && block.type === "text")
          block.citations = [...(block.citations ?? []), delta.citation];
        else if (delta.type === "input_json_delta")
          this.partialJson.set(event.index, (this.partialJson.get(event.index) ?? "") + delta.partial_json);
        return undefined;
      }
      case "content_block_stop": {
        const block = this.current().content[event.index];
        this.completed.add(event.index);
        if (block?.type === "tool_use") this.finishToolInput(block, this.partialJson.get(event.index) ?? "");
        else if (block?.type === "server_tool_use")
          serverToolInput(block, this.partialJson.get(event.index) ?? "");
        return block;
      }
      case "message_delta": {
        const message = this.current();
        message.stop_reason = event.delta.stop_reason;
        message.stop_sequence = event.delta.stop_sequence ?? null;
        // message_delta usage fields are cumulative for the call: they replace, never add.
        message.usage = mergeUsage(message.usage, event.usage);
        return undefined;
      }
      default:
        return undefined;
    }
  }

  /** The message as received so far (blocks still streaming included). */
  snapshot(): StreamedMessage | undefined {
    return this.message;
  }

  private current(): StreamedMessage {
    if (!this.message) throw new Error("Malformed model stream: content arrived before message_start.");
    return this.message;
  }

  private finishToolInput(block: Extract<AssistantContentBlock, { type: "tool_use" }>, raw: string): void {
    if (raw.trim() === "") return;
    try {
      const parsed: unknown = JSON.parse(raw);
      if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) {
        block.input = parsed as Record<string, unknown>;
        return;
      }
      this.malformed.push({ toolUseId: block.id, raw, problem: "the input is not a JSON object" });
    } catch (error) {
      this.malformed.push({
        toolUseId: block.id,
        raw,
        problem: `invalid JSON (${(error as Error).message})`,
      });
    }
  }
}

/**
 * A server tool's input, as far as it parses: the provider ran the call already, so input it sent
 * cut or malformed is only not shown (the block itself is kept and sent back).
 */
function serverToolInput(
  block: Extract<AssistantContentBlock, { type: "server_tool_use" }>,
  raw: string,
): void {
  if (raw.trim() === "") return;
  try {
    const parsed: unknown = JSON.parse(raw);
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed))
      block.input = parsed as Record<string, unknown>;
  } catch {
    // Kept as `{}`.
  }
}

type CountKey = "input_tokens" | "output_tokens" | "cache_read_input_tokens" | "cache_creation_input_tokens";

function mergeUsage(base: Usage, update: Partial<Usage>): Usage {
  const merged = { ...base };
  for (const key of Object.keys(update) as (keyof Usage)[]) {
    const value = update[key];
    if (key === "server_tool_use") {
      if (value && typeof value === "object") merged.server_tool_use = { ...value };
    } else if (typeof value === "number") merged[key as CountKey] = value;
  }
  return merged;
}
