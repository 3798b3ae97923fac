import type { ConversationMessage } from "../engine/messages.js";
import { positionUuid, toolResultUuid } from "../sessions/derived-uuids.js";
import { blockUuid } from "../sessions/message-uuids.js";
import { defaultTranscriptStore } from "../sessions/open-session.js";
import type { SessionMeta, SessionSummary, TranscriptStore } from "../sessions/transcript-store.js";
import { historyUpTo, messagePoint } from "./message-points.js";
import { sdkEnvironment } from "./options.js";

/**
 * The convention's session functions over cairn's transcript store (today the JSONL files of
 * `$CAIRN_HOME/sessions/<workspace>/<id>.jsonl`, docs/sessions.md). `dir` is the session's working
 * directory (the convention's project directory); without it, every working directory is searched.
 * Titles, tags and the archived flag are the store's session metadata (the JSONL store keeps them
 * beside the transcript in `<id>.meta.json`: the transcript itself is append-only).
 */

export type SDKSessionInfo = {
  sessionId: string;
  /** The custom title, else the first prompt (`""` when there is none). */
  summary: string;
  /** Last write, milliseconds since the epoch. */
  lastModified: number;
  fileSize?: number;
  customTitle?: string;
  firstPrompt?: string;
  gitBranch?: string;
  cwd?: string;
  tag?: string;
  /** Creation, milliseconds since the epoch. */
  createdAt?: number;
  archived?: boolean;
};

/**
 * One message of a session's conversation. `uuid` is the one `query()` yielded the message under (an
 * assistant message's last block's), else derived from the session id and the message's position,
 * so it is the same on every read; `resumeSessionAt` and `forkSession({ upToMessageId })` take it.
 * Tool results are `user` messages, as the model API has them.
 */
export type SessionMessage = {
  type: "user" | "assistant" | "system";
  uuid: string;
  session_id: string;
  message: unknown;
  parent_tool_use_id: string | null;
  parent_agent_id: string | null;
};

export type ListSessionsOptions = {
  dir?: string;
  limit?: number;
  offset?: number;
  /** cairn has no worktree sessions of its own: accepted, no effect. */
  includeWorktrees?: boolean;
  /** cairn does not tell programmatic sessions apart: accepted, no effect. */
  includeProgrammatic?: boolean;
  /** Custom stores are not supported: passing one throws. */
  sessionStore?: unknown;
};
export type GetSessionInfoOptions = { dir?: string; sessionStore?: unknown };
export type GetSessionMessagesOptions = {
  dir?: string;
  limit?: number;
  offset?: number;
  /** cairn's history holds no system messages: accepted, no effect. */
  includeSystemMessages?: boolean;
  sessionStore?: unknown;
};
export type SessionMutationOptions = { dir?: string; sessionStore?: unknown };
export type ForkSessionOptions = SessionMutationOptions & { upToMessageId?: string; title?: string };
export type ForkSessionResult = { sessionId: string };
export type ListSubagentsOptions = { dir?: string; sessionStore?: unknown };
export type GetSubagentMessagesOptions = GetSessionMessagesOptions;

export async function listSessions(options: ListSessionsOptions = {}): Promise<SDKSessionInfo[]> {
  const store = storeFor(options);
  const summaries = options.dir !== undefined ? await store.list(options.dir) : await store.listAll();
  return page(summaries, options).map(sessionInfo);
}

/** `undefined` for an unknown id. */
export async function getSessionInfo(
  sessionId: string,
  options: GetSessionInfoOptions = {},
): Promise<SDKSessionInfo | undefined> {
  const store = storeFor(options);
  const summaries = options.dir !== undefined ? await store.list(options.dir) : await store.listAll();
  const found = summaries.find((summary) => summary.sessionId === sessionId);
  return found ? sessionInfo(found) : undefined;
}

/** The conversation as a resume would send it to the model. Unknown id: `SessionNotFoundError`. */
export async function getSessionMessages(
  sessionId: string,
  options: GetSessionMessagesOptions = {},
): Promise<SessionMessage[]> {
  const loaded = await storeFor(options).load(sessionId, options.dir);
  return page(sessionMessages(sessionId, loaded.history), options);
}

/** The agent ids of a session's subagents, from their transcripts (docs/agents.md), oldest first. */
export async function listSubagents(
  sessionId: string,
  options: ListSubagentsOptions = {},
): Promise<string[]> {
  return storeFor(options).subagents(sessionId, options.dir);
}

