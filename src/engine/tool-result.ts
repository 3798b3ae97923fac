import type { ToolOutcome } from "../tools/types.js";
import type { ToolResultBlock } from "./messages.js";

/** The `tool_result` block a tool's outcome is sent (and recorded, and shown) as. */
export function toToolResult(toolUseId: string, outcome: ToolOutcome): ToolResultBlock {
  return {
    type: "tool_result",
    tool_use_id: toolUseId,
    // What the tool attached (Read of an image) goes beside its text, as the model's own content.
    content: outcome.media?.length
      ? [{ type: "text", text: outcome.content }, ...outcome.media]
      : outcome.content,
    ...(outcome.isError ? { is_error: true } : {}),
  };
}
