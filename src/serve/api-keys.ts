import { createHash, randomBytes } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { Pool } from "pg";

/** Keys are stored as their SHA-256: the database never holds a usable key. */
export const hashKey = (key: string): string => createHash("sha256").update(key).digest("hex");

/** Issues a new key under `name`; the key itself is shown once, here. */
export async function createApiKey(pool: Pool, name: string): Promise<string> {
  const key = `cairn_${randomBytes(24).toString("base64url")}`;
  await pool.query("INSERT INTO cairn.api_keys (key_hash, name) VALUES ($1, $2)", [hashKey(key), name]);
  return key;
}

export type ApiKey = { hash: string; name: string; createdAt: Date };

/**
 * The key a request carries, as the reference's clients send it: the key as the HTTP Basic user
 * name (an empty password), or as a Bearer token.
 */
export function presentedKey(request: IncomingMessage): string | undefined {
  const header = request.headers.authorization;
  if (!header) return undefined;
  const [scheme, value] = header.split(/\s+/, 2);
  if (!value) return undefined;
  if (scheme?.toLowerCase() === "bearer") return value;
  if (scheme?.toLowerCase() === "basic") {
    const decoded = Buffer.from(value, "base64").toString("utf8");
    const colon = decoded.indexOf(":");
    return colon === -1 ? decoded : decoded.slice(0, colon);
  }
  return undefined;
}

export async function findApiKey(pool: Pool, key: string): Promise<ApiKey | undefined> {
  const result = await pool.query(
    "SELECT key_hash, name, created_at FROM cairn.api_keys WHERE key_hash = $1",
    [hashKey(key)],
  );
  const row = result.rows[0];
  return row ? { hash: row.key_hash, name: row.name, createdAt: row.created_at } : undefined;
}
