import path from "node:path";
import { compareCodeUnits } from "../util/compare.js";
import { readdir, stat } from "../util/fs-async.js";
import { TRANSCRIPT_EXTENSION } from "./store.js";

/**
 * A subagent's transcript (its sidechain): `<session>/subagents/agent-<agentId>.jsonl` next to the
 * session's own `<session>.jsonl`, as in the convention. The session's transcript holds only the
 * Agent call and its answer, so a resumed session does not replay what the subagent saw.
 */
export function subagentTranscriptPath(sessionTranscript: string, agentId: string): string {
  const dir = path.dirname(sessionTranscript);
  const session = path.basename(sessionTranscript, TRANSCRIPT_EXTENSION);
  return path.join(dir, session, "subagents", `agent-${agentId}${TRANSCRIPT_EXTENSION}`);
}

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
