import type { ConversationMessage } from "../engine/messages.js";
import { estimateTokens } from "../engine/tokens.js";
import { boundaryUuids } from "../sessions/message-uuids.js";
import type { OpenedSession } from "../sessions/open-session.js";
import { historyUpTo, type MessagePoint, messagePoint } from "./message-points.js";
import { InvalidOptionsError } from "./options.js";

/**
 * `resumeSessionAt`: the history up to and including that message. The transcript gets a boundary
 * record, so the session goes on from there on a later resume too.
 */
export function resumedAt(
  session: OpenedSession,
  uuid: string,
  resumedId: string | undefined,
): ConversationMessage[] {
  // Position-derived ids name the session they were read from (a fork copies them under a new id).
  const sourceIds = [resumedId, session.forkedFrom, session.sessionId].filter(
    (id): id is string => id !== undefined,
  );
  let point: MessagePoint;
  try {
    point = messagePoint([...new Set(sourceIds)], session.history, uuid);
  } catch (error) {
    throw new InvalidOptionsError(
      `cairn query(): invalid option "resumeSessionAt": ${(error as Error).message}`,
      "resumeSessionAt",
    );
  }
  const kept = historyUpTo(session.history, point);
  const left = session.history.length - (point.index + 1);
  session.writer?.append({
    type: "compact_boundary",
    ts: new Date().toISOString(),
    trigger: "manual",
    preTokens: estimateTokens(session.history),
    postTokens: estimateTokens(kept),
    summary: `Resumed at message ${uuid}; the ${left} messages after it are left out.`,
    messages: kept,
    ...boundaryUuids(kept),
  });
  return kept;
}
