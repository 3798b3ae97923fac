import path from "node:path";
import type { FileHandle } from "../util/fs-async.js";

/** Extensions of formats that are binary even when their first bytes happen to hold no NUL. */
const BINARY_EXTENSIONS = new Set(
  (
    "png jpg jpeg gif bmp ico webp tif tiff psd heic avif pdf " +
    "zip gz tgz bz2 xz zst 7z rar tar jar war ear apk dmg iso " +
    "exe dll so dylib bin o a obj lib class pyc pyo wasm node " +
    "mp3 mp4 m4a wav flac ogg oga opus mov avi mkv webm " +
    "woff woff2 ttf otf eot sqlite sqlite3 db parquet"
  ).split(" "),
);

/** How much of a file is sniffed for NUL bytes, as git and most tools do. */
export const SNIFF_BYTES = 8192;

export function hasBinaryExtension(filePath: string): boolean {
  return BINARY_EXTENSIONS.has(path.extname(filePath).slice(1).toLowerCase());
}

/** A NUL byte in the first 8 KB means binary: text encodings the tools handle never contain one. */
export function looksBinary(bytes: Uint8Array): boolean {
  return bytes.subarray(0, SNIFF_BYTES).includes(0);
}

export async function sniffIsBinary(handle: FileHandle): Promise<boolean> {
  const buffer = Buffer.alloc(SNIFF_BYTES);
  const { bytesRead } = await handle.read(buffer, 0, SNIFF_BYTES, 0);
  return looksBinary(buffer.subarray(0, bytesRead));
}
