import { createReadStream } from "node:fs";
import type { ConversationMessage } from "../engine/messages.js";
import { restoreUuids } from "./message-uuids.js";
import {
  type AssistantRecord,
  type HeaderRecord,
  type HistoryWarning,
  type RunEndRecord,
  rebuildHistory,
  type ToolResultRecord,
  TRANSCRIPT_VERSION,
  type TranscriptRecord,
  type UserRecord,
  validateRecord,
} from "./records.js";

export type TranscriptWarning = {
  /** 1-based line number, when the warning is about a line. */
  line?: number;
  /**
   * `torn`: the last line is incomplete (a crash while writing it) and was ignored.
   * `repaired`: a torn line from an earlier crash, already marked by a `repair` record.
   * `corrupt`: a line in the middle is not a valid record; it was skipped (the rest was kept).
   * `unknown`: a record type this version does not know; skipped.
   * `history`: the conversation needed repair (a tool call without result, an orphan result).
   */
  kind: "torn" | "repaired" | "corrupt" | "unknown" | "history";
  message: string;
};

export class TranscriptError extends Error {
  constructor(
    readonly file: string,
    reason: string,
  ) {
    super(`${file}: ${reason}`);
    this.name = "TranscriptError";
  }
}

export type LoadedTranscript = {
  header: HeaderRecord;
  /** The conversation, valid for the model API (every tool_use answered). */
  history: ConversationMessage[];
  /** Run summaries, oldest first. */
  runs: RunEndRecord[];
  warnings: TranscriptWarning[];
  /** Number of lines read, header included. */
  lines: number;
  /**
   * The conversation's user records, in order, each with its prompt's id where the record has one
   * (`UserRecord.userMessageId`; older transcripts have none): a resumed session matches them to
   * its history's prompts, to rewind their files.
   */
  userRecords?: { message: ConversationMessage; userMessageId?: string }[];
};

type Line = { number: number; text: string; terminated: boolean };

/** Streams a file line by line; the last line reports whether it ended with a newline. */
async function* readLines(file: string): AsyncGenerator<Line> {
  const stream = createReadStream(file, { encoding: "utf8", highWaterMark: 1 << 20 });
  let carry = "";
  let number = 0;
  for await (const chunk of stream as AsyncIterable<string>) {
    const text = carry + chunk;
    let start = 0;
    for (let newline = text.indexOf("\n", start); newline !== -1; newline = text.indexOf("\n", start)) {
      number += 1;
      yield { number, text: text.slice(start, newline), terminated: true };
      start = newline + 1;
    }
    carry = text.slice(start);
  }
  if (carry !== "") yield { number: number + 1, text: carry, terminated: false };
}

/**
 * Loads a transcript in one streaming pass (linear in its size). A torn last line is ignored with a
 * warning; corrupt lines in the middle are skipped and reported with their line numbers, never
 * silently. Throws `TranscriptError` when there is no valid header (nothing can be trusted then) or
 * the file was written by a newer format version.
 */
