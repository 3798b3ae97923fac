import { SUMMARY_INSTRUCTIONS } from "../../src/engine/compaction.js";
import { estimateTokens, type RecordedRequest, reply, type StepInput } from "../../src/testing/index.js";

/** The window the long sessions run against, on the server and in cairn. */
export const WINDOW = 32_768;
export const READS = 300;

/** 40 KB per file: 500 lines of 80 characters, each naming its file, so a request shows which it holds. */
export function sessionFiles(count = READS): Record<string, string> {
  const files: Record<string, string> = {};
  for (let n = 1; n <= count; n++) {
    const line = `file ${String(n).padStart(3, "0")} `;
    files[`f${n}.txt`] = Array.from({ length: 500 }, (_, i) => `${line}line ${i}`.padEnd(79, ".")).join("\n");
  }
  return files;
}

/** Whether a request is cairn's summary request (it ends with the summary instructions). */
export function isSummaryRequest(request: RecordedRequest): boolean {
  const messages = (request.body as { messages?: { content: unknown }[] }).messages ?? [];
  return JSON.stringify(messages.at(-1)?.content ?? "").includes(
    JSON.stringify(SUMMARY_INSTRUCTIONS).slice(1, 60),
  );
}

/**
 * The model's side of a session of `reads` Read calls: each call reads the next file; a summary
 * request is answered with a summary naming the last file read; then the final answer.
 */
export function longSessionModel(reads = READS): (request: RecordedRequest) => StepInput {
  let read = 0;
  return (request) => {
    if (isSummaryRequest(request))
      return reply().text(`Goal: read ${reads} files. Read so far: f1.txt to f${read}.txt.`);
    read += 1;
    if (read <= reads) return reply().tool("Read", { file_path: `f${read}.txt` });
    return reply().text(`All ${reads} files read.`);
  };
}

/** The largest request the server received, in its own token estimate. */
export function largestRequest(requests: readonly RecordedRequest[]): number {
  return Math.max(...requests.map((request) => estimateTokens(request.body)));
}
