/**
 * Random identifiers (session ids, run tags, temporary file names) without loading `node:crypto`:
 * its first load costs a few milliseconds of every CLI run's start-up (docs/performance.md). The
 * bytes come from the kernel's CSPRNG, as `crypto.randomUUID()`'s do: read from /dev/urandom a few
 * kilobytes at a time. Where there is no /dev/urandom (Windows), `node:crypto` is loaded after all.
 */
import { closeSync, openSync, readSync } from "node:fs";
import { createRequire } from "node:module";

const POOL_BYTES = 4096;
let pool: Buffer | undefined;
let used = POOL_BYTES;
let urandom = process.platform !== "win32";

function randomBytes(count: number): Buffer {
  if (urandom && used + count > POOL_BYTES) {
    try {
      const fd = openSync("/dev/urandom", "r");
      try {
        pool ??= Buffer.allocUnsafe(POOL_BYTES);
        let filled = 0;
        while (filled < POOL_BYTES) filled += readSync(fd, pool, filled, POOL_BYTES - filled, null);
        used = 0;
      } finally {
        closeSync(fd);
      }
    } catch {
      urandom = false;
    }
  }
  if (!urandom || !pool) {
    const crypto = createRequire(import.meta.url)("node:crypto") as typeof import("node:crypto");
    return crypto.randomBytes(count);
  }
  // A copy: the pool's bytes are never handed out twice.
  const bytes = Buffer.from(pool.subarray(used, used + count));
  used += count;
  return bytes;
}

/** An RFC 4122 version 4 UUID, as `crypto.randomUUID()` returns. */
export function randomUuid(): string {
  const bytes = randomBytes(16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** `count` random bytes as hexadecimal. */
export function randomHex(count: number): string {
  return randomBytes(count).toString("hex");
}
