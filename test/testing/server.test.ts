import Anthropic, { APIConnectionError, APIError, APIUserAbortError } from "@anthropic-ai/sdk";
import { afterEach, describe, expect, it } from "vitest";
import {
  chunkText,
  estimateTokens,
  hang,
  httpError,
  type RecordedRequest,
  reply,
  type ScriptedServer,
  type ScriptedServerOptions,
  startScriptedServer,
} from "../../src/testing/index.js";

const servers: ScriptedServer[] = [];

async function start(options: ScriptedServerOptions): Promise<ScriptedServer> {
  const server = await startScriptedServer(options);
  servers.push(server);
  return server;
}

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

function clientFor(server: ScriptedServer, options: { maxRetries?: number } = {}): Anthropic {
  return new Anthropic({ apiKey: "test", baseURL: server.url, maxRetries: 0, ...options });
}

const BASE = {
  model: "claude-test",
  max_tokens: 1024,
  messages: [{ role: "user" as const, content: "Hello" }],
};

type RawEvent = Anthropic.Messages.RawMessageStreamEvent;

async function collect(stream: AsyncIterable<RawEvent>): Promise<RawEvent[]> {
  const events: RawEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}

async function caught(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection");
}

/** True when the text holds a lone (unpaired) surrogate. */
function hasLoneSurrogate(text: string): boolean {
  return /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text);
}

