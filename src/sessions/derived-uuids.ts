import { createHash } from "node:crypto";

/**
 * Message uuids derived from what a transcript holds anyway (message-uuids.ts has the ones it records):
 *
 * - a tool result's, from its `tool_use_id` (unique in a session, as the model APIs make them), so
 *   it needs no record of its own;
 * - any other message's (a prompt, a message of a transcript written before uuids were kept), from the
 *   session and its position in the history, as `getSessionMessages()` gives it.
 *
 * Kept apart from message-uuids.ts: the transcript writer needs none of this, and a CLI run does not
 * load `node:crypto` for it.
 */
/**
 * Not tied to the session: a fork copies the result under its tool call's id, and the uuid a program
 * was shown names it in both sessions.
 */
export function toolResultUuid(toolUseId: string): string {
  return derivedUuid(`cairn-tool-result:${toolUseId}`);
}

export function positionUuid(sessionId: string, index: number): string {
  return derivedUuid(`cairn-message:${sessionId}:${index}`);
}

/** A UUID (version-5 layout) from a name. */
function derivedUuid(name: string): string {
  const hex = createHash("sha1").update(name).digest("hex");
  const variant = ((Number.parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
