/**
 * Sessions: append-only JSONL transcripts under `$CAIRN_HOME/sessions/<workspace-key>/<id>.jsonl`,
 * a writer that tees the engine's events into them, and a loader that rebuilds the conversation.
 * See docs/security.md ("Transcripts").
 */

export { type OpenedSession, openSession, type SessionRequest } from "./open-session.js";
export {
  type LoadedTranscript,
  loadTranscript,
  summarizeTranscript,
  TranscriptError,
  type TranscriptSummary,
  type TranscriptWarning,
} from "./reader.js";
export {
  type AssistantRecord,
  type HeaderRecord,
  type RepairRecord,
  type RunEndRecord,
  rebuildHistory,
  serializeRecord,
  type ToolResultRecord,
  TRANSCRIPT_VERSION,
  type TranscriptRecord,
  type UserRecord,
} from "./records.js";
export {
  isValidSessionId,
  type LoadedSession,
  SESSIONS_DIR,
  SessionNotFoundError,
  SessionStore,
  type SessionStoreOptions,
  type SessionSummary,
  TRANSCRIPT_EXTENSION,
  workspaceKey,
} from "./store.js";
export { DIR_MODE, FILE_MODE, SessionWriteError, SessionWriter } from "./writer.js";
