import type { IncomingMessage, ServerResponse } from "node:http";

/** An error answered as JSON with its status: `{ "error": { code, message } }`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Extra response headers (a 429's `Retry-After`). */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export const notFound = (path: string) => new ApiError(404, "not_found", `No such resource: ${path}`);
export const methodNotAllowed = (method: string, path: string) =>
  new ApiError(405, "method_not_allowed", `${method} is not allowed on ${path}`);

export function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    ...headers,
  });
  response.end(text);
}

const MAX_BODY = 20 * 1024 * 1024;

export async function readJson(request: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new ApiError(413, "payload_too_large", "The request body is too large.");
    chunks.push(chunk as Buffer);
  }
  try {
    const parsed = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) return parsed;
  } catch {}
  throw new ApiError(400, "invalid_request", "The request body must be a JSON object.");
}

/** An optional string field of a body, or a 400 naming it. */
export function optionalString(value: unknown, name: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string" || value === "")
    throw new ApiError(400, "invalid_request", `${name} must be a non-empty string.`);
  return value;
}
