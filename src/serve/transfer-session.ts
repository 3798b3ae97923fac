import { migrate, openPool } from "../durable/database.js";
import { PgTranscriptStore } from "../durable/pg-transcript-store.js";
import { resolveCairnHome } from "../permissions/home.js";
import { JsonlTranscriptStore } from "../sessions/store.js";

/**
 * `cairn serve export <id>` and `cairn serve import <id>`: a session between the database and the
 * local JSONL store of `$CAIRN_HOME` (docs/serve.md, "Transcripts"). An agent id (`bc-…`) names its
 * conversation's session. What is printed: the exported transcript's path, or the count of lines
 * imported.
 */
export async function transferSession(
  direction: "export" | "import",
  id: string,
  databaseUrl: string,
  env: NodeJS.ProcessEnv,
): Promise<string> {
  const pool = await openPool(databaseUrl, 3);
  try {
    await migrate(pool);
    const agent = id.startsWith("bc-")
      ? (await pool.query("SELECT session_id FROM cairn.agents WHERE id = $1", [id])).rows[0]
      : undefined;
    if (id.startsWith("bc-") && !agent) throw new Error(`no agent ${id} in the database`);
    const sessionId = (agent?.session_id as string | undefined) ?? id;
    const home = resolveCairnHome(env);
    const store = new PgTranscriptStore(pool, home);
    if (direction === "export") return await store.exportSession(sessionId);
    const file = await new JsonlTranscriptStore({ cairnHome: home }).find(sessionId);
    const imported = await store.importSession(sessionId, file);
    return `${imported} lines of session ${sessionId} imported`;
  } finally {
    await pool.end();
  }
}
