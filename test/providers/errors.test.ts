import { afterEach, describe, expect, test } from "vitest";
import type { ModelStreamEvent } from "../../src/engine/messages.js";
import { retryAfterMsFromHeaders, toProviderError } from "../../src/providers/errors.js";
import { type ModelProvider, type ModelRequest, ProviderError } from "../../src/providers/types.js";
import { hang, httpError, reply, type ScriptedServer, startScriptedServer } from "../../src/testing/index.js";
import { deadURL, startGarbageServer } from "./garbage-server.js";
import { WIRE_CASES } from "./helpers.js";

let server: ScriptedServer | undefined;
let garbage: { url: string; close(): Promise<void> } | undefined;
afterEach(async () => {
  await server?.close();
  await garbage?.close();
  server = undefined;
  garbage = undefined;
});

const REQUEST: ModelRequest = {
  model: "some-model",
  system: "sys",
  messages: [{ role: "user", content: "hi" }],
  tools: [],
  maxTokens: 100,
};

/** One model call: start it and read the whole stream; resolves to the events, or rejects. */
async function drain(
  provider: ModelProvider,
  signal = new AbortController().signal,
): Promise<ModelStreamEvent[]> {
  const response = await provider.stream(REQUEST, signal);
  const events: ModelStreamEvent[] = [];
  for await (const event of response.events) events.push(event);
  return events;
}

async function failure(promise: Promise<unknown>): Promise<ProviderError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProviderError);
  return error as ProviderError;
}

describe.each(WIRE_CASES)("error mapping — $name", (wire) => {
  test("429 with Retry-After → status, retryAfterMs, retryable; the client itself never retries", async () => {
    server = await startScriptedServer({
      steps: [httpError(429, { retryAfter: 2, message: "slow down" }), reply().text("x")],
    });
    const error = await failure(drain(await wire.make(server.url)));
    expect(error.status).toBe(429);
    expect(error.retryAfterMs).toBe(2000);
    expect(error.retryable).toBe(true);
    expect(error.message).toContain("429");
    expect(error.message).toContain("slow down");
    expect(server.requests).toHaveLength(1);
  });

  test("529 and 500 are retryable; 400, 401, 403 and 413 are not", async () => {
    server = await startScriptedServer({
      steps: [httpError(529), httpError(500), httpError(400), httpError(401), httpError(403), httpError(413)],
    });
    const provider = await wire.make(server.url);
    const results: [number | undefined, boolean][] = [];
    for (let i = 0; i < 6; i++) {
      const error = await failure(drain(provider));
      results.push([error.status, error.retryable]);
    }
    expect(results).toEqual([
      [529, true],
      [500, true],
      [400, false],
      [401, false],
      [403, false],
      [413, false],
    ]);
    expect(server.requests).toHaveLength(6);
  });

  test("an exhausted scenario (x-should-retry: false) is not retryable", async () => {
    server = await startScriptedServer({ steps: [] });
    const error = await failure(drain(await wire.make(server.url)));
    expect(error.status).toBe(400);
    expect(error.retryable).toBe(false);
    expect(error.message).toContain("scenario exhausted");
  });

  test("a stream cut mid-message is a retryable ProviderError without status", async () => {
    server = await startScriptedServer({
      steps: [reply().text("This answer is cut short, sadly.").cutAfterEvents(5)],
    });
    const error = await failure(drain(await wire.make(server.url)));
    expect(error.status).toBeUndefined();
    expect(error.retryable).toBe(true);
  });

  test("a server answering HTML instead of an event stream → a clear, non-retryable error naming the URL", async () => {
    garbage = await startGarbageServer("<html><body>Welcome to nginx!</body></html>", "text/html");
    const error = await failure(drain(await wire.make(garbage.url)));
    expect(error.retryable).toBe(false);
    expect(error.message).toContain(garbage.url);
    expect(error.message).toMatch(/event stream|Chat Completions stream/);
  });

  test("invalid JSON inside an event → a clear ProviderError, never a crash", async () => {
    garbage = await startGarbageServer("event: message_start\ndata: {this is not json\n\n");
    const error = await failure(drain(await wire.make(garbage.url)));
    expect(error.message).toContain("not valid JSON");
    expect(error.message).toContain(garbage.url);
    expect(error.retryable).toBe(false);
  });

  test("an error event inside a 200 stream → a ProviderError with the status it means", async () => {
    const bodies: Record<string, string> = {
      "Anthropic Messages":
        'event: message_start\ndata: {"type":"message_start","message":{"id":"m","type":"message","role":"assistant","model":"x","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}}}\n\n' +
        'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n',
      "OpenAI Responses":
        'event: response.created\ndata: {"type":"response.created","sequence_number":0,"response":{"id":"r","model":"x"}}\n\n' +
        'event: error\ndata: {"type":"error","sequence_number":1,"code":"server_error","message":"The server had an error","param":null}\n\n',
      "OpenAI Chat (ollama preset)":
        'data: {"error":{"message":"model overloaded","type":"server_error","code":null}}\n\n',
    };
    garbage = await startGarbageServer(bodies[wire.name]!);
    const error = await failure(drain(await wire.make(garbage.url)));
    expect(error.retryable).toBe(true);
    expect(error.message).toMatch(/Overloaded|server had an error|model overloaded/);
    if (wire.name !== "OpenAI Responses")
      expect(error.status).toBe(wire.name === "Anthropic Messages" ? 529 : 500);
  });

  test("an unreachable server → a retryable error naming the base URL", async () => {
    const url = await deadURL();
    const error = await failure(drain(await wire.make(url)));
    expect(error.retryable).toBe(true);
    expect(error.message).toContain(url);
    expect(error.message).toMatch(/connection refused/);
  });

  test("an abort while the server hangs rejects at once with the abort, not a ProviderError", async () => {
    server = await startScriptedServer({ steps: [hang()] });
    const controller = new AbortController();
    const pending = drain(await wire.make(server.url), controller.signal);
    await expect.poll(() => server!.requests.length).toBe(1);
    const started = Date.now();
    controller.abort();
    const error = await pending.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(Date.now() - started).toBeLessThan(1000);
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(ProviderError);
  });

  test("an abort mid-stream ends the iteration with the abort", async () => {
    server = await startScriptedServer({
      steps: [reply().text("slow slow slow slow slow slow").delayPerEvent(200)],
      chunkSize: 4,
    });
    const controller = new AbortController();
    const response = await (await wire.make(server.url)).stream(REQUEST, controller.signal);
    const seen: string[] = [];
    const error = await (async () => {
      for await (const event of response.events) {
        seen.push(event.type);
        if (event.type === "content_block_delta") controller.abort();
      }
    })().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(seen).toContain("content_block_delta");
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(ProviderError);
  });
});

