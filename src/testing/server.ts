import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import type { AddressInfo, Socket } from "node:net";
import {
  DEFAULT_CHUNK_SIZE,
  DEFAULT_SCENARIO_MODEL,
  type ErrorStep,
  estimateTokens,
  type ReplyStep,
  type ScenarioStep,
  type StepInput,
  toStep,
} from "../providers/scenario.js";
import { loadScenarioFile, validateSteps } from "../providers/scenario-file.js";
import { ConfigError } from "../providers/types.js";
import type { RecordedMedia, ReplyContext, ScriptedWire } from "./wire.js";
import { anthropicWire } from "./wire-anthropic.js";
import { openaiChatWire } from "./wire-openai-chat.js";
import { openaiResponsesWire } from "./wire-openai-responses.js";

/**
 * Options of `startScriptedServer`. A `Scenario` object (as loaded from a JSON file) is accepted
 * as is; `scenarioFile` loads one from disk instead of `steps`.
 */
export type ScriptedServerOptions = {
  /** The model's side of the conversation, one step per model call. May be empty (see `append`). */
  steps?: StepInput[];
  /** Path of a JSON scenario file (docs/scenarios.md). Exclusive with `steps`. */
  scenarioFile?: string;
  /** Text and tool-input deltas are cut into chunks of this many UTF-16 units (default 16). */
  chunkSize?: number;
  /** Model id reported in replies (default "scripted-model"). */
  model?: string;
  /**
   * The model's context window in tokens: a request whose estimated size (4 characters of its JSON
   * body a token, as the reported `input_tokens`) exceeds it is answered 400 as the real API does
   * (Anthropic "prompt is too long: N tokens > M maximum", OpenAI `context_length_exceeded`) and
   * consumes no step. Default: no limit.
   */
  contextWindow?: number;
  /**
   * Asked first for every valid model request: a step to answer it with, or undefined to take the
   * next scenario step. For replies that depend on the request (a compaction's summary request,
   * a session longer than any script).
   */
  respond?: (request: RecordedRequest) => StepInput | undefined | Promise<StepInput | undefined>;
  /** Accepted so a `Scenario` object can be passed directly; not used. */
  version?: 1;
  description?: string;
};

/** One HTTP request as the server received it. */
export type RecordedRequest = {
  method: string;
  /** Path with query string, e.g. "/v1/messages" or "/v1/messages?beta=true". */
  path: string;
  /** Lower-cased request headers. */
  headers: IncomingHttpHeaders;
  /** The parsed JSON body; the raw text when it is not JSON; undefined when empty. */
  body: unknown;
  /** The images and documents it carried, read from the wire's shapes (empty: none, or not a model request). */
  media: RecordedMedia[];
  /** Index of the scenario step that answered it; null when none did (404, bad body, exhausted). */
  stepIndex: number | null;
  /** `Date.now()` when the request arrived. */
  receivedAt: number;
};

export interface ScriptedServer {
  /** "http://127.0.0.1:PORT": use as `ANTHROPIC_BASE_URL` or as the SDK's `baseURL`. */
  readonly url: string;
  readonly port: number;
  /** Every request received, in order (live array). */
  readonly requests: readonly RecordedRequest[];
  /** Steps not yet consumed (a copy). */
  readonly remaining: readonly ScenarioStep[];
  /** Adds steps at the end of the scenario; validated like file steps. */
  append(...steps: StepInput[]): void;
  /** Stops listening and destroys every connection at once, hung ones included. Idempotent. */
  close(): Promise<void>;
}

/** Wires the server speaks, by path. */
const WIRES: readonly ScriptedWire[] = [anthropicWire, openaiChatWire, openaiResponsesWire];

const SOURCE = "scripted model server";

