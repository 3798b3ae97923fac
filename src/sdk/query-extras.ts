import { resolve } from "node:path";
import { readFile, stat } from "../util/fs-async.js";
import type { SDKControlReadFileResponse } from "./control-types.js";

/**
 * Helpers of the `Query` methods that have little meaning in-process (docs/sdk.md, "The `Query`
 * object"): kept here so query.ts holds the run itself.
 */

const warned = new Set<string>();

/** A method accepted and not applied: a process warning, once per method and process. */
export function notApplied(method: string, reason: string): void {
  if (warned.has(method)) return;
  warned.add(method);
  process.emitWarning(`cairn Query.${method}() has no effect: ${reason}`, {
    code: "CAIRN_SDK_METHOD_NOT_APPLIED",
    detail: 'See docs/sdk.md, "The Query object".',
  });
}

/** `Query.readFile()`: a file read for the host (not through the agent's permissions); `null` if it cannot be. */
export async function readWorkspaceFile(
  cwd: string,
  path: string,
  options: { maxBytes?: number; encoding?: "utf-8" | "base64" } = {},
): Promise<SDKControlReadFileResponse | null> {
  const absPath = resolve(cwd, path);
  try {
    const info = await stat(absPath);
    if (!info.isFile()) return null;
    const bytes = await readFile(absPath);
    const limit = options.maxBytes ?? bytes.length;
    const kept = bytes.subarray(0, limit);
    const encoding = options.encoding ?? "utf-8";
    return {
      contents: kept.toString(encoding === "base64" ? "base64" : "utf8"),
      absPath,
      ...(kept.length < bytes.length ? { truncated: true } : {}),
      encoding,
    };
  } catch {
    return null;
  }
}
