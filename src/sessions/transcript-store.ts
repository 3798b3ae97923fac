import type { EngineEvent } from "../engine/events.js";
import type { ConversationMessage } from "../engine/messages.js";
import type { RewindFilesResult } from "./checkpoints.js";
import type { LoadedTranscript, TranscriptWarning } from "./reader.js";
import type { TranscriptRecord } from "./records.js";

/**
 * Where sessions are kept, behind one interface: every place that opens, lists, loads, forks,
 * titles or deletes a session goes through a `TranscriptStore`, never through a file path it built
 * itself. Today's store keeps JSONL files (`JsonlTranscriptStore`, store.ts); a store that is not
 * files (a database for workers that outlive each other) implements the same methods, and
 * `test/sessions/transcript-store-conformance.test.ts` holds what every store must do.
 *
 * A session is named by its id and the working directory it belongs to (`cwd`). Where an
 * operation takes `cwd` as optional, the store looks there first, then in every directory.
 * Unknown ids throw `SessionNotFoundError` (store.ts); a second writer of one session throws
 * `SessionLockedError` (lock.ts).
 */
export interface TranscriptStore {
  /** Starts a new session in `cwd` (fresh UUID unless `sessionId` is given; an existing id throws). */
  create(cwd: string, sessionId?: string, options?: { forkedFrom?: string }): Promise<TranscriptWriter>;
  /**
   * Opens an existing session for appending (a resume keeps its id). The writer holds the
   * session's lock until it is closed: a second writer is refused while it lives.
   */
  open(sessionId: string, cwd?: string): Promise<TranscriptWriter>;
  /** A session with this id belongs to `cwd` already (so `create(cwd, sessionId)` would refuse it). */
  exists(sessionId: string, cwd: string): Promise<boolean>;
  /** Where the session is, found as `open` and `load` find it; unknown id: `SessionNotFoundError`. */
  find(sessionId: string, cwd?: string): Promise<string>;
  /** The conversation, rebuilt, with the loader's warnings (torn or corrupt records, repairs). */
  load(sessionId: string, cwd?: string): Promise<LoadedSession>;
  /** Sessions of `cwd`, most recently written first. Unreadable ones are skipped. */
  list(cwd: string): Promise<SessionSummary[]>;
  /** Sessions of every working directory, most recently written first. */
  listAll(): Promise<SessionSummary[]>;
  /** The most recently written session of `cwd` (`--continue`). */
  latest(cwd: string): Promise<SessionSummary | undefined>;
  /**
   * A new session (same working directory, new id, `forkedFrom` recorded) holding a copy of the
   * history, or of what `keep` keeps of it (when `keep` throws, no fork is made). The original is
   * not touched.
   */
  fork(sessionId: string, options?: ForkOptions): Promise<ForkedSession>;
  /**
   * The location of a session's transcript: an opaque string naming it in this store, which hooks
   * get as `transcript_path` (the JSONL store's is the file's path). Computed, not looked up: the
   * session need not exist yet.
   */
  locate(sessionId: string, cwd: string): string;
  /** The location of a subagent's transcript (its sidechain), which its hooks and reports name. */
  locateSubagent(sessionId: string, cwd: string, agentId: string): string;
  /** The agent ids of a session's subagent transcripts, oldest first. */
  subagents(sessionId: string, cwd?: string): Promise<string[]>;
  /** A subagent's conversation; undefined when the session has no subagent of that id. */
  loadSubagent(sessionId: string, agentId: string, cwd?: string): Promise<LoadedTranscript | undefined>;
  /** Merges `change` into the session's title, tag and archived flag (an undefined value removes it). */
  updateMeta(sessionId: string, cwd: string | undefined, change: SessionMeta): Promise<void>;
  /** Removes the session (its transcript and its metadata). */
  delete(sessionId: string, cwd?: string): Promise<void>;
  /** The session's file checkpoints (SDK `enableFileCheckpointing`), read back when it has some. */
  fileCheckpoints(sessionId: string, cwd: string): FileCheckpointStore;
}

/**
 * One session's file checkpoints, kept by its transcript store (the JSONL store's: files beside the
 * transcript, checkpoints.ts; without a transcript: in memory). Each user message opens a
 * checkpoint; a file's content is saved before a tool first changes it in that message's turn; a
 * rewind puts the files back as they were when the message was sent. A store that must wait for its
 * storage returns promises; the session waits for `begin` before the turn's first save.
 */
export interface FileCheckpointStore {
  /** A user message's turn starts: later saves go to its checkpoint (an existing one is reused). */
  begin(userMessageId: string): void | Promise<void>;
  /** Saves `file`'s content (or its absence) once per checkpoint; throws when it cannot be saved. */
  beforeChange(file: string): Promise<void>;
  /** Puts the files back as they were when `userMessageId` was sent; `dryRun` only reports. */
  rewind(userMessageId: string, options?: { dryRun?: boolean }): Promise<RewindFilesResult>;
}

/**
 * Appends to one session's transcript. What `recordEvent` and `append` take is recorded in order;
 * it is durable at the turn's end, at `run_end` and at `close()` (the JSONL writer fsyncs then).
 * A store that must wait for its storage returns a promise, and the caller waits for it before it
 * goes on (before `run_end` reaches the door, say); the JSONL writer returns nothing and writes at once.
 */
export interface TranscriptWriter {
  readonly sessionId: string;
  /** The transcript's location (`TranscriptStore.locate`). */
  readonly location: string;
  /** Notes from opening it (a last record cut short by a crash, repaired), one line each. */
  readonly warnings: readonly string[];
  readonly closed: boolean;
  /** Tees one engine event into the transcript (those it does not record are ignored). */
  recordEvent(event: EngineEvent): void | Promise<void>;
  /** Appends one record. */
  append(record: TranscriptRecord): void | Promise<void>;
  /** Appends a conversation message as it is (forks copy histories with it). */
  appendMessage(message: ConversationMessage): void | Promise<void>;
  /** Makes what was appended durable, releases the session's lock. Safe to call twice. */
  close(): void | Promise<void>;
}

/** A session's title, tag and archived flag (the SDK's `renameSession`, `tagSession`, …). */
export type SessionMeta = { title?: string; tag?: string; archived?: boolean };

export type SessionSummary = {
  sessionId: string;
  cwd: string;
  /** `TranscriptStore.locate`'s location of it. */
  location: string;
  /** ISO time the session was created. */
  createdAt: string;
  /** ISO time of the last write. */
  updatedAt: string;
  /** Transcript size in bytes. */
  size: number;
  firstPrompt?: string;
  /** User prompts (runs). */
  prompts: number;
  /** Model turns (assistant messages). */
  turns: number;
  forkedFrom?: string;
  /** Its title, tag and archived flag, when it has any. */
  meta: SessionMeta;
};

export type LoadedSession = LoadedTranscript & { sessionId: string; location: string };

export type ForkOptions = {
  cwd?: string;
  newId?: string;
  /** What of the history to copy (it may throw: then no fork is made). */
  keep?: (history: ConversationMessage[]) => ConversationMessage[];
};

export type ForkedSession = {
  sessionId: string;
  location: string;
  history: ConversationMessage[];
  warnings: TranscriptWarning[];
};