/** Starts a scripted model server on 127.0.0.1 at a free port. */
export async function startScriptedServer(options: ScriptedServerOptions = {}): Promise<ScriptedServer> {
  let steps: ScenarioStep[];
  let chunkSize = options.chunkSize;
  let model = options.model;
  if (options.scenarioFile !== undefined) {
    if (options.steps !== undefined) {
      throw new ConfigError(`${SOURCE}: pass either steps or scenarioFile, not both`);
    }
    const scenario = loadScenarioFile(options.scenarioFile);
    steps = scenario.steps;
    chunkSize ??= scenario.chunkSize;
    model ??= scenario.model;
  } else {
    steps = validateSteps((options.steps ?? []).map(toStep), SOURCE);
  }
  chunkSize ??= DEFAULT_CHUNK_SIZE;
  if (!Number.isInteger(chunkSize) || chunkSize < 1) {
    throw new ConfigError(`${SOURCE}: chunkSize must be a positive integer, got ${chunkSize}`);
  }
  const server = new ScriptedModelServer(steps, chunkSize, model ?? DEFAULT_SCENARIO_MODEL, {
    ...(options.contextWindow !== undefined ? { contextWindow: options.contextWindow } : {}),
    ...(options.respond ? { respond: options.respond } : {}),
  });
  await server.listen();
  return server;
}

class ScriptedModelServer implements ScriptedServer {
  readonly requests: RecordedRequest[] = [];
  private readonly http: Server;
  private readonly sockets = new Set<Socket>();
  private cursor = 0;
  private requestCount = 0;
  private replyCount = 0;
  /** Requests that asked for a step (valid model calls), for the "unexpected request #k" message. */
  private callCount = 0;
  private closing: Promise<void> | undefined;
  private address: AddressInfo | undefined;

  constructor(
    private readonly steps: ScenarioStep[],
    private readonly chunkSize: number,
    private readonly model: string,
    private readonly limits: Pick<ScriptedServerOptions, "contextWindow" | "respond"> = {},
  ) {
    this.http = createServer((req, res) => {
      this.handle(req, res).catch((error: unknown) => this.internalError(res, error));
    });
    this.http.on("connection", (socket) => {
      socket.setNoDelay(true);
      this.sockets.add(socket);
      socket.on("close", () => this.sockets.delete(socket));
    });
  }

