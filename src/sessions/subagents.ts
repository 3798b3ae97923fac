import path from "node:path";
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
