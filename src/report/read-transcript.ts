import { subagentTranscriptPath } from "../sessions/jsonl-layout.js";
import { type HeaderRecord, type TranscriptRecord, validateRecord } from "../sessions/records.js";
import { subagentIds } from "../sessions/subagents.js";
import { readFile } from "../util/fs-async.js";

/** Every record of one transcript, in file order, with what could not be read. */
export type TranscriptLines = {
  header: HeaderRecord;
  records: TranscriptRecord[];
  /** Lines skipped (corrupt, torn, unknown type), as sentences for the report's notes. */
  skipped: string[];
};

/** A session's transcript and its subagents' transcripts (by the Agent call that started each). */
export type SessionTranscripts = {
  main: TranscriptLines;
  /** Subagent transcripts, keyed by the parent's tool_use id. */
  subagents: Map<string, TranscriptLines>;
};

/**
 * Parses transcript text (JSONL). Unlike `loadTranscript`, which rebuilds the conversation a resume
 * continues from, a report wants every record: the turns before a compaction, hooks, run ends.
 */
export function parseTranscript(text: string, source: string): TranscriptLines {
  const lines = text.split("\n");
  let header: HeaderRecord | undefined;
  const records: TranscriptRecord[] = [];
  const skipped: string[] = [];
  lines.forEach((line, index) => {
    if (line.trim() === "") return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      skipped.push(`line ${index + 1} is not valid JSON (cut short by a crash?) and was skipped`);
      return;
    }
    const checked = validateRecord(parsed);
    if ("problem" in checked) skipped.push(`line ${index + 1} skipped: ${checked.problem}`);
    else if ("unknownType" in checked)
      skipped.push(`line ${index + 1}: record type ${checked.unknownType} is not shown`);
    else if (checked.record.type === "header") {
      if (header) skipped.push(`line ${index + 1} skipped: a second header`);
      else header = checked.record;
    } else records.push(checked.record);
  });
  if (!header) throw new ReportInputError(`${source} is not a cairn transcript (no header line)`);
  return { header, records, skipped };
}

/** The transcript file and the subagent transcripts beside it. */
export async function readSessionFile(file: string): Promise<SessionTranscripts> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new ReportInputError(`cannot read ${file}: ${(error as Error).message}`);
  }
  const main = parseTranscript(text, file);
  const subagents = new Map<string, TranscriptLines>();
  for (const agentId of await subagentIds(file)) {
    const agentFile = subagentTranscriptPath(file, agentId);
    try {
      const lines = parseTranscript(await readFile(agentFile, "utf8"), agentFile);
      const parent = lines.header.sidechain?.parentToolUseId;
      if (parent) subagents.set(parent, lines);
    } catch (error) {
      main.skipped.push(`subagent transcript ${agentFile} could not be read: ${(error as Error).message}`);
    }
  }
  return { main, subagents };
}

/** A transcript that cannot be reported on: exit 1 with this one line. */
export class ReportInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ReportInputError";
  }
}