  listen(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.http.once("error", reject);
      this.http.listen(0, "127.0.0.1", () => {
        this.http.off("error", reject);
        this.address = this.http.address() as AddressInfo;
        resolve();
      });
    });
  }

  get port(): number {
    return this.address!.port;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get remaining(): readonly ScenarioStep[] {
    return this.steps.slice(this.cursor);
  }

  append(...steps: StepInput[]): void {
    this.steps.push(...validateSteps(steps.map(toStep), SOURCE, this.steps.length));
  }

  close(): Promise<void> {
    this.closing ??= new Promise<void>((resolve) => {
      this.http.close(() => resolve());
      for (const socket of this.sockets) socket.destroy();
    });
    return this.closing;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const receivedAt = Date.now();
    const requestId = `req_scripted_${++this.requestCount}`;
    // Aborted when the client goes away (or close() cuts the socket) before the response ends.
    const abort = new AbortController();
    res.on("close", () => {
      if (!res.writableFinished) abort.abort();
    });

    let text: string;
    try {
      text = await readBody(req);
    } catch {
      return; // the client went away while sending
    }
    const method = req.method ?? "GET";
    const path = req.url ?? "/";
    const record: RecordedRequest = {
      method,
      path,
      headers: req.headers,
      body: parseJsonOr(text),
      media: [],
      stepIndex: null,
      receivedAt,
    };
    this.requests.push(record);

    const pathname = new URL(path, "http://127.0.0.1").pathname.replace(/\/+$/, "");
    const wire = WIRES.find((candidate) => candidate.path === pathname);
    if (!wire || method !== "POST") {
      const routes = WIRES.map((candidate) => `POST ${candidate.path}`).join(", ");
      const message = `${SOURCE}: no route for ${method} ${path} (it serves ${routes})`;
      sendJson(res, 404, (wire ?? anthropicWire).errorBody(404, message, undefined, requestId), {
        [(wire ?? anthropicWire).requestIdHeader]: requestId,
      });
      return;
    }
    const idHeader = { [wire.requestIdHeader]: requestId };

    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch (error) {
      const message = `${SOURCE}: request body is not valid JSON: ${(error as Error).message}`;
      sendJson(res, 400, wire.errorBody(400, message, undefined, requestId), idHeader);
      return;
    }
    const problem = wire.checkRequest(body);
    if (problem) {
      sendJson(res, 400, wire.errorBody(400, `${SOURCE}: ${problem}`, undefined, requestId), idHeader);
      return;
    }
    const scan = wire.scanMedia(body as Record<string, unknown>);
    if ("error" in scan) {
      const message = `${SOURCE}: ${scan.error}`;
      sendJson(res, 400, wire.errorBody(400, message, "invalid_request_error", requestId), idHeader);
      return;
    }
    record.media = scan.media;

    const window = this.limits.contextWindow;
    if (window !== undefined) {
      const tokens = estimateTokens(body);
      if (tokens > window) {
        sendJson(res, 400, wire.overflowBody(tokens, window, requestId), {
          ...idHeader,
          "x-should-retry": "false",
        });
        return;
      }
    }
    const callNumber = ++this.callCount;
    const answer = await this.limits.respond?.(record);
    if (answer !== undefined) {
      await this.answer(
        res,
        wire,
        validateSteps([toStep(answer)], SOURCE)[0]!,
        body,
        -1,
        requestId,
        abort.signal,
      );
      return;
    }
    if (this.cursor >= this.steps.length) {
      const count = this.steps.length;
      const message =
        `${SOURCE}: scenario exhausted after ${count} step${count === 1 ? "" : "s"}; ` +
        `unexpected request #${callNumber} (${method} ${path}): ${wire.summarizeRequest(body)}`;
      sendJson(res, 400, wire.errorBody(400, message, "invalid_request_error", requestId), {
        ...idHeader,
        "x-should-retry": "false",
      });
      return;
    }
    const stepIndex = this.cursor++;
    record.stepIndex = stepIndex;
    await this.answer(res, wire, this.steps[stepIndex]!, body, stepIndex, requestId, abort.signal);
  }

  /** Answers with one step; `stepIndex` -1 for a step from `respond` (its tool ids count replies instead). */
  private async answer(
    res: ServerResponse,
    wire: ScriptedWire,
    step: ScenarioStep,
    body: unknown,
    stepIndex: number,
    requestId: string,
    signal: AbortSignal,
  ): Promise<void> {
    switch (step.kind) {
      case "hang":
        return; // never answered; close() or the client's abort ends it
      case "error":
        this.sendError(res, wire, step, requestId);
        return;
      case "reply": {
        const replyNumber = ++this.replyCount;
        const context: ReplyContext = {
          stepIndex: stepIndex >= 0 ? stepIndex : 1_000_000 + replyNumber,
          replyNumber,
          chunkSize: this.chunkSize,
          model: this.model,
          requestId,
        };
        if (wire.isStreaming(body)) await streamReply(res, wire, step, body, context, signal);
        else await answerReply(res, wire, step, body, context, signal);
        return;
      }
    }
  }

  private sendError(res: ServerResponse, wire: ScriptedWire, step: ErrorStep, requestId: string): void {
    const headers: Record<string, string> = { [wire.requestIdHeader]: requestId };
    if (step.retryAfter !== undefined) headers["retry-after"] = String(step.retryAfter);
    sendJson(res, step.status, wire.errorBody(step.status, step.message, step.errorType, requestId), headers);
  }

  private internalError(res: ServerResponse, error: unknown): void {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const message = `${SOURCE}: internal error: ${error instanceof Error ? error.stack : String(error)}`;
    sendJson(res, 500, anthropicWire.errorBody(500, message, "api_error", "req_scripted_internal"), {
      "x-should-retry": "false",
    });
  }
}

