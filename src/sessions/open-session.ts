import type { ConversationMessage } from "../engine/messages.js";
import { SessionStore } from "./store.js";
import type { SessionWriter } from "./writer.js";

/** What a front end asks for: a new session, or a resumed (optionally forked) one. */
export type SessionRequest = {
  cwd: string;
  /** Id for a new session (SDK `sessionId`); default a fresh UUID. */
  sessionId?: string;
  /** Resume this session id (unknown ids are an error naming the id). */
  resume?: string;
  /** Resume the latest session of `cwd` (`--continue`, `--resume` without id, SDK `continue`). */
  continueLatest?: boolean;
  /** With a resume: write to a new session id holding a copy of the history. */
  fork?: boolean;
  /** Default true; false runs without a transcript (SDK `persistSession: false`). */
  persist?: boolean;
  env?: NodeJS.ProcessEnv;
};

export type OpenedSession = {
  sessionId: string;
  /** The conversation so far (empty for a new session); the engine appends to it. */
  history: ConversationMessage[];
  /** Tee every engine event into it; undefined when not persisting. */
  writer?: SessionWriter;
  /** Loader warnings (torn last line, corrupt lines) and notes, one line each. */
  warnings: string[];
  forkedFrom?: string;
};

/**
 * Opens the transcript a run writes to: new, resumed by id, the latest of this directory, or a fork.
 * The same id is kept on resume (the reference CLI silently starts a new chat for an unknown id;
 * cairn fails instead, see docs/security.md).
 */
export async function openSession(request: SessionRequest): Promise<OpenedSession> {
  const store = new SessionStore({ env: request.env ?? process.env });
  const persist = request.persist ?? true;
  let resumeId = request.resume;
  const warnings: string[] = [];
  if (!resumeId && request.continueLatest) {
    resumeId = (await store.latest(request.cwd))?.sessionId;
    if (!resumeId) warnings.push("No earlier session in this directory to continue; starting a new one.");
  }
  if (!resumeId) {
    const writer = persist ? store.create(request.cwd, request.sessionId) : undefined;
    const sessionId = writer?.sessionId ?? request.sessionId ?? crypto.randomUUID();
    return { sessionId, history: [], ...(writer ? { writer } : {}), warnings };
  }
  const resumed = await store.resume(resumeId, { fork: request.fork === true, cwd: request.cwd });
  warnings.push(...resumed.warnings.map((warning) => warning.message));
  if (!persist) resumed.writer.close();
  return {
    sessionId: resumed.writer.sessionId,
    history: resumed.history,
    ...(persist ? { writer: resumed.writer } : {}),
    warnings,
    ...(resumed.forkedFrom ? { forkedFrom: resumed.forkedFrom } : {}),
  };
}
