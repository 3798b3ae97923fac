import type { AssistantContentBlock, ConversationMessage } from "../engine/messages.js";
import { positionUuid, toolResultUuid } from "../sessions/derived-uuids.js";
import { blockUuid } from "../sessions/message-uuids.js";

/**
 * Where a message uuid is in a session's history: the message, and when the uuid names one block of
 * an assistant message (the SDK yields one `assistant` message per block), how many of its blocks
 * lead up to and include that one.
 */
export type MessagePoint = { index: number; blocks?: number };

/**
 * Finds `uuid` among the uuids a history's messages are known by (src/sessions/message-uuids.ts): an
 * assistant block's, a tool result's, or one `getSessionMessages()` gives. `sessionIds`: the
 * sessions the history was read from (a fork's messages were named in the session it copied).
 * Unknown: throws, naming the session.
 */
export function messagePoint(
  sessionIds: readonly string[],
  history: readonly ConversationMessage[],
  uuid: string,
): MessagePoint {
  for (let index = 0; index < history.length; index++) {
    const message = history[index]!;
    if (sessionIds.some((id) => positionUuid(id, index) === uuid)) return { index };
    if (message.role === "assistant") {
      const block = message.content.findIndex((part) => blockUuid(part) === uuid);
      if (block === message.content.length - 1) return { index };
      if (block !== -1) return { index, blocks: block + 1 };
    } else if (
      Array.isArray(message.content) &&
      message.content.some((part) => part.type === "tool_result" && toolResultUuid(part.tool_use_id) === uuid)
    ) {
      return { index };
    }
  }
  throw new Error(
    `No message ${uuid} in session ${sessionIds[0]} (message ids are the uuids of the messages query() yielded, or come from getSessionMessages()).`,
  );
}

/**
 * The history up to and including `point`. A tool call whose result falls after the point is left
 * out (the model API takes no call without its result; the reference drops such calls on resume
 * too), and so is an assistant message that is then left with nothing but thinking.
 */
export function historyUpTo(
  history: readonly ConversationMessage[],
  point: MessagePoint,
): ConversationMessage[] {
  const kept = history.slice(0, point.index + 1);
  const last = kept.at(-1);
  if (last?.role !== "assistant") return kept;
  const content = last.content.slice(0, point.blocks).filter((block) => block.type !== "tool_use");
  kept.pop();
  // The same block objects: they keep their uuids.
  if (content.some(isAnswer)) kept.push({ role: "assistant", content });
  return kept;
}

function isAnswer(block: AssistantContentBlock): boolean {
  return block.type !== "thinking" && block.type !== "redacted_thinking";
}
