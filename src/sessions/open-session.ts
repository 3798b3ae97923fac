import type { ConversationMessage } from "../engine/messages.js";
import { randomUuid } from "../util/random-id.js";
import { isValidSessionId, SessionNotFoundError, SessionStore } from "./store.js";
import type { SessionWriter } from "./writer.js";

/** What a front end asks for: a new session, or a resumed (optionally forked) one. */
export type SessionRequest = {
  cwd: string;
  /** Id for a new session (SDK `sessionId`); default a fresh UUID. */
  sessionId?: string;
  /** Resume this session id (unknown ids are an error naming the id, unless `createMissing`). */
  resume?: string;
  /**
   * The reference CLI's semantics (its consumers create an id, then resume it on every prompt): a
   * `resume` id with no transcript starts a new session under that id, with one warning. Not with `fork`.
   */
  createMissing?: boolean;
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
 * The same id is kept on resume; an unknown id fails, or with `createMissing` starts a new session
 * under that id (docs/security.md#sessions).
 */
export async function openSession(request: SessionRequest): Promise<OpenedSession> {
  const store = new SessionStore({ env: request.env ?? process.env });
  const persist = request.persist ?? true;
  let resumeId = request.resume;
  let newId = request.sessionId;
  const warnings: string[] = [];
  if (!resumeId && request.continueLatest) {
    resumeId = (await store.latest(request.cwd))?.sessionId;
    if (!resumeId) warnings.push("No earlier session in this directory to continue; starting a new one.");
  }
  if (resumeId && request.createMissing && !request.fork && isValidSessionId(resumeId)) {
    try {
      store.find(resumeId, request.cwd);
    } catch (error) {
      if (!(error instanceof SessionNotFoundError)) throw error;
      warnings.push(`session ${resumeId} not found; starting a new session under that id.`);
      newId = resumeId;
      resumeId = undefined;
    }
  }
  if (!resumeId) {
    const writer = persist ? store.create(request.cwd, newId) : undefined;
    const sessionId = writer?.sessionId ?? newId ?? randomUuid();
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
