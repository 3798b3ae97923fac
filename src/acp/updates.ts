import type { SessionUpdate } from "@agentclientprotocol/sdk";
import {
  type AssistantContentBlock,
  type ConversationMessage,
  contentText,
  mediaPlaceholder,
  type ToolResultBlock,
} from "../engine/messages.js";
import type { SDKMessage } from "../sdk/messages.js";
import {
  editDiff,
  isPlanTool,
  planEntries,
  resultContent,
  toolKind,
  toolLocations,
  toolTitle,
} from "./tool-calls.js";

/**
 * Turns cairn's messages into ACP `session/update`s: a live turn's SDK messages (`project`) and a
 * stored conversation (`replay`, for `session/load`). The only state is which tool each call id
 * belongs to, since a tool result names only the id.
 *
 * Live text and thinking come from the stream's deltas (the completed blocks that follow repeat
 * them and are skipped); a tool call is announced when its block is complete (before it runs, with
 * a Write's or Edit's diff) and updated when its result arrives. TodoWrite calls become the `plan`.
 */
export class UpdateProjection {
  private readonly tools = new Map<string, string>();
  /** Calls already shown as running. */
  private readonly running = new Set<string>();

  constructor(private readonly cwd: string) {}

  project(message: SDKMessage): SessionUpdate[] {
    switch (message.type) {
      case "stream_event": {
        const event = message.event;
        if (event.type !== "content_block_delta") return [];
        if (event.delta.type === "text_delta") return [chunk("agent_message_chunk", event.delta.text)];
        if (event.delta.type === "thinking_delta")
          return [chunk("agent_thought_chunk", event.delta.thinking)];
        return [];
      }
      case "assistant":
        return message.message.content.flatMap((block) =>
          block.type === "tool_use" ? this.toolCall(block, { live: true }) : [],
        );
      case "tool_progress":
        // The heartbeat of a call still running (every 5 s): shown as running once.
        if (this.running.has(message.tool_use_id) || isPlanTool(message.tool_name)) return [];
        this.running.add(message.tool_use_id);
        return [
          { sessionUpdate: "tool_call_update", toolCallId: message.tool_use_id, status: "in_progress" },
        ];
      case "user": {
        const content = message.message.content;
        if (typeof content === "string") return [];
        return content.flatMap((block) =>
          block.type === "tool_result" ? this.toolResult(block, message.tool_use_result) : [],
        );
      }
      default:
        return [];
    }
  }

  /** A stored conversation as the updates a client shows it with (tool calls complete with output). */
  replay(history: ConversationMessage[]): SessionUpdate[] {
    return history.flatMap((message): SessionUpdate[] => {
      if (message.role === "assistant") return message.content.flatMap((block) => this.storedBlock(block));
      if (typeof message.content === "string") return [chunk("user_message_chunk", message.content)];
      return message.content.flatMap((block) =>
        block.type === "text"
          ? [chunk("user_message_chunk", block.text)]
          : block.type === "tool_result"
            ? this.toolResult(block, undefined)
            : [chunk("user_message_chunk", mediaPlaceholder(block))],
      );
    });
  }

  /** The tool a call id belongs to (for permission requests of the running turn). */
  toolName(toolUseId: string): string | undefined {
    return this.tools.get(toolUseId);
  }

  private storedBlock(block: AssistantContentBlock): SessionUpdate[] {
    if (block.type === "text") return [chunk("agent_message_chunk", block.text)];
    if (block.type === "thinking") return [chunk("agent_thought_chunk", block.thinking)];
    if (block.type === "tool_use") return this.toolCall(block, { live: false });
    return [];
  }

  private toolCall(
    block: { id: string; name: string; input: Record<string, unknown> },
    { live }: { live: boolean },
  ): SessionUpdate[] {
    this.tools.set(block.id, block.name);
    if (isPlanTool(block.name)) return [{ sessionUpdate: "plan", entries: planEntries(block.input) }];
    return [
      {
        sessionUpdate: "tool_call",
        toolCallId: block.id,
        title: toolTitle(block.name, block.input),
        kind: toolKind(block.name),
        status: "pending",
        locations: toolLocations(block.name, block.input, this.cwd),
        // A stored Write's "before" is gone (the file holds what it wrote): only a live one reads it.
        content: editDiff(block.name, block.input, this.cwd, { readBefore: live }),
        rawInput: block.input,
      },
    ];
  }

  private toolResult(block: ToolResultBlock, rawOutput: unknown): SessionUpdate[] {
    const name = this.tools.get(block.tool_use_id) ?? "";
    if (isPlanTool(name)) return [];
    const output = contentText(block.content);
    const failed = block.is_error === true;
    // A successful edit keeps the diff it was announced with; anything else shows its output.
    const keepDiff = !failed && toolKind(name) === "edit";
    return [
      {
        sessionUpdate: "tool_call_update",
        toolCallId: block.tool_use_id,
        status: failed ? "failed" : "completed",
        ...(keepDiff ? {} : { content: resultContent(name, output) }),
        rawOutput: rawOutput ?? output,
      },
    ];
  }
}

function chunk(
  sessionUpdate: "agent_message_chunk" | "agent_thought_chunk" | "user_message_chunk",
  text: string,
): SessionUpdate {
  return { sessionUpdate, content: { type: "text", text } };
}
