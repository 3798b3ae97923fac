import { closeSync, openSync, readSync } from "node:fs";

/** Larger than any configuration or scenario file: a mistake (`--mcp-config /dev/zero`), not input. */
export const MAX_CONFIG_BYTES = 16 * 1024 * 1024;

/**
 * A file named by the user, read as UTF-8 text, but never more than `maxBytes`: a device or a huge
 * file would otherwise fill memory before any check ran. Read in pieces, so a pipe
 * (`--mcp-config <(…)`) works like a file. Throws the file system's error, or one saying it is
 * too large.
 */
export function readCappedText(file: string, maxBytes = MAX_CONFIG_BYTES): string {
  const fd = openSync(file, "r");
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(1024 * 1024, maxBytes + 1 - total));
      const read = readSync(fd, chunk, 0, chunk.length, null);
      if (read === 0) break;
      chunks.push(chunk.subarray(0, read));
      total += read;
      if (total > maxBytes) throw new Error(`larger than ${maxBytes / 1024 / 1024} MiB`);
    }
    return Buffer.concat(chunks, total).toString("utf8");
  } finally {
    closeSync(fd);
  }
}
