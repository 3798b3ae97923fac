import path from "node:path";
import { compareCodeUnits } from "../util/compare.js";
import { readdir, stat } from "../util/fs-async.js";
import { subagentTranscriptPath, TRANSCRIPT_EXTENSION } from "./jsonl-layout.js";

const SUBAGENT_FILE = new RegExp(`^agent-(.+)${TRANSCRIPT_EXTENSION.replace(".", "\\.")}$`);

/** The agent ids of the subagent transcripts beside a session's transcript, oldest first. */
export async function subagentIds(sessionTranscript: string): Promise<string[]> {
  const dir = path.dirname(subagentTranscriptPath(sessionTranscript, "x"));
  const names = await readdir(dir).catch(() => [] as string[]);
  const found = await Promise.all(
    names.flatMap((name) => {
      const id = SUBAGENT_FILE.exec(name)?.[1];
      return id
        ? [stat(path.join(dir, name)).then((info) => ({ id, born: info.birthtimeMs || info.mtimeMs }))]
        : [];
    }),
  );
  return found.sort((a, b) => a.born - b.born || compareCodeUnits(a.id, b.id)).map((entry) => entry.id);
}
