import { SessionNotFoundError } from "../sessions/store.js";
import { migrate, openPool } from "./database.js";
import { PgTranscriptStore } from "./pg-transcript-store.js";

/** A connected `PgTranscriptStore` (database-transcripts.ts loads this module on first use). */
export type OpenedDatabaseStore = {
  store: PgTranscriptStore;
  /** The session an id names: an agent id (`bc-…`) its conversation's, any other id itself. */
  sessionIdOf(id: string): Promise<string>;
  close(): Promise<void>;
};

/**
 * Connects to a `cairn serve` database (creating cairn's tables where they are missing, as `cairn
 * serve` does) and opens its sessions; `cacheHome` holds the local copy the store reads and writes.
 * A database that cannot be reached fails with one line naming it (without its password).
 */
export async function openDatabaseStore(
  databaseUrl: string,
  cacheHome: string,
): Promise<OpenedDatabaseStore> {
  const pool = await openPool(databaseUrl, 3);
  try {
    await migrate(pool);
  } catch (error) {
    await pool.end().catch(() => {});
    throw new Error(`cannot use the database ${described(databaseUrl)}: ${(error as Error).message}`);
  }
  return {
    store: new PgTranscriptStore(pool, cacheHome),
    async sessionIdOf(id) {
      if (!id.startsWith("bc-")) return id;
      const row = (await pool.query("SELECT session_id FROM cairn.agents WHERE id = $1", [id])).rows[0];
      if (!row) throw new SessionNotFoundError(id, "the database", "no agent of that id");
      return row.session_id as string;
    },
    close: () => pool.end(),
  };
}

/** The database's host and name, as an error names it: never its user's password. */
function described(databaseUrl: string): string {
  try {
    const url = new URL(databaseUrl);
    return `${url.host}${url.pathname}`;
  } catch {
    return "(its URL does not parse)";
  }
}