/** A subagent's conversation (its sidechain transcript), paged like `getSessionMessages()`. */
export async function getSubagentMessages(
  sessionId: string,
  agentId: string,
  options: GetSubagentMessagesOptions = {},
): Promise<SessionMessage[]> {
  const loaded = await storeFor(options).loadSubagent(sessionId, agentId, options.dir);
  if (!loaded) return [];
  const messages = sessionMessages(`${sessionId}/${agentId}`, loaded.history).map((message) => ({
    ...message,
    session_id: sessionId,
    parent_agent_id: agentId,
  }));
  return page(messages, options);
}

export async function renameSession(
  sessionId: string,
  title: string,
  options: SessionMutationOptions = {},
): Promise<void> {
  await updateMeta(sessionId, options, { title });
}

/** `null` removes the tag. */
export async function tagSession(
  sessionId: string,
  tag: string | null,
  options: SessionMutationOptions = {},
): Promise<void> {
  await updateMeta(sessionId, options, { tag: tag ?? undefined });
}

/** Hidden from nothing in cairn (listings include archived sessions, marked `archived: true`). */
export async function archiveSession(sessionId: string, options: SessionMutationOptions = {}): Promise<void> {
  await updateMeta(sessionId, options, { archived: true });
}

export async function unarchiveSession(
  sessionId: string,
  options: SessionMutationOptions = {},
): Promise<void> {
  await updateMeta(sessionId, options, { archived: undefined });
}

/** Removes the transcript and its metadata. Unknown id: `SessionNotFoundError`. */
export async function deleteSession(sessionId: string, options: SessionMutationOptions = {}): Promise<void> {
  await storeFor(options).delete(sessionId, options.dir);
}

/** A new session holding a copy of the conversation (up to and including `upToMessageId`). */
export async function forkSession(
  sessionId: string,
  options: ForkSessionOptions = {},
): Promise<ForkSessionResult> {
  const store = storeFor(options);
  const { upToMessageId } = options;
  const forked = await store.fork(sessionId, {
    ...(options.dir !== undefined ? { cwd: options.dir } : {}),
    ...(upToMessageId !== undefined
      ? {
          keep: (history: ConversationMessage[]) =>
            historyUpTo(history, messagePoint([sessionId], history, upToMessageId)),
        }
      : {}),
  });
  if (options.title !== undefined) await updateMeta(forked.sessionId, options, { title: options.title });
  return { sessionId: forked.sessionId };
}

/**
 * The messages of a history with their stable uuids: those `query()` yielded them under (an
 * assistant message's is its last block's, a tool result message's its first result's; message-
 * uuids.ts), else one derived from the session and the message's position.
 */
export function sessionMessages(
  sessionId: string,
  history: readonly ConversationMessage[],
): SessionMessage[] {
  return history.map((message, index) => ({
    type: message.role,
    uuid: knownUuid(message) ?? positionUuid(sessionId, index),
    session_id: sessionId,
    message: structuredClone(message),
    parent_tool_use_id: null,
    parent_agent_id: null,
  }));
}

function knownUuid(message: ConversationMessage): string | undefined {
  if (message.role === "assistant") {
    const last = message.content.at(-1);
    return last ? blockUuid(last) : undefined;
  }
  if (typeof message.content === "string") return undefined;
  const result = message.content.find((block) => block.type === "tool_result");
  return result?.type === "tool_result" ? toolResultUuid(result.tool_use_id) : undefined;
}

function storeFor(options: { sessionStore?: unknown }): TranscriptStore {
  if (options.sessionStore !== undefined) {
    throw new TypeError(
      "cairn: custom session stores (sessionStore) are not supported; transcripts live in $CAIRN_HOME/sessions.",
    );
  }
  return defaultTranscriptStore(sdkEnvironment(undefined));
}

function page<T>(items: T[], options: { limit?: number; offset?: number }): T[] {
  const start = options.offset ?? 0;
  return items.slice(start, options.limit === undefined ? undefined : start + options.limit);
}

function sessionInfo(summary: SessionSummary): SDKSessionInfo {
  const { meta } = summary;
  return {
    sessionId: summary.sessionId,
    summary: meta.title ?? summary.firstPrompt ?? "",
    lastModified: Date.parse(summary.updatedAt),
    fileSize: summary.size,
    ...(meta.title !== undefined ? { customTitle: meta.title } : {}),
    ...(summary.firstPrompt !== undefined ? { firstPrompt: summary.firstPrompt } : {}),
    cwd: summary.cwd,
    ...(meta.tag !== undefined ? { tag: meta.tag } : {}),
    createdAt: Date.parse(summary.createdAt),
    ...(meta.archived ? { archived: true } : {}),
  };
}

/** Merges `change` into the session's metadata (undefined removes a key). */
function updateMeta(sessionId: string, options: SessionMutationOptions, change: SessionMeta): Promise<void> {
  return storeFor(options).updateMeta(sessionId, options.dir, change);
}