describe("streaming", () => {
  it("sends Anthropic SSE with text cut into chunkSize pieces", async () => {
    const text = "Hello, scripted world! This is a longer sentence.";
    const server = await start({ steps: [reply().text(text)], chunkSize: 5 });
    const events = await collect(await clientFor(server).messages.create({ ...BASE, stream: true }));

    expect(events.map((event) => event.type)).toEqual([
      "message_start",
      "content_block_start",
      ...chunkText(text, 5).map(() => "content_block_delta"),
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    const deltas = events.flatMap((event) =>
      event.type === "content_block_delta" && event.delta.type === "text_delta" ? [event.delta.text] : [],
    );
    expect(deltas).toEqual(chunkText(text, 5));
    expect(deltas.every((chunk) => chunk.length <= 5)).toBe(true);
    expect(deltas.join("")).toBe(text);

    const start0 = events[0];
    if (start0.type !== "message_start") throw new Error("no message_start");
    expect(start0.message.id).toBe("msg_scripted_1");
    expect(start0.message.model).toBe("scripted-model");
    const delta = events.at(-2);
    if (delta?.type !== "message_delta") throw new Error("no message_delta");
    expect(delta.delta.stop_reason).toBe("end_turn");
  });

  it("writes each event as `event:`/`data:` lines with SSE headers and a request id", async () => {
    const server = await start({ steps: [reply().text("Hi")] });
    const response = await fetch(`${server.url}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ...BASE, stream: true }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    expect(response.headers.get("request-id")).toBe("req_scripted_1");
    const body = await response.text();
    const frames = body.split("\n\n").filter(Boolean);
    expect(frames).toHaveLength(6);
    for (const frame of frames) {
      const [eventLine, dataLine] = frame.split("\n");
      const name = eventLine.replace(/^event: /, "");
      expect(JSON.parse(dataLine.replace(/^data: /, "")).type).toBe(name);
    }
    expect(frames[2]).toBe(
      'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}',
    );
  });

  it("streams thinking and tool_use input that parses back to the input", async () => {
    const input = { file_path: "src/some/deeply/nested/file.ts", limit: 40, flags: ["a", "é", "🙂"] };
    const server = await start({
      steps: [reply().thinking("Let me look at that file first.").text("Reading it.").tool("Read", input)],
      chunkSize: 8,
    });
    const events = await collect(await clientFor(server).messages.create({ ...BASE, stream: true }));

    const thinking = events.flatMap((event) =>
      event.type === "content_block_delta" && event.delta.type === "thinking_delta"
        ? [event.delta.thinking]
        : [],
    );
    expect(thinking.join("")).toBe("Let me look at that file first.");
    expect(thinking.length).toBeGreaterThan(1);
    const partial = events.flatMap((event) =>
      event.type === "content_block_delta" && event.delta.type === "input_json_delta"
        ? [event.delta.partial_json]
        : [],
    );
    expect(partial.length).toBeGreaterThan(1);
    expect(JSON.parse(partial.join(""))).toEqual(input);
    const toolStart = events.find(
      (event) => event.type === "content_block_start" && event.content_block.type === "tool_use",
    );
    expect(toolStart).toMatchObject({
      index: 2,
      content_block: { type: "tool_use", id: "toolu_scripted_0_2", name: "Read", input: {} },
    });
  });

  it("messages.stream().finalMessage() reassembles the whole reply", async () => {
    const input = { command: "ls -la", description: "List files" };
    const server = await start({
      steps: [reply().thinking("Plan.").text("Let me list.").tool("Bash", input, "toolu_custom")],
      chunkSize: 3,
    });
    const message = await clientFor(server).messages.stream(BASE).finalMessage();
    expect(message.content).toEqual([
      { type: "thinking", thinking: "Plan.", signature: "scripted" },
      { type: "text", text: "Let me list." },
      { type: "tool_use", id: "toolu_custom", name: "Bash", input },
    ]);
    expect(message.stop_reason).toBe("tool_use");
    expect(message.usage.input_tokens).toBe(estimateTokens(server.requests[0].body));
  });

  it("never splits a surrogate pair, over the wire either", async () => {
    const text = "héllo 👋🏽 wörld 🎉🎉🎉 日本語テキスト 👨‍👩‍👧 fin";
    for (const size of [1, 2, 3, 4, 5]) {
      const chunks = chunkText(text, size);
      expect(chunks.join("")).toBe(text);
      for (const chunk of chunks) {
        expect(hasLoneSurrogate(chunk)).toBe(false);
        expect(chunk.length).toBeLessThanOrEqual(size + 1);
      }
    }
    const server = await start({
      steps: [reply().text(text).tool("Write", { content: text })],
      chunkSize: 3,
    });
    const events = await collect(await clientFor(server).messages.create({ ...BASE, stream: true }));
    const texts = events.flatMap((event) =>
      event.type === "content_block_delta" && event.delta.type === "text_delta" ? [event.delta.text] : [],
    );
    expect(texts.some(hasLoneSurrogate)).toBe(false);
    expect(texts.join("")).toBe(text);
    const json = events.flatMap((event) =>
      event.type === "content_block_delta" && event.delta.type === "input_json_delta"
        ? [event.delta.partial_json]
        : [],
    );
    expect(json.some(hasLoneSurrogate)).toBe(false);
    expect(JSON.parse(json.join(""))).toEqual({ content: text });
  });

  it("stalls and slow events still deliver the whole reply", async () => {
    const server = await start({
      steps: [reply().text("slow and steady").stall(2, 30).delayPerEvent(2)],
      chunkSize: 4,
    });
    const message = await clientFor(server).messages.stream(BASE).finalMessage();
    expect(message.content).toEqual([{ type: "text", text: "slow and steady" }]);
  });
});

describe("non-streaming", () => {
  it("returns the full message assembled from the same events", async () => {
    const input = { file_path: "notes.txt", content: "one\ntwo\n" };
    const server = await start({
      steps: [
        reply()
          .thinking("Think.")
          .text("Writing the notes.")
          .tool("Write", input)
          .usage({ output_tokens: 7 }),
      ],
      model: "scripted-opus",
    });
    const message = await clientFor(server).messages.create(BASE);
    expect(message).toMatchObject({
      id: "msg_scripted_1",
      type: "message",
      role: "assistant",
      model: "scripted-opus",
      stop_reason: "tool_use",
      stop_sequence: null,
      content: [
        { type: "thinking", thinking: "Think.", signature: "scripted" },
        { type: "text", text: "Writing the notes." },
        { type: "tool_use", id: "toolu_scripted_0_2", name: "Write", input },
      ],
    });
    expect(message.usage).toMatchObject({
      input_tokens: estimateTokens(server.requests[0].body),
      output_tokens: 7,
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 0,
    });
  });

  it("honours stopReason and usage overrides", async () => {
    const server = await start({
      steps: [
        reply()
          .text("cut sh")
          .stopReason("max_tokens")
          .usage({ input_tokens: 123, cache_read_input_tokens: 5 }),
      ],
    });
    const message = await clientFor(server).messages.create(BASE);
    expect(message.stop_reason).toBe("max_tokens");
    expect(message.usage).toMatchObject({ input_tokens: 123, cache_read_input_tokens: 5 });
  });
});

describe("recording and ids", () => {
  it("records method, path, headers, the parsed body and the step that answered", async () => {
    const server = await start({ steps: [reply().text("one"), reply().text("two")] });
    const client = clientFor(server);
    const tools = [
      {
        name: "Read",
        description: "Reads a file",
        input_schema: { type: "object" as const, properties: { file_path: { type: "string" } } },
      },
    ];
    await client.messages.create({ ...BASE, system: "You are terse.", tools });
    await collect(
      await client.messages.create({
        ...BASE,
        stream: true,
        messages: [
          { role: "user", content: "Hello" },
          { role: "assistant", content: [{ type: "text", text: "one" }] },
          { role: "user", content: "Again" },
        ],
      }),
    );
    expect(server.requests).toHaveLength(2);
    const [first, second] = server.requests as RecordedRequest[];
    expect(first).toMatchObject({ method: "POST", path: "/v1/messages", stepIndex: 0 });
    // This SDK version sends the key as a bearer token; older ones used x-api-key.
    expect(first.headers.authorization ?? first.headers["x-api-key"]).toMatch(/^(Bearer )?test$/);
    expect(first.headers["content-type"]).toContain("application/json");
    expect(first.body).toMatchObject({
      model: "claude-test",
      system: "You are terse.",
      tools,
      max_tokens: 1024,
    });
    expect(typeof first.receivedAt).toBe("number");
    expect(second.stepIndex).toBe(1);
    expect(second.body).toMatchObject({
      stream: true,
      messages: [{}, {}, { role: "user", content: "Again" }],
    });
    expect(server.remaining).toEqual([]);
  });

  it("withResponse() exposes a unique request id per request", async () => {
    const server = await start({ steps: [reply().text("a"), reply().text("b")] });
    const client = clientFor(server);
    const first = await client.messages.create(BASE).withResponse();
    expect(first.request_id).toBe("req_scripted_1");
    expect(first.data.id).toBe("msg_scripted_1");
    const second = await client.messages.create({ ...BASE, stream: true }).withResponse();
    expect(second.request_id).toBe("req_scripted_2");
    expect(second.response.headers.get("content-type")).toBe("text/event-stream");
    await collect(second.data);
  });

  it("append() adds steps while running and remaining shrinks as they are consumed", async () => {
    const server = await start({ steps: [reply().text("first")] });
    const client = clientFor(server);
    expect(server.remaining).toHaveLength(1);
    await client.messages.create(BASE);
    expect(server.remaining).toHaveLength(0);
    server.append(reply().text("second"), httpError(500));
    expect(server.remaining.map((step) => step.kind)).toEqual(["reply", "error"]);
    const message = await client.messages.create(BASE);
    expect(message.content).toMatchObject([{ type: "text", text: "second" }]);
    expect(server.remaining).toHaveLength(1);
  });

  it("rejects malformed steps at start and in append(), naming the position", async () => {
    await expect(startScriptedServer({ steps: [reply().text("ok"), httpError(200)] })).rejects.toThrow(
      /invalid step at steps\.1\.status/,
    );
    const server = await start({ steps: [reply().text("ok")] });
    expect(() => server.append(reply().cutAfterEvents(-1))).toThrow(
      /invalid step at steps\.1\.cutAfterEvents/,
    );
    await expect(startScriptedServer({ chunkSize: 0 })).rejects.toThrow(
      /chunkSize must be a positive integer/,
    );
  });
});

describe("faults", () => {
  it("a 529 with retry-after is retried by the client, which gets the next step", async () => {
    const server = await start({
      steps: [httpError(529, { retryAfter: 0.01 }), reply().text("after retry")],
    });
    const message = await clientFor(server, { maxRetries: 1 }).messages.create(BASE);
    expect(message.content).toMatchObject([{ type: "text", text: "after retry" }]);
    expect(server.requests.map((request) => request.stepIndex)).toEqual([0, 1]);
  });

  it("an error step surfaces as the SDK's APIError with status, type, body and headers", async () => {
    const server = await start({ steps: [httpError(529, { retryAfter: 3 })] });
    const error = await caught(clientFor(server).messages.create({ ...BASE, stream: true }));
    expect(error).toBeInstanceOf(APIError);
    const apiError = error as APIError;
    expect(apiError.status).toBe(529);
    expect(apiError.type).toBe("overloaded_error");
    expect(apiError.headers?.get("retry-after")).toBe("3");
    expect(apiError.requestID).toBe("req_scripted_1");
    expect(apiError.error).toEqual({
      type: "error",
      error: { type: "overloaded_error", message: "Overloaded (scripted)" },
      request_id: "req_scripted_1",
    });
  });

  it.each([
    [429, "rate_limit_error"],
    [500, "api_error"],
    [400, "invalid_request_error"],
    [401, "authentication_error"],
  ])("status %i maps to %s", async (status, type) => {
    const server = await start({ steps: [httpError(status)] });
    const error = (await caught(clientFor(server).messages.create(BASE))) as APIError;
    expect(error.status).toBe(status);
    expect(error.type).toBe(type);
  });

  it("an error step can carry its own message and type", async () => {
    const server = await start({
      steps: [
        httpError(400, { message: "prompt is too long: 300000 tokens", errorType: "invalid_request_error" }),
      ],
    });
    const error = (await caught(clientFor(server).messages.create(BASE))) as APIError;
    expect(error.status).toBe(400);
    expect(error.apiMessage).toBe("prompt is too long: 300000 tokens");
  });

  it("a stream cut mid-message makes the client's iteration throw; the server stays usable", async () => {
    const server = await start({
      steps: [reply().text("This reply will never finish arriving.").cutAfterEvents(3), reply().text("fine")],
      chunkSize: 4,
    });
    const client = clientFor(server);
    const stream = await client.messages.create({ ...BASE, stream: true });
    const seen: RawEvent[] = [];
    const error = await caught(
      (async () => {
        for await (const event of stream) seen.push(event);
      })(),
    );
    expect(error).toBeInstanceOf(Error);
    expect(seen.map((event) => event.type)).toEqual([
      "message_start",
      "content_block_start",
      "content_block_delta",
    ]);

    const message = await client.messages.create(BASE);
    expect(message.content).toMatchObject([{ type: "text", text: "fine" }]);
  });

  it("a cut also breaks a non-streaming response", async () => {
    const server = await start({
      steps: [reply().text("never whole").cutAfterEvents(2), reply().text("ok")],
    });
    const client = clientFor(server);
    await expect(client.messages.create(BASE)).rejects.toThrow();
    expect((await client.messages.create(BASE)).content).toMatchObject([{ type: "text", text: "ok" }]);
  });

  it("a client abort during a stream leaves the server answering the next request", async () => {
    const server = await start({
      steps: [reply().text("x".repeat(400)).delayPerEvent(5), reply().text("next")],
      chunkSize: 1,
    });
    const client = clientFor(server);
    const stream = await client.messages.create({ ...BASE, stream: true });
    for await (const event of stream) {
      if (event.type === "content_block_delta") break; // the SDK aborts the request
    }
    const message = await client.messages.create(BASE);
    expect(message.content).toMatchObject([{ type: "text", text: "next" }]);
  });

  it("hang: the client can abort, and close() ends hung requests at once", async () => {
    const server = await startScriptedServer({ steps: [hang(), hang()] });
    const client = clientFor(server);

    const controller = new AbortController();
    const aborted = client.messages.create(BASE, { signal: controller.signal });
    await until(() => server.requests.length === 1);
    controller.abort();
    expect(await caught(aborted)).toBeInstanceOf(APIUserAbortError);

    const pending = caught(client.messages.create({ ...BASE, stream: true }));
    await until(() => server.requests.length === 2);
    await server.close();
    expect(await pending).toBeInstanceOf(APIConnectionError);
    await expect(fetch(`${server.url}/v1/messages`)).rejects.toThrow(); // no longer listening
    await server.close(); // idempotent
    expect(server.requests.map((request) => request.stepIndex)).toEqual([0, 1]);
  });
});

describe("protocol errors", () => {
  it("an exhausted scenario answers 400 naming the unexpected request, never retried", async () => {
    const server = await start({ steps: [reply().tool("Read", { file_path: "a.txt" })] });
    const client = clientFor(server, { maxRetries: 2 });
    await client.messages.create(BASE);
    const error = (await caught(
      client.messages.create({
        ...BASE,
        messages: [
          { role: "user", content: "Read a.txt" },
          {
            role: "assistant",
            content: [{ type: "tool_use", id: "toolu_scripted_0_0", name: "Read", input: {} }],
          },
          {
            role: "user",
            content: [
              {
                type: "tool_result",
                tool_use_id: "toolu_scripted_0_0",
                content: "File does not exist.",
                is_error: true,
              },
              { type: "text", text: "x".repeat(500) },
            ],
          },
        ],
      }),
    )) as APIError;
    expect(error).toBeInstanceOf(APIError);
    expect(error.status).toBe(400);
    expect(error.type).toBe("invalid_request_error");
    expect(error.apiMessage).toContain(
      "scripted model server: scenario exhausted after 1 step; unexpected request #2 (POST /v1/messages)",
    );
    expect(error.apiMessage).toContain('tool_result toolu_scripted_0_0 (error) "File does not exist."');
    expect(error.apiMessage).toContain("3 messages; last user message:");
    expect(error.apiMessage!.length).toBeLessThan(400);
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1].stepIndex).toBeNull();
  });

  it("unknown paths answer 404 and invalid JSON answers 400, consuming no step", async () => {
    const server = await start({ steps: [reply().text("still here")] });
    const notFound = await fetch(`${server.url}/v1/models`);
    expect(notFound.status).toBe(404);
    expect(await notFound.json()).toMatchObject({
      type: "error",
      error: { type: "not_found_error", message: expect.stringContaining("no route for GET /v1/models") },
    });

    const badJson = await fetch(`${server.url}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{not json",
    });
    expect(badJson.status).toBe(400);
    expect(await badJson.json()).toMatchObject({
      error: { type: "invalid_request_error", message: expect.stringContaining("not valid JSON") },
    });

    const noMessages = await fetch(`${server.url}/v1/messages`, {
      method: "POST",
      body: JSON.stringify({ model: "m", max_tokens: 5 }),
    });
    expect(noMessages.status).toBe(400);

    expect(server.remaining).toHaveLength(1);
    expect(server.requests.map((request) => [request.path, request.stepIndex, request.body])).toEqual([
      ["/v1/models", null, undefined],
      ["/v1/messages", null, "{not json"],
      ["/v1/messages", null, { model: "m", max_tokens: 5 }],
    ]);
    const message = await clientFor(server).messages.create(BASE);
    expect(message.content).toMatchObject([{ type: "text", text: "still here" }]);
  });
});
