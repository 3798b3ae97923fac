/**
 * Telling a database that is away (stopped, restarting, unreachable) from an error of the query
 * itself, as DBOS tells them for its own queries (system_database.js, `retriablePostgresException`):
 * SQLSTATE classes 08 (connection), 53 (insufficient resources) and 57 (operator intervention:
 * admin_shutdown, cannot_connect_now) but 57014 (a cancelled query), the socket errors of a refused
 * or dropped connection, and pg's messages for them.
 */
const NODE_CODES = new Set([
  "ECONNRESET",
  "ECONNREFUSED",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ETIMEDOUT",
  "EPIPE",
]);
const MESSAGES = [
  "connection terminated",
  "connection timeout",
  "timeout exceeded when trying to connect",
  "server closed the connection",
  "client has encountered a connection error",
  "not queryable",
  "econnrefused",
];

export function isDatabaseUnavailable(error: unknown): boolean {
  for (let e = error as { code?: unknown; message?: unknown; cause?: unknown } | undefined; e; ) {
    const code = typeof e.code === "string" ? e.code : "";
    if (code.length === 5 && ["08", "53", "57"].includes(code.slice(0, 2)) && code !== "57014") return true;
    if (NODE_CODES.has(code)) return true;
    const message = typeof e.message === "string" ? e.message.toLowerCase() : "";
    if (MESSAGES.some((text) => message.includes(text))) return true;
    e = e.cause as typeof e;
  }
  return false;
}

/** The longest wait between two attempts while the database is away. */
const MAX_BACKOFF_MS = 2000;

/**
 * Runs a database operation of a run, again and again while the database is away, until it is back:
 * the run pauses, then continues where it was (every operation passed here is idempotent). Any other
 * error is thrown at once.
 */
export async function whileDatabaseAway<T>(operation: () => Promise<T>): Promise<T> {
  let backoff = 100;
  while (true) {
    try {
      return await operation();
    } catch (error) {
      if (!isDatabaseUnavailable(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, backoff));
      backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
    }
  }
}
