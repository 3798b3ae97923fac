import { realpathSync } from "node:fs";
import path from "node:path";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";

/**
 * Where the JSONL store keeps things: `$CAIRN_HOME/sessions/<workspace-key>/<session-id>.jsonl`,
 * one file per session, grouped by working directory, and beside it `<id>.meta.json` (title, tag,
 * archived), `<id>.checkpoints/` (file checkpoints) and `<id>/subagents/agent-<agentId>.jsonl`
 * (subagent transcripts). Only the JSONL store (store.ts) and its writer use these names; everything
 * else asks the `TranscriptStore` (transcript-store.ts).
 *
 * The workspace key is readable and collision-free: the tail of the absolute path with unsafe
 * characters replaced, plus a hash of the full path (`/work/app` → `work-app-3f2a9c1d0b7e`).
 */

export const SESSIONS_DIR = "sessions";
export const TRANSCRIPT_EXTENSION = ".jsonl";

/** The directory name for a working directory. */
export function workspaceKey(cwd: string): string {
  const absolute = canonicalCwd(cwd);
  const readable =
    absolute
      .replace(/[^A-Za-z0-9._-]+/g, "-")
      .replace(/^[-.]+|-+$/g, "")
      .slice(-60)
      .replace(/^[-.]+/, "") || "root";
  // SHA-256 (the key of every existing transcript directory) without node:crypto (src/util/random-id.ts says why).
  const hash = bytesToHex(sha256(Buffer.from(absolute, "utf8"))).slice(0, 12);
  return `${readable}-${hash}`;
}

/** The working directory as headers record it: absolute, symbolic links resolved when it exists. */
export function canonicalCwd(cwd: string): string {
  const absolute = path.resolve(cwd);
  try {
    return realpathSync.native(absolute);
  } catch {
    return absolute;
  }
}

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

/** The title, tag and archived flag beside a transcript (the transcript itself is append-only). */
export function metaPath(transcript: string): string {
  return `${transcript.slice(0, -TRANSCRIPT_EXTENSION.length)}.meta.json`;
}

/** The file checkpoints beside a transcript. */
export function checkpointsDir(transcript: string): string {
  return `${transcript.slice(0, -TRANSCRIPT_EXTENSION.length)}.checkpoints`;
}
