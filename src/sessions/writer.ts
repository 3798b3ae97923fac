import {
  closeSync,
  fchmodSync,
  fstatSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  readSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import path from "node:path";
import type { EngineEvent, SubagentEvent } from "../engine/events.js";
import type { AssistantContentBlock, ConversationMessage } from "../engine/messages.js";
import { toToolResult } from "../engine/tool-result.js";
import { TranscriptLock } from "./lock.js";
import { boundaryUuids, recordedUuids, rememberBlockUuid } from "./message-uuids.js";
import {
  type AssistantRecord,
  type HeaderRecord,
  type ModelRetry,
  serializeRecord,
  TRANSCRIPT_VERSION,
  type TranscriptRecord,
} from "./records.js";
import type { TranscriptWriter } from "./transcript-store.js";

/** Transcripts are private: they hold prompts, code and command output. */
export const FILE_MODE = 0o600;
export const DIR_MODE = 0o700;

export class SessionWriteError extends Error {
  constructor(
    readonly file: string,
    cause: unknown,
  ) {
    super(`cannot write the transcript ${file}: ${(cause as Error)?.message ?? String(cause)}`);
    this.name = "SessionWriteError";
  }
}

/**
 * Appends records to one transcript. Every record is one `write` call of one complete line; the file
 * is fsynced at turn boundaries (`turn_end`), at the end of a run, and on `close`. All calls are
 * synchronous, so records land in event order and a record whose call returned survives the process
 * being killed (`kill -9`) — only an OS crash can lose what was written since the last fsync.
 *
 * Errors throw `SessionWriteError`; the caller decides whether a run goes on without a transcript.
 */
export class SessionWriter implements TranscriptWriter {
  private fd: number | undefined;
  /** Something was written since the last fsync. */
  private unsynced = false;
  /** The directory of a transcript this writer created, until the first sync makes its entry durable. */
  private unsyncedDirectory: string | undefined;
  /** A sync is due on the next turn of the event loop (syncSoon). */
  private syncPending = false;
  private syncError: unknown;
  /** Warnings from opening an existing transcript (a torn last line that was repaired). */
  readonly warnings: string[] = [];
  /** The transcripts of the subagents running now, by agent id (docs/agents.md). */
  private readonly sidechains = new Map<string, SessionWriter>();
  /** The uuids of the current model call's blocks shown so far, by block index (message-uuids.ts). */
  private blockUuids: string[] = [];
  /** The current model call's failed attempts and fallback, recorded with its assistant record. */
  private retries: ModelRetry[] = [];
  private fallback: AssistantRecord["fallback"];

  private constructor(
    readonly sessionId: string,
    readonly path: string,
    fd: number,
    private readonly lock: TranscriptLock,
  ) {
    this.fd = fd;
  }

  /**
   * Creates a new transcript with its header, atomically: the header is written to a temporary
   * file, then linked into place (so no reader ever sees a transcript without a header, and an
   * existing id is never overwritten).
   *
   * The header is made durable with the first records, at the first turn's end, not before the
   * run's first model request: an fsync of the file and of its directory were about 2 ms of every
   * run's start. Both are the next `sync()` (not a background fsync: the thread pool's first use
   * starts its threads, which cost more than the fsync). Only an OS crash (not a killed process:
   * what was written is in the page cache) before the first turn ended can leave the new transcript
   * empty; resuming it is then refused ("the transcript is empty") and listings skip it, and nothing
   * of that turn was durable anyway.
   */
  static create(file: string, header: HeaderRecord): SessionWriter {
    const dir = path.dirname(file);
    const temp = path.join(dir, `.${path.basename(file)}.${process.pid}.${Date.now()}.tmp`);
    let fd: number | undefined;
    try {
      fd = openSync(temp, "wx", FILE_MODE);
      fchmodSync(fd, FILE_MODE);
      writeAll(fd, serializeRecord(header));
      closeSync(fd);
      fd = undefined;
      linkSync(temp, file);
    } catch (error) {
      if (fd !== undefined) closeSync(fd);
      try {
        unlinkSync(temp);
      } catch {}
      if ((error as NodeJS.ErrnoException).code === "EEXIST")
        throw new SessionWriteError(file, new Error(`session ${header.sessionId} already exists`));
      throw new SessionWriteError(file, error);
    }
    unlinkSync(temp);
    const writer = SessionWriter.openFile(file, header.sessionId, { fresh: true });
    writer.unsynced = true;
    writer.unsyncedDirectory = dir;
    return writer;
  }

  /**
   * Opens an existing transcript for appending (a resumed session keeps its id and file). When the
   * last line was cut short by a crash, it is terminated and followed by a `repair` record, so the
   * loader reports it as repaired rather than as corruption, and nothing already written is changed.
   */
  static openFile(file: string, sessionId: string, options: { fresh?: boolean } = {}): SessionWriter {
    // One writer per transcript at a time: a second one is refused (SessionLockedError).
    const lock = TranscriptLock.acquire(file, sessionId);
    let fd: number;
    try {
      fd = openSync(file, "a", FILE_MODE);
      fchmodSync(fd, FILE_MODE);
    } catch (error) {
      lock.release();
      throw new SessionWriteError(file, error);
    }
    const writer = new SessionWriter(sessionId, file, fd, lock);
    // A transcript this process has just created cannot have been cut short.
    if (options.fresh !== true && endsTorn(file)) {
      writer.writeLine(
        `\n${serializeRecord({ type: "repair", ts: now(), note: "the previous line was cut short by a crash and is ignored" })}`,
      );
      writer.sync();
      writer.warnings.push(
        `${file}: the last line was cut short by a crash; it is ignored and marked as repaired`,
      );
    }
    return writer;
  }

  /** The JSONL store's location of a transcript is its path. */
  get location(): string {
    return this.path;
  }

  get closed(): boolean {
    return this.fd === undefined;
  }

  /** Appends one record (one `write` call). */
  append(record: TranscriptRecord): void {
    this.writeLine(serializeRecord(record));
  }

  /** Appends a conversation message as-is (forks copy histories with it). User text counts as a prompt. */
  appendMessage(message: ConversationMessage): void {
    if (message.role === "assistant") {
      const uuids = recordedUuids(message);
      this.append({ type: "assistant", ts: now(), message, ...(uuids ? { uuids } : {}) });
      return;
    }
    const prompt =
      typeof message.content === "string" || message.content.some((block) => block.type === "text");
    this.append({ type: "user", ts: now(), ...(prompt ? { prompt: true } : {}), message });
  }

  /**
   * Tees the engine's event stream into the transcript: the prompt (`run_start`), each complete
   * assistant message (`model_call_end`), each tool result as it finishes (`tool_end`), each hook that
   * ran (`hook_result`), what an interrupted turn keeps (`turn_interrupted`: the answer cut short, the
   * note that the user interrupted), and the run summary (`run_end`). Syncs at `turn_end` and
   * `run_end`. Other events are ignored.
   */
  recordEvent(event: EngineEvent): void {
    // Stream deltas are most of a run's events (hundreds of thousands a second) and are never
    // recorded: the complete message arrives with model_call_end. Leave at the first comparison.
    if (event.type === "stream") return;
    switch (event.type) {
      case "run_start":
        this.append({
          type: "user",
          ts: now(),
          prompt: true,
          message: { role: "user", content: event.promptContent ?? event.prompt },
          model: event.model,
          permissionMode: event.permissionMode,
          ...(event.userMessageId ? { userMessageId: event.userMessageId } : {}),
        });
        return;
      case "assistant_block":
        this.blockUuids[event.index] = event.uuid;
        return;
      case "model_call_end": {
        const { content, uuids } = this.withBlockUuids(event.message.content);
        this.append({
          type: "assistant",
          ts: now(),
          turn: event.turn,
          message: { role: "assistant", content },
          ...(uuids ? { uuids } : {}),
          model: event.message.model,
          messageId: event.message.id,
          stopReason: event.message.stop_reason,
          usage: event.message.usage,
          durationMs: event.durationMs,
          costUsd: event.costUsd,
          ...(this.retries.length > 0 ? { retries: this.retries } : {}),
          ...(this.fallback ? { fallback: this.fallback } : {}),
        });
        this.retries = [];
        this.fallback = undefined;
        return;
      }
      case "model_call_retry":
        this.retries.push({
          attempt: event.attempt,
          delayMs: event.delayMs,
          errorStatus: event.errorStatus,
          error: event.error,
        });
        return;
      case "model_fallback":
        this.fallback = { from: event.from, to: event.to, error: event.error };
        return;
      case "tool_end":
        this.append({
          type: "tool_result",
          ts: now(),
          turn: event.turn,
          toolName: event.name,
          result: toToolResult(event.toolUseId, event.outcome),
          ...(event.outcome.errorKind ? { errorKind: event.outcome.errorKind } : {}),
          durationMs: event.outcome.durationMs,
          ...exitCodeOf(event.outcome.data),
        });
        return;
      case "user_turn":
        this.append({ type: "user", ts: now(), message: event.message });
        return;
      case "turn_interrupted":
        // The same messages the engine added to the history; a resume merges the note into the user
        // message before it, as the engine did.
        if (event.answer) {
          const message = { role: "assistant" as const, content: event.answer };
          this.append({ type: "assistant", ts: now(), turn: event.turn, message, stopReason: null });
        }
        this.append({
          type: "user",
          ts: now(),
          message: { role: "user", content: [{ type: "text", text: event.note }] },
        });
        return;
      case "hook_result": {
        const { record } = event;
        this.append({
          type: "hook",
          ts: now(),
          turn: event.turn,
          event: record.event,
          hook: record.hookName,
          ...(event.toolUseId ? { toolUseId: event.toolUseId } : {}),
          outcome: record.outcome,
          ...(record.decision ? { decision: record.decision } : {}),
          ...(record.reason ? { reason: record.reason } : {}),
          ...(record.error ? { error: record.error } : {}),
          ...(record.exitCode !== undefined ? { exitCode: record.exitCode } : {}),
          ...(record.systemMessage ? { systemMessage: record.systemMessage } : {}),
        });
        return;
      }
      case "turn_end":
        this.syncSoon();
        return;
      case "subagent":
        this.recordSubagent(event);
        return;
      case "compact_boundary":
        this.append({
          type: "compact_boundary",
          ts: now(),
          trigger: event.trigger,
          preTokens: event.preTokens,
          postTokens: event.postTokens,
          summary: event.summary,
          messages: event.messages,
          durationMs: event.durationMs,
          ...boundaryUuids(event.messages),
        });
        this.sync();
        return;
      case "run_end":
        this.append({
          type: "run_end",
          ts: now(),
          subtype: event.subtype,
          isError: event.isError,
          aborted: event.aborted,
          numTurns: event.numTurns,
          usage: event.usage,
          durationMs: event.durationMs,
          durationApiMs: event.durationApiMs,
          ...(typeof event.totalCostUsd === "number" ? { totalCostUsd: event.totalCostUsd } : {}),
          permissionDenials: event.permissionDenials.length,
          errors: event.errors,
          modelUsage: event.modelUsage,
          modelCostUsd: event.modelCostUsd,
          ...(this.retries.length > 0 ? { retries: this.retries } : {}),
        });
        this.retries = [];
        this.sync();
        return;
      default:
        return;
    }
  }

  /**
   * A model call's blocks (holes left out) with the uuids their `assistant_block` events carried, by
   * index: across a retried call's attempts, a block shown once keeps the uuid it was shown with.
   * The blocks, which the engine's history holds too, remember them (a compaction keeps them).
   */
  private withBlockUuids(blocks: readonly (AssistantContentBlock | undefined)[]): {
    content: AssistantContentBlock[];
    uuids: (string | null)[] | undefined;
  } {
    const content: AssistantContentBlock[] = [];
    const uuids: (string | null)[] = [];
    blocks.forEach((block, index) => {
      if (!block) return;
      const uuid = this.blockUuids[index];
      if (uuid !== undefined) rememberBlockUuid(block, uuid);
      content.push(block);
      uuids.push(uuid ?? null);
    });
    this.blockUuids = [];
    return { content, uuids: uuids.some((uuid) => uuid !== null) ? uuids : undefined };
  }

  /**
   * A subagent's events go to its own transcript, never to this one: `--resume` restores the
   * parent's conversation, which holds only the Agent call and its answer.
   */
  private recordSubagent(report: SubagentEvent): void {
    const { event, agentId } = report;
    if (!report.transcriptPath) return;
    let writer = this.sidechains.get(agentId);
    if (!writer && event.type === "run_start") {
      mkdirSync(path.dirname(report.transcriptPath), { recursive: true, mode: DIR_MODE });
      writer = SessionWriter.create(report.transcriptPath, {
        type: "header",
        version: TRANSCRIPT_VERSION,
        sessionId: this.sessionId,
        cwd: event.cwd,
        createdAt: now(),
        sidechain: { agentId, agentType: report.agentType, parentToolUseId: report.toolUseId },
      });
      this.sidechains.set(agentId, writer);
    }
    if (!writer) return;
    writer.recordEvent(event);
    if (event.type === "run_end") {
      this.sidechains.delete(agentId);
      writer.close();
    }
  }

  /** fsync: what was appended survives an OS crash. (Nothing to do when nothing was appended since.) */
  sync(): void {
    this.syncPending = false;
    const failed = this.syncError;
    if (failed !== undefined) {
      this.syncError = undefined;
      throw failed;
    }
    if (this.fd === undefined || !this.unsynced) return;
    try {
      fsyncSync(this.fd);
      this.unsynced = false;
      this.syncNewDirectory();
    } catch (error) {
      throw new SessionWriteError(this.path, error);
    }
  }

  /**
   * fsync on the next turn of the event loop, unless something syncs before: the end of a run's
   * last turn is followed at once by run_end, whose sync then covers both (one disk round trip, not
   * two, before the answer's last line goes out). A turn followed by tool calls is synced while
   * they start. A failed sync is thrown by the next one (run_end's at the latest).
   */
  private syncSoon(): void {
    if (this.syncPending) return;
    this.syncPending = true;
    setImmediate(() => {
      if (!this.syncPending) return;
      try {
        this.sync();
      } catch (error) {
        this.syncError = error;
      }
    });
  }

  /** Syncs and closes. Safe to call twice. */
  close(): void {
    for (const writer of this.sidechains.values()) writer.close();
    this.sidechains.clear();
    if (this.fd === undefined) return;
    const fd = this.fd;
    try {
      // A run's transcript was just synced at run_end: a second fsync before the answer's last
      // line reaches stdout would only add a disk round trip.
      if (this.unsynced) fsyncSync(fd);
      this.syncNewDirectory();
    } finally {
      this.fd = undefined;
      closeSync(fd);
      this.lock.release();
    }
  }

  /** The directory entry of a transcript this writer created, made durable once (with its first sync). */
  private syncNewDirectory(): void {
    if (this.unsyncedDirectory === undefined) return;
    syncDirectory(this.unsyncedDirectory);
    this.unsyncedDirectory = undefined;
  }

  private writeLine(line: string): void {
    if (this.fd === undefined) throw new SessionWriteError(this.path, new Error("the transcript is closed"));
    try {
      this.unsynced = true;
      writeAll(this.fd, line);
    } catch (error) {
      throw new SessionWriteError(this.path, error);
    }
  }
}

function writeAll(fd: number, text: string): void {
  const buffer = Buffer.from(text, "utf8");
  let offset = 0;
  while (offset < buffer.length) offset += writeSync(fd, buffer, offset, buffer.length - offset);
}

/** True when the file is non-empty and does not end with a newline. */
function endsTorn(file: string): boolean {
  const fd = openSync(file, "r");
  try {
    const size = fstatSync(fd).size;
    if (size === 0) return false;
    const last = Buffer.alloc(1);
    readSync(fd, last, 0, 1, size - 1);
    return last[0] !== 0x0a;
  } finally {
    closeSync(fd);
  }
}

/** Makes a new directory entry durable (best effort: not every platform can fsync a directory). */
function syncDirectory(dir: string): void {
  try {
    const fd = openSync(dir, "r");
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {}
}

/** A command's exit status, from a tool's data that reports one (Bash). */
function exitCodeOf(data: Record<string, unknown> | undefined): { exitCode?: number | null } {
  if (!data || !("exitCode" in data)) return {};
  const code = data.exitCode;
  return typeof code === "number" || code === null ? { exitCode: code } : {};
}

function now(): string {
  return new Date().toISOString();
}
