import { defaultTranscriptStore } from "../sessions/open-session.js";
import { buildReportData } from "./build-report-data.js";
import { renderPage } from "./page.js";
import {
  parseTranscript,
  ReportInputError,
  readSessionFile,
  type SessionTranscripts,
} from "./read-transcript.js";
import type { ReportData } from "./report-data.js";

/** Where the session to report on comes from. */
export type ReportSource =
  /** A transcript file (its subagents' transcripts beside it are read too). */
  | { file: string }
  /** A session id, found in the session store (this directory's sessions first, then all). */
  | { sessionId: string; cwd?: string; env?: NodeJS.ProcessEnv }
  /** Transcript text (JSONL), e.g. read from stdin; subagents' transcripts are not available. */
  | { jsonl: string };

export type ReportOptions = {
  /** Leave out file contents (Write and Edit inputs, diffs, tool results) and command output. */
  redact?: boolean;
  /** The most characters of one text (a tool's output, an input, a summary) kept; default 10,000. */
  maxTextChars?: number;
  /**
   * The most characters of all tool results together (default 8,000,000): past it, each result is
   * cut shorter (never under 1,000 characters), so a big session's page opens fast.
   */
  maxOutputChars?: number;
};

export const DEFAULT_MAX_TEXT_CHARS = 10_000;
export const DEFAULT_MAX_OUTPUT_CHARS = 8_000_000;

/** Reads a session and returns its report: one self-contained HTML page. */
export async function renderReport(source: ReportSource, options: ReportOptions = {}): Promise<string> {
  return renderPage(await reportData(source, options));
}

/** The data a report embeds (what `renderReport` renders). */
export async function reportData(source: ReportSource, options: ReportOptions = {}): Promise<ReportData> {
  const cap = options.maxTextChars ?? DEFAULT_MAX_TEXT_CHARS;
  if (!Number.isInteger(cap) || cap < 100)
    throw new ReportInputError(`maxTextChars must be a whole number of at least 100 (got ${cap})`);
  const budget = options.maxOutputChars ?? DEFAULT_MAX_OUTPUT_CHARS;
  if (!Number.isInteger(budget) || budget < 1000)
    throw new ReportInputError(`maxOutputChars must be a whole number of at least 1000 (got ${budget})`);
  return buildReportData(await readSource(source), {
    redact: options.redact === true,
    capChars: cap,
    outputBudgetChars: budget,
  });
}

async function readSource(source: ReportSource): Promise<SessionTranscripts> {
  if ("jsonl" in source)
    return { main: parseTranscript(source.jsonl, "the transcript"), subagents: new Map() };
  if ("file" in source) return readSessionFile(source.file);
  // The store of `env`'s CAIRN_HOME (the SDK's renderReport gives the process's when none is given).
  if (!source.env)
    throw new ReportInputError("a report by session id needs the environment whose CAIRN_HOME holds it");
  const store = defaultTranscriptStore(source.env);
  let file: string;
  try {
    file = await store.find(source.sessionId, source.cwd ?? process.cwd());
  } catch (error) {
    throw new ReportInputError((error as Error).message);
  }
  return readSessionFile(file);
}

export { ReportInputError };
