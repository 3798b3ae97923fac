import { resolve } from "node:path";
import type { SessionSummary } from "../sessions/transcript-store.js";
import { UsageError } from "../util/exit-codes.js";

/**
 * `cairn ls [--json] [--workspace <dir>]`: the sessions recorded for a directory, newest first —
 * id, last write, turns and first prompt — so a user can pick one for `--resume <id>`.
 */
export async function runList(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  let json = false;
  let dir = process.cwd();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--json") json = true;
    else if (arg === "--workspace" && args[i + 1] !== undefined) dir = resolve(args[++i]!);
    else throw new UsageError(`cairn ls takes --json and --workspace <dir>, not ${arg}`);
  }
  const { defaultTranscriptStore } = await import("../sessions/open-session.js");
  const sessions = await defaultTranscriptStore(env).list(dir);
  if (json) {
    process.stdout.write(`${JSON.stringify(sessions.map(listed))}\n`);
    return 0;
  }
  if (sessions.length === 0) {
    process.stdout.write(`No sessions recorded for ${dir}.\n`);
    return 0;
  }
  const rows = sessions.map((s) => {
    const prompt = (s.firstPrompt ?? "").replace(/\s+/g, " ");
    const shown = prompt.length > 60 ? `${prompt.slice(0, 59)}…` : prompt;
    return `${s.sessionId}  ${s.updatedAt.slice(0, 19).replace("T", " ")}  ${String(s.turns).padStart(5)}  ${shown}`;
  });
  process.stdout.write(
    `${"SESSION".padEnd(36)}  ${"LAST WRITE (UTC)".padEnd(19)}  TURNS  FIRST PROMPT\n${rows.join("\n")}\n`,
  );
  return 0;
}

/** A session as `--json` lists it (its location under the name `path`; no metadata). */
function listed(summary: SessionSummary): Record<string, unknown> {
  const { meta: _meta, location, ...rest } = summary;
  const { sessionId, cwd, ...after } = rest;
  return { sessionId, cwd, path: location, ...after };
}