export async function loadTranscript(file: string): Promise<LoadedTranscript> {
  let header: HeaderRecord | undefined;
  const messages: (UserRecord | AssistantRecord | ToolResultRecord)[] = [];
  const runs: RunEndRecord[] = [];
  const warnings: TranscriptWarning[] = [];
  let userRecords: NonNullable<LoadedTranscript["userRecords"]> = [];
  let lines = 0;
  /** A corrupt line waiting to see whether a `repair` record follows it. */
  let suspect: TranscriptWarning | undefined;

  const flushSuspect = () => {
    if (suspect) warnings.push(suspect);
    suspect = undefined;
  };

  try {
    for await (const line of readLines(file)) {
      lines = line.number;
      if (line.text.trim() === "") {
        if (line.terminated) continue;
        break;
      }
      let parsed: unknown;
      let problem: string | undefined;
      try {
        parsed = JSON.parse(line.text);
      } catch (error) {
        problem = `not valid JSON (${(error as Error).message})`;
      }
      const checked = problem === undefined ? validateRecord(parsed) : { problem };
      if (!line.terminated) {
        if ("record" in checked && line.number > 1) {
          warnings.push({
            line: line.number,
            kind: "torn",
            message: "the last line has no newline but is complete; kept",
          });
        } else {
          flushSuspect();
          warnings.push({
            line: line.number,
            kind: "torn",
            message: "the last line is incomplete (cut short while being written) and was ignored",
          });
          break;
        }
      }
      if (line.number === 1) {
        if (!("record" in checked) || checked.record.type !== "header")
          throw new TranscriptError(file, "line 1 is not a transcript header");
        header = checked.record;
        if (header.version > TRANSCRIPT_VERSION)
          throw new TranscriptError(file, `written by a newer cairn (format version ${header.version})`);
        continue;
      }
      if ("problem" in checked) {
        flushSuspect();
        suspect = {
          line: line.number,
          kind: "corrupt",
          message: `line ${line.number} skipped: ${checked.problem}`,
        };
        continue;
      }
      if ("unknownType" in checked) {
        flushSuspect();
        warnings.push({
          line: line.number,
          kind: "unknown",
          message: `unknown record type ${checked.unknownType} skipped`,
        });
        continue;
      }
      const record: TranscriptRecord = checked.record;
      if (record.type === "repair") {
        if (suspect) {
          warnings.push({
            line: suspect.line,
            kind: "repaired",
            message: `line ${suspect.line} was cut short by an earlier crash and is ignored`,
          });
          suspect = undefined;
        }
        continue;
      }
      flushSuspect();
      if (record.type === "header") {
        warnings.push({
          line: line.number,
          kind: "corrupt",
          message: `line ${line.number} skipped: a second header`,
        });
        continue;
      }
      if (record.type === "run_end") runs.push(record);
      else if (record.type === "compact_boundary" || record.type === "rewind") {
        // What came before was summarised (or rewound): the history starts again from the messages kept.
        messages.length = 0;
        userRecords = [];
        record.messages.forEach((message, index) => {
          restoreUuids(message, record.uuids?.[index]);
          messages.push(asRecord(message, record.ts));
          const id = record.type === "rewind" ? record.promptIds?.[index] : undefined;
          if (message.role === "user")
            userRecords.push({ message, ...(typeof id === "string" ? { userMessageId: id } : {}) });
        });
      } else if (record.type !== "hook") {
        if (record.type === "assistant") restoreUuids(record.message, record.uuids);
        if (record.type === "user")
          userRecords.push({
            message: record.message,
            ...(typeof record.userMessageId === "string" ? { userMessageId: record.userMessageId } : {}),
          });
        messages.push(record); // hook records are not conversation
      }
    }
  } catch (error) {
    if (error instanceof TranscriptError) throw error;
    throw new TranscriptError(file, `cannot be read (${(error as Error).message})`);
  }
  flushSuspect();
  if (!header) throw new TranscriptError(file, "the transcript is empty (no header)");
  const historyWarnings: HistoryWarning[] = [];
  const history = rebuildHistory(messages, historyWarnings);
  for (const warning of historyWarnings) warnings.push({ kind: "history", message: warning.message });
  return { header, history, runs, warnings, lines, userRecords };
}

function asRecord(message: ConversationMessage, ts: string): UserRecord | AssistantRecord {
  return message.role === "user" ? { type: "user", ts, message } : { type: "assistant", ts, message };
}

export type TranscriptSummary = {
  header: HeaderRecord;
  firstPrompt?: string;
  /** User prompts (runs started). */
  prompts: number;
  /** Model turns (assistant messages). */
  turns: number;
};

/**
 * A cheap pass for listings: classifies lines by their leading `{"type":"…"` without parsing them,
 * parsing only the header and the first prompt.
 */
export async function summarizeTranscript(file: string): Promise<TranscriptSummary | undefined> {
  let header: HeaderRecord | undefined;
  let firstPrompt: string | undefined;
  let prompts = 0;
  let turns = 0;
  try {
    for await (const line of readLines(file)) {
      if (!line.terminated) break;
      if (line.number === 1) {
        try {
          const checked = validateRecord(JSON.parse(line.text));
          if ("record" in checked && checked.record.type === "header") header = checked.record;
        } catch {}
        if (!header) return undefined;
        continue;
      }
      if (line.text.startsWith('{"type":"assistant"')) turns += 1;
      else if (line.text.startsWith('{"type":"user"') && line.text.includes('"prompt":true')) {
        prompts += 1;
        if (firstPrompt === undefined) {
          try {
            const record = JSON.parse(line.text) as UserRecord;
            const content = record.message.content;
            firstPrompt =
              typeof content === "string"
                ? content
                : content
                    .filter((block) => block.type === "text")
                    .map((block) => (block as { text: string }).text)
                    .join(" ");
          } catch {}
        }
      }
    }
  } catch {
    return undefined;
  }
  if (!header) return undefined;
  return { header, ...(firstPrompt !== undefined ? { firstPrompt } : {}), prompts, turns };
}
