/** Below this, a body is encoded as any string is (Node's shared pool: no allocation of its own). */
const POOLED_BELOW = 32 * 1024;
/** The smallest buffer kept for the next request. */
const SMALLEST = 128 * 1024;

/** A request body's bytes, and what to call once the socket is done with them. */
export type EncodedBody = { bytes: Uint8Array; release: () => void };

let spare: Buffer | undefined;

/**
 * Encodes a request body (the JSON of a model request) into a buffer that the next request reuses,
 * instead of a new one each time. A model request carries the whole conversation, so in a long
 * session each turn encoded hundreds of kilobytes afresh; glibc's malloc keeps such freed blocks
 * (its threshold for giving large blocks back to the system rises to the largest one freed, and
 * the CLI frees megabytes as it starts), so a long interactive session's resident memory grew by
 * megabytes it no longer used (docs/performance.md, "The interactive mode"). One buffer, grown by
 * doubling when a body outgrows it, is encoded into while no other request is using it; a request
 * sent while another is still being written gets a buffer of its own, as before.
 */
export function encodeBody(text: string): EncodedBody {
  if (text.length < POOLED_BELOW / 3) return { bytes: Buffer.from(text), release: () => undefined };
  const size = Buffer.byteLength(text);
  let buffer = spare;
  if (buffer !== undefined && buffer.length >= size) {
    spare = undefined;
  } else {
    let capacity = Math.max(SMALLEST, buffer?.length ?? 0);
    while (capacity < size) capacity *= 2;
    buffer = Buffer.allocUnsafeSlow(capacity);
  }
  const kept = buffer;
  kept.write(text, 0, size, "utf8");
  return {
    bytes: kept.subarray(0, size),
    release: () => {
      if (spare === undefined || spare.length < kept.length) spare = kept;
    },
  };
}
