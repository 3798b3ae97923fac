import { workspaceKey } from "../sessions/store.js";
import type { SessionKey, SessionStore, SessionStoreEntry } from "./convention-types.js";
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