describe("retryAfterMsFromHeaders", () => {
  test("retry-after-ms wins, then retry-after seconds, then an HTTP date", () => {
    expect(retryAfterMsFromHeaders(new Headers({ "retry-after-ms": "1500", "retry-after": "9" }))).toBe(1500);
    expect(retryAfterMsFromHeaders(new Headers({ "retry-after": "2.5" }))).toBe(2500);
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(retryAfterMsFromHeaders({ "retry-after": "Thu, 01 Jan 2026 00:00:07 GMT" }, now)).toBe(7000);
    expect(retryAfterMsFromHeaders(new Headers({ "retry-after": "soon" }))).toBeUndefined();
    // Negative: no server-requested wait, so the backoff applies (it read as a date, the year -5: 0 ms).
    expect(retryAfterMsFromHeaders(new Headers({ "retry-after": "-5" }))).toBeUndefined();
    expect(
      retryAfterMsFromHeaders(new Headers({ "retry-after-ms": "-100", "retry-after": "-1" })),
    ).toBeUndefined();
    expect(retryAfterMsFromHeaders(new Headers())).toBeUndefined();
    expect(retryAfterMsFromHeaders(undefined)).toBeUndefined();
  });

  test("an in-stream overloaded error becomes a retryable 529", () => {
    const streamError = Object.assign(new Error("Overloaded"), {
      error: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } },
    });
    const mapped = toProviderError(streamError, {
      provider: "Anthropic",
      baseURL: "http://x",
    }) as ProviderError;
    expect(mapped).toBeInstanceOf(ProviderError);
    expect(mapped.status).toBe(529);
    expect(mapped.retryable).toBe(true);
  });
});
