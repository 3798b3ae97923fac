import { workspaceKey } from "../sessions/store.js";
import type { SessionKey, SessionStore, SessionStoreEntry, SessionSummaryEntry } from "./convention-types.js";
import { getSessionInfo, getSessionMessages } from "./sessions.js";

/**
 * The convention's session-store helpers. cairn keeps transcripts in `$CAIRN_HOME` and does not
 * mirror them to a store (the `sessionStore` option is accepted, not yet supported); these let a
 * program that uses a store for its own purposes, or in its tests, run.
 */

const keyOf = (key: SessionKey) => JSON.stringify([key.projectKey, key.sessionId, key.subpath ?? ""]);

/** A `SessionStore` in memory (the convention's test helper). */
export class InMemorySessionStore implements SessionStore {
  private readonly entries = new Map<
    string,
    { key: SessionKey; entries: SessionStoreEntry[]; mtime: number }
  >();

  async append(key: SessionKey, entries: SessionStoreEntry[]): Promise<void> {
    const slot = this.entries.get(keyOf(key)) ?? { key, entries: [], mtime: 0 };
    slot.entries.push(...structuredClone(entries));
    slot.mtime = Date.now();
    this.entries.set(keyOf(key), slot);
  }

  async load(key: SessionKey): Promise<SessionStoreEntry[] | null> {
    const slot = this.entries.get(keyOf(key));
    return slot ? structuredClone(slot.entries) : null;
  }

  async listSessions(projectKey: string): Promise<{ sessionId: string; mtime: number }[]> {
    return [...this.entries.values()]
      .filter((slot) => slot.key.projectKey === projectKey && slot.key.subpath === undefined)
      .map((slot) => ({ sessionId: slot.key.sessionId, mtime: slot.mtime }));
  }

  async delete(key: SessionKey): Promise<void> {
    this.entries.delete(keyOf(key));
  }

  async listSubkeys(key: { projectKey: string; sessionId: string }): Promise<string[]> {
    return [...this.entries.values()]
      .filter((slot) => slot.key.projectKey === key.projectKey && slot.key.sessionId === key.sessionId)
      .flatMap((slot) => (slot.key.subpath === undefined ? [] : [slot.key.subpath]));
  }
}

export type ImportSessionToStoreOptions = { dir?: string };

/**
 * Copies a session's conversation into `store`, one entry per message (`{ type, uuid, session_id,
 * message }`, the `getSessionMessages()` shape), under `{ projectKey: <cairn's key of its working
 * directory>, sessionId }`. Unknown id: `SessionNotFoundError`.
 */
export async function importSessionToStore(
  sessionId: string,
  store: SessionStore,
  options: ImportSessionToStoreOptions = {},
): Promise<void> {
  const messages = await getSessionMessages(sessionId, options);
  const info = await getSessionInfo(sessionId, options);
  const projectKey = workspaceKey(options.dir ?? info?.cwd ?? process.cwd());
  await store.append(
    { projectKey, sessionId },
    messages.map((message) => ({ ...message })),
  );
}

/** Fields the first entry that carries them sets for good. */
const SET_ONCE = ["isSidechain", "createdAt", "cwd", "firstPrompt"] as const;
/** Fields every entry that carries them sets again. */
const LAST_WINS = ["customTitle", "aiTitle", "lastPrompt", "summaryHint", "gitBranch", "tag"] as const;

/**
 * Folds appended entries into `key`'s running summary, for a store's `append()` to keep a summary
 * beside the transcript. A field comes from the entries that carry it by name (`cwd`, `gitBranch`,
 * `customTitle`, `tag`, …); `createdAt` from the first `timestamp`; `firstPrompt` / `lastPrompt`
 * from the text of user messages (cairn's entries: `importSessionToStore()`); `summaryHint` from a
 * `summary` entry's `summary`. `mtime` is the store's to stamp: `options.mtime`, else `prev`'s.
 */
export function foldSessionSummary(
  prev: SessionSummaryEntry | undefined,
  key: SessionKey,
  entries: SessionStoreEntry[],
  options: { mtime?: number } = {},
): SessionSummaryEntry {
  const data: Record<string, unknown> = { ...prev?.data };
  for (const entry of entries) {
    const found: Record<string, unknown> = { ...entry };
    if (typeof entry.timestamp === "string") found.createdAt = entry.timestamp;
    if (entry.type === "summary" && typeof entry.summary === "string") found.summaryHint = entry.summary;
    const prompt = entry.type === "user" ? promptText(entry.message) : undefined;
    if (prompt !== undefined) {
      found.firstPrompt = prompt;
      found.lastPrompt = prompt;
    }
    for (const field of SET_ONCE)
      if (data[field] === undefined && found[field] !== undefined) data[field] = found[field];
    for (const field of LAST_WINS) if (found[field] !== undefined) data[field] = found[field];
  }
  return { sessionId: key.sessionId, mtime: options.mtime ?? prev?.mtime ?? 0, data };
}

/** The text a user typed (not a tool result), or undefined. */
function promptText(message: unknown): string | undefined {
  const content = (message as { content?: unknown } | undefined)?.content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return undefined;
  const texts = content.flatMap((block) =>
    (block as { type?: unknown }).type === "text" ? [String((block as { text?: unknown }).text)] : [],
  );
  return texts.length > 0 ? texts.join("\n") : undefined;
}
