import { chunkText, type ReplyStep } from "../providers/scenario.js";

/**
 * The wire APIs the scripted model server speaks: Anthropic Messages, OpenAI Chat Completions and
 * OpenAI Responses. Each `ScriptedWire` owns its path, its rendering and its error shape, while the
 * server keeps routing, the step cursor, recording and the faults.
 */
export type ScriptedWireName = "anthropic-messages" | "openai-chat" | "openai-responses";

/** What a wire needs to know to render one reply step for one request. */
export type ReplyContext = {
  /** 0-based position of the step in the scenario. */
  stepIndex: number;
  /** 1-based count of replies this server has rendered so far, including this one. */
  replyNumber: number;
  chunkSize: number;
  model: string;
  requestId: string;
};

/** One stream event as written on the wire, whole. `delta` marks content deltas (`delayPerEventMs`). */
export type WireFrame = { text: string; delta: boolean };

export interface ScriptedWire {
  readonly name: ScriptedWireName;
  /** The POST path this wire answers (e.g. "/v1/messages"). */
  readonly path: string;
  /** Response header carrying the request id (e.g. "request-id"). */
  readonly requestIdHeader: string;
  readonly streamContentType: string;
  /** A message when the JSON body is not a request of this wire (answered 400; no step consumed). */
  checkRequest(body: unknown): string | undefined;
  isStreaming(body: unknown): boolean;
  /** The stream of a reply, one frame per event. */
  streamFrames(step: ReplyStep, body: unknown, context: ReplyContext): WireFrame[];
  /** The complete (non-streaming) response body of a reply. */
  jsonResponse(step: ReplyStep, body: unknown, context: ReplyContext): unknown;
  /** The JSON error body of an HTTP error; `errorType` overrides the type derived from `status`. */
  errorBody(
    status: number,
    message: string | undefined,
    errorType: string | undefined,
    requestId: string,
  ): unknown;
  /** The 400 body the real API sends when a request of `tokens` exceeds a context window of `window`. */
  overflowBody(tokens: number, window: number, requestId: string): unknown;
  /** A short, one-line description of a request, for the "scenario exhausted" error. */
  summarizeRequest(body: unknown): string;
  /** The images and documents of a request (after `checkRequest` accepted it), in order. */
  scanMedia(body: Record<string, unknown>): MediaScan;
}

/** A JSON object (not null, not an array). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A short, quoted excerpt of request text for the "scenario exhausted" message. */
export function quote(text: string, max = 120): string {
  const flat = text.replace(/\s+/g, " ").trim();
  const head = chunkText(flat, max)[0] ?? "";
  return JSON.stringify(head.length < flat.length ? head + "…" : head);
}

/** The text of an OpenAI content value: a string, or the `text` of each part, space-joined. */
export function partsText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((part) => (isObject(part) && typeof part.text === "string" ? part.text : "")).join(" ");
}

/**
 * An image or document a request carried, as the server read it from the wire's own shapes: where
 * it was (`prompt`: a user message; `tool_result`: inside a tool's result) and its bytes (base64,
 * from a data URL on the OpenAI wires) or URL.
 */
export type RecordedMedia = {
  kind: "image" | "document";
  in: "prompt" | "tool_result";
  mediaType?: string;
  data?: string;
  url?: string;
};

/** The media of a request, or why a part is malformed (answered 400, as the real API does). */
export type MediaScan = { media: RecordedMedia[] } | { error: string };

/** `data:<type>;base64,<data>` split; a non-data URL as `url`. */
export function fromUrl(
  url: unknown,
  kind: RecordedMedia["kind"],
  where: RecordedMedia["in"],
): RecordedMedia | string {
  if (typeof url !== "string" || url.length === 0) return `${kind} part without a URL`;
  const data = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  if (data) return { kind, in: where, mediaType: data[1]!, data: data[2]! };
  if (url.startsWith("data:")) return `${kind} data URL is not base64: ${url.slice(0, 40)}`;
  return { kind, in: where, url };
}

/** Collects parts, stopping at the first malformed one. */
export function scanParts(visit: (add: (part: RecordedMedia | string) => void) => void): MediaScan {
  const media: RecordedMedia[] = [];
  let error: string | undefined;
  visit((part) => {
    if (error !== undefined) return;
    if (typeof part === "string") error = part;
    else media.push(part);
  });
  return error !== undefined ? { error } : { media };
}
