/**
 * Sessions: a `TranscriptStore` (transcript-store.ts) that every door opens, lists, loads, forks and
 * deletes sessions through; today's is the JSONL store (store.ts): append-only transcripts under
 * `$CAIRN_HOME/sessions/<workspace-key>/<id>.jsonl`, a writer that tees the engine's events into
 * them, and a loader that rebuilds the conversation. See docs/security.md ("Transcripts").
 */

export { FileCheckpoints, memoryFileCheckpoints, type RewindFilesResult } from "./checkpoints.js";
export { SessionLockedError } from "./lock.js";
export {
  defaultTranscriptStore,
  type OpenedSession,
  openSession,
  resumeTranscript,
  type SessionRequest,
} from "./open-session.js";
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
  JsonlTranscriptStore,
  type JsonlTranscriptStoreOptions,
  SESSIONS_DIR,
  SessionNotFoundError,
  TRANSCRIPT_EXTENSION,
  workspaceKey,
} from "./store.js";
export type {
  FileCheckpointStore,
  ForkedSession,
  ForkOptions,
  LoadedSession,
  SessionMeta,
  SessionSummary,
  TranscriptStore,
  TranscriptWriter,
} from "./transcript-store.js";
export { DIR_MODE, FILE_MODE, SessionWriteError, SessionWriter } from "./writer.js";
