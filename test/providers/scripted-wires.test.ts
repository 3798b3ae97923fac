import OpenAI from "openai";
import { afterEach, describe, expect, test } from "vitest";
import { httpError, reply, type ScriptedServer, startScriptedServer } from "../../src/testing/index.js";

/**
 * The scripted server's OpenAI wires, checked with the official client's own accumulators
 * (`chat.completions.stream().finalChatCompletion()`, `responses.stream().finalResponse()`): if
 * the events were shaped wrong, the client's reconstruction would be.
 */
let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const client = (url: string) =>
  new OpenAI({ apiKey: "k", baseURL: `${url}/v1`, maxRetries: 0, logLevel: "off" });

const STEP = () =>
  reply()
    .thinking("think")
    .text("Hello there")
    .tool("Read", { file_path: "a.txt" }, "call_1")
    .tool("Ls", { path: "." });

describe("scripted Chat Completions wire", () => {
  test("the official client's stream accumulator rebuilds the reply", async () => {
    server = await startScriptedServer({ steps: [STEP()], chunkSize: 3 });
    const stream = client(server.url).chat.completions.stream({
      model: "m",
      messages: [{ role: "user", content: "hi" }],
      stream_options: { include_usage: true },
    });
    const completion = await stream.finalChatCompletion();
    const choice = completion.choices[0]!;
    expect(choice.finish_reason).toBe("tool_calls");
    expect(choice.message.content).toBe("Hello there");
    expect(choice.message.tool_calls).toEqual([
      { id: "call_1", type: "function", function: { name: "Read", arguments: '{"file_path":"a.txt"}' } },
      { id: "call_scripted_0_3", type: "function", function: { name: "Ls", arguments: '{"path":"."}' } },
    ]);
    expect(completion.usage?.prompt_tokens).toBeGreaterThan(0);
  });

  test("raw stream: data-only SSE, reasoning_content, usage chunk only when asked, then [DONE]", async () => {
    server = await startScriptedServer({ steps: [reply().thinking("hm").text("hi"), reply().text("hi")] });
    const post = (body: unknown) =>
      fetch(`${server!.url}/v1/chat/completions`, { method: "POST", body: JSON.stringify(body) }).then((r) =>
        r.text(),
      );
    const withUsage = await post({
      model: "m",
      messages: [],
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(withUsage).not.toContain("event:");
    expect(withUsage).toContain('"reasoning_content":"hm"');
    expect(withUsage).toMatch(/"choices":\[\],"usage":\{"prompt_tokens":\d+/);
    expect(withUsage.endsWith("data: [DONE]\n\n")).toBe(true);
    const withoutUsage = await post({ model: "m", messages: [], stream: true });
    expect(withoutUsage).not.toContain('"usage"');
  });

  test("non-streaming answers a whole chat.completion", async () => {
    server = await startScriptedServer({ steps: [STEP()] });
    const completion = await client(server.url).chat.completions.create({
      model: "m",
      messages: [{ role: "user", content: "hi" }],
    });
    expect(completion.object).toBe("chat.completion");
    expect(completion.choices[0]!.message).toMatchObject({
      content: "Hello there",
      reasoning_content: "think",
    });
    expect(completion.choices[0]!.message.tool_calls).toHaveLength(2);
  });

  test("errors use OpenAI's body shape and x-request-id; an exhausted scenario summarises the last message", async () => {
    server = await startScriptedServer({ steps: [httpError(503, { retryAfter: 1 })] });
    const first = await fetch(`${server.url}/v1/chat/completions`, {
      method: "POST",
      body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }] }),
    });
    expect(first.status).toBe(503);
    expect(first.headers.get("retry-after")).toBe("1");
    expect(first.headers.get("x-request-id")).toBe("req_scripted_1");
    expect(await first.json()).toEqual({
      error: { message: expect.stringContaining("scripted"), type: "server_error", param: null, code: null },
    });
    const second = await fetch(`${server.url}/v1/chat/completions`, {
      method: "POST",
      body: JSON.stringify({
        model: "m",
        messages: [{ role: "tool", tool_call_id: "c9", content: "file contents" }],
      }),
    });
    const body = (await second.json()) as { error: { message: string } };
    expect(body.error.message).toContain("scenario exhausted after 1 step");
    expect(body.error.message).toContain('tool result c9 "file contents"');
  });
});

describe("scripted Responses wire", () => {
  test("the official client's stream accumulator rebuilds the response", async () => {
    server = await startScriptedServer({ steps: [STEP()], chunkSize: 4 });
    const stream = client(server.url).responses.stream({ model: "m", input: "hi" });
    const response = await stream.finalResponse();
    expect(response.status).toBe("completed");
    expect(response.output_text).toBe("Hello there");
    expect(response.output.map((item) => item.type)).toEqual([
      "reasoning",
      "message",
      "function_call",
      "function_call",
    ]);
    const calls = response.output.filter((item) => item.type === "function_call");
    expect(calls.map((c) => [c.call_id, c.name, c.arguments])).toEqual([
      ["call_1", "Read", '{"file_path":"a.txt"}'],
      ["call_scripted_0_3", "Ls", '{"path":"."}'],
    ]);
    expect(response.usage?.input_tokens).toBeGreaterThan(0);
  });

  test("events carry their type twice (SSE event name and JSON) and rising sequence numbers", async () => {
    server = await startScriptedServer({ steps: [reply().text("hey")] });
    const text = await fetch(`${server.url}/v1/responses`, {
      method: "POST",
      body: JSON.stringify({ model: "m", input: "hi", stream: true }),
    }).then((r) => r.text());
    const frames = text.trim().split("\n\n");
    const parsed = frames.map((frame) => {
      const [eventLine, dataLine] = frame.split("\n");
      const data = JSON.parse(dataLine!.slice("data: ".length)) as { type: string; sequence_number: number };
      expect(eventLine).toBe(`event: ${data.type}`);
      return data;
    });
    expect(parsed.map((e) => e.sequence_number)).toEqual(parsed.map((_, i) => i));
    expect(parsed.map((e) => e.type)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.delta",
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.completed",
    ]);
  });

  test("non-streaming answers the whole response; a max_tokens stop is `incomplete`", async () => {
    server = await startScriptedServer({ steps: [reply().text("partial").stopReason("max_tokens")] });
    const response = await client(server.url).responses.create({ model: "m", input: "hi" });
    expect(response.status).toBe("incomplete");
    expect(response.incomplete_details).toEqual({ reason: "max_output_tokens" });
    expect(response.output_text).toBe("partial");
  });

  test("a request without input is a 400 that uses up no step", async () => {
    server = await startScriptedServer({ steps: [reply().text("x")] });
    const answer = await fetch(`${server.url}/v1/responses`, {
      method: "POST",
      body: JSON.stringify({ model: "m" }),
    });
    expect(answer.status).toBe(400);
    expect(((await answer.json()) as { error: { message: string } }).error.message).toContain(
      "input: Field required",
    );
    expect(server.remaining).toHaveLength(1);
  });
});