async function streamReply(
  res: ServerResponse,
  wire: ScriptedWire,
  step: ReplyStep,
  body: unknown,
  context: ReplyContext,
  signal: AbortSignal,
): Promise<void> {
  const frames = wire.streamFrames(step, body, context);
  res.writeHead(200, {
    ...step.headers,
    "content-type": wire.streamContentType,
    "cache-control": "no-cache",
    [wire.requestIdHeader]: context.requestId,
  });
  res.flushHeaders();
  // Without pacing, frames go out in large writes, as a real server sends what it has ready: one
  // awaited write per frame caps a fast client at this server's own syscall rate (about 60,000
  // frames a second), which the throughput benchmark must not measure. Paced replies (delays,
  // stalls, cuts) keep one write per frame so their timing stays exact.
  if (step.delayPerEventMs === undefined && step.stall === undefined && step.cutAfterEvents === undefined) {
    await writeBatched(res, frames, signal);
    if (!signal.aborted) res.end();
    return;
  }
  for (let index = 0; index <= frames.length; index++) {
    if (step.stall && step.stall.afterEvents === index) await sleep(step.stall.ms, signal);
    if (signal.aborted) return;
    // A cut past the last event still cuts: the response never ends properly.
    if (step.cutAfterEvents !== undefined && Math.min(step.cutAfterEvents, frames.length) === index) {
      res.destroy();
      return;
    }
    const frame = frames[index];
    if (!frame) break;
    if (frame.delta && step.delayPerEventMs) await sleep(step.delayPerEventMs, signal);
    if (signal.aborted) return;
    await write(res, frame.text, signal);
  }
  if (!signal.aborted) res.end();
}

/** Non-streaming: the same delays in one go, then the whole message (or half of it, for a cut). */
async function answerReply(
  res: ServerResponse,
  wire: ScriptedWire,
  step: ReplyStep,
  body: unknown,
  context: ReplyContext,
  signal: AbortSignal,
): Promise<void> {
  const deltas = wire.streamFrames(step, body, context).filter((frame) => frame.delta).length;
  const delay = (step.stall?.ms ?? 0) + (step.delayPerEventMs ?? 0) * deltas;
  if (delay > 0) await sleep(delay, signal);
  if (signal.aborted) return;
  const json = JSON.stringify(wire.jsonResponse(step, body, context));
  const headers = {
    ...step.headers,
    "content-type": "application/json",
    [wire.requestIdHeader]: context.requestId,
  };
  if (step.cutAfterEvents === undefined) {
    res.writeHead(200, { ...headers, "content-length": Buffer.byteLength(json) });
    res.end(json);
    return;
  }
  res.writeHead(200, headers);
  await write(res, json.slice(0, Math.floor(json.length / 2)), signal);
  res.destroy();
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string>): void {
  const json = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    "content-type": "application/json",
    "content-length": Buffer.byteLength(json),
  });
  res.end(json);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
    req.on("close", () => {
      if (!req.complete) reject(new Error("request aborted"));
    });
  });
}

function parseJsonOr(text: string): unknown {
  if (text.length === 0) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Waits `ms`, or less when `signal` aborts; never leaves a timer behind. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted || ms <= 0) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}

/** Writes the frames' text in writes of about 64 kB, waiting for `drain` whenever the socket is full. */
async function writeBatched(
  res: ServerResponse,
  frames: readonly { text: string }[],
  signal: AbortSignal,
): Promise<void> {
  let batch = "";
  for (let index = 0; index < frames.length; index++) {
    batch += frames[index].text;
    if (batch.length < 65_536 && index < frames.length - 1) continue;
    if (signal.aborted) return;
    const ok = res.write(batch);
    batch = "";
    if (!ok) await drained(res, signal);
  }
}

function drained(res: ServerResponse, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      res.off("drain", done);
      signal.removeEventListener("abort", done);
      resolve();
    };
    res.on("drain", done);
    signal.addEventListener("abort", done, { once: true });
  });
}

/** Writes and waits until the data is handed to the socket (or the client is gone). */
function write(res: ServerResponse, text: string, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      signal.removeEventListener("abort", done);
      resolve();
    };
    signal.addEventListener("abort", done, { once: true });
    res.write(text, () => done());
  });
}
