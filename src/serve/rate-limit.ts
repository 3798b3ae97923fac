import type { Context } from "./agent-records.js";
import type { ApiKey } from "./api-keys.js";
import { ApiError } from "./http-json.js";

/** The rate limit's window: requests are counted per key and per calendar minute. */
const WINDOW_SECONDS = 60;

/**
 * Counts a request of `account` against `--rate-limit` (requests per minute per key); past it, a
 * 429 with `Retry-After` (seconds until the window ends), as the reference answers. The count is
 * kept in the database, so every `cairn serve` process of a deployment shares it.
 */
export async function countRequest(context: Context, account: ApiKey): Promise<void> {
  const limit = context.options.rateLimit;
  if (limit <= 0) return;
  const result = await context.pool.query(
    `INSERT INTO cairn.rate_windows (key_hash, window_start, count)
     VALUES ($1, to_timestamp(floor(extract(epoch FROM now()) / $2) * $2), 1)
     ON CONFLICT (key_hash, window_start) DO UPDATE SET count = cairn.rate_windows.count + 1
     RETURNING count, extract(epoch FROM window_start)::float8 + $2 - extract(epoch FROM now())::float8 AS left_s`,
    [account.hash, WINDOW_SECONDS],
  );
  const { count, left_s: left } = result.rows[0] as { count: number; left_s: number };
  if (count === 1) {
    // A key's first request of a window clears its older windows (they count for nothing now).
    await context.pool.query(
      "DELETE FROM cairn.rate_windows WHERE key_hash = $1 AND window_start < now() - make_interval(secs => $2)",
      [account.hash, WINDOW_SECONDS],
    );
  }
  if (count > limit) {
    const retryAfter = Math.max(1, Math.ceil(left));
    throw new ApiError(
      429,
      "rate_limited",
      `Rate limit exceeded: ${limit} requests a minute for this key. Retry after ${retryAfter} s.`,
      { "retry-after": String(retryAfter) },
    );
  }
}
