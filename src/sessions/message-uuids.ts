import type { AssistantContentBlock, ConversationMessage } from "../engine/messages.js";

/**
 * The uuids a session's messages are known by: the `uuid` of each SDK message `query()` yields, which
 * `resumeSessionAt` and `forkSession({ upToMessageId })` take back (docs/sdk.md, "Sessions").
 *
 * - An assistant content block has the uuid its `assistant_block` event carried (the SDK yields one
 *   `assistant` message per block). The transcript keeps it beside the block (`uuids` of an
 *   `assistant` or `compact_boundary` record); in memory it is kept per block object, so the history
 *   the engine holds, the messages a compaction keeps and the history a transcript is read into all
 *   know their blocks' uuids without the conversation sent to the model carrying them.
 * - A tool result's uuid, and that of any other message, is derived (derived-uuids.ts).
 */
const blockUuids = new WeakMap<object, string>();

export function rememberBlockUuid(block: AssistantContentBlock, uuid: string): void {
  blockUuids.set(block, uuid);
}

export function blockUuid(block: AssistantContentBlock): string | undefined {
  return blockUuids.get(block);
}

/** The uuids of a message's blocks, for a record; undefined when none is known (a user message). */
export function recordedUuids(message: ConversationMessage): (string | null)[] | undefined {
  if (message.role !== "assistant") return undefined;
  const uuids = message.content.map((block) => blockUuids.get(block) ?? null);
  return uuids.some((uuid) => uuid !== null) ? uuids : undefined;
}

/** Gives the blocks of a message read from a record the uuids the record kept for them. */
export function restoreUuids(message: ConversationMessage, uuids: unknown): void {
  if (message.role !== "assistant" || !Array.isArray(uuids)) return;
  message.content.forEach((block, index) => {
    const uuid = uuids[index];
    if (block && typeof uuid === "string") blockUuids.set(block, uuid);
  });
}

/** The `uuids` of a `compact_boundary` record: per message, its blocks' (when any is known). */
export function boundaryUuids(messages: readonly ConversationMessage[]): {
  uuids?: ((string | null)[] | null)[];
} {
  const uuids = messages.map((message) => recordedUuids(message) ?? null);
  return uuids.some((entry) => entry !== null) ? { uuids } : {};
}
