import type { ConversationMessage } from "../engine/messages.js";
import { randomUuid } from "../util/random-id.js";
import type { LoadedTranscript, TranscriptWarning } from "./reader.js";
import { isValidSessionId, JsonlTranscriptStore, SessionNotFoundError } from "./store.js";
import type { TranscriptStore, TranscriptWriter } from "./transcript-store.js";

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
  env: NodeJS.ProcessEnv;
  /** Where sessions are kept; default the JSONL store of `$CAIRN_HOME` (from `env`). */
  store?: TranscriptStore;
};

export type OpenedSession = {
  sessionId: string;
  /** The conversation so far (empty for a new session); the engine appends to it. */
  history: ConversationMessage[];
  /** Tee every engine event into it; undefined when not persisting. */
  writer?: TranscriptWriter;
  /** Loader warnings (torn last line, corrupt lines) and notes, one line each. */
  warnings: string[];
  forkedFrom?: string;
  /** A resumed session's user records, with their prompt ids where known (reader.ts). */
  userRecords?: LoadedTranscript["userRecords"];
};

/** The store a session uses when its door names none: JSONL files under `$CAIRN_HOME/sessions`. */
export function defaultTranscriptStore(env: NodeJS.ProcessEnv): TranscriptStore {
  return new JsonlTranscriptStore({ env });
}

/**
 * Opens the transcript a run writes to: new, resumed by id, the latest of this directory, or a fork.
 * The same id is kept on resume; an unknown id fails, or with `createMissing` starts a new session
 * under that id (docs/security.md#sessions).
 */
export async function openSession(request: SessionRequest): Promise<OpenedSession> {
  const store = request.store ?? defaultTranscriptStore(request.env);
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
      await store.find(resumeId, request.cwd);
    } catch (error) {
      if (!(error instanceof SessionNotFoundError)) throw error;
      warnings.push(`session ${resumeId} not found; starting a new session under that id.`);
      newId = resumeId;
      resumeId = undefined;
    }
  }
  if (!resumeId) {
    const writer = persist ? await store.create(request.cwd, newId) : undefined;
    const sessionId = writer?.sessionId ?? newId ?? randomUuid();
    return { sessionId, history: [], ...(writer ? { writer } : {}), warnings };
  }
  const resumed = await resumeTranscript(store, resumeId, { fork: request.fork === true, cwd: request.cwd });
  warnings.push(...resumed.warnings.map((warning) => warning.message));
  if (!persist) await resumed.writer.close();
  return {
    sessionId: resumed.writer.sessionId,
    history: resumed.history,
    ...(persist ? { writer: resumed.writer } : {}),
    warnings,
    ...(resumed.forkedFrom ? { forkedFrom: resumed.forkedFrom } : {}),
    ...(resumed.userRecords ? { userRecords: resumed.userRecords } : {}),
  };
}

/**
 * Everything `--resume` needs: the loaded history and a writer appending to the same session, or
 * (with `fork`) to a new one holding a copy of the history.
 */
export async function resumeTranscript(
  store: TranscriptStore,
  id: string,
  options: { fork?: boolean; cwd?: string } = {},
): Promise<{
  writer: TranscriptWriter;
  history: ConversationMessage[];
  warnings: TranscriptWarning[];
  forkedFrom?: string;
  userRecords?: LoadedTranscript["userRecords"];
}> {
  if (options.fork) {
    const forked = await store.fork(id, options.cwd ? { cwd: options.cwd } : {});
    const writer = await store.open(forked.sessionId);
    return { writer, history: forked.history, warnings: forked.warnings, forkedFrom: id };
  }
  const loaded = await store.load(id, options.cwd);
  const writer = await store.open(id, options.cwd);
  const warnings = [
    ...loaded.warnings,
    ...writer.warnings.map((message) => ({ kind: "repaired" as const, message })),
  ];
  return {
    writer,
    history: loaded.history,
    warnings,
    ...(loaded.userRecords ? { userRecords: loaded.userRecords } : {}),
  };
}
