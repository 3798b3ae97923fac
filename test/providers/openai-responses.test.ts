import type { ResponseStreamEvent } from "openai/resources/responses/responses";
import { afterEach, describe, expect, test } from "vitest";
import type { ModelStreamEvent } from "../../src/engine/messages.js";
import {
  OpenAIResponsesProvider,
  toResponsesInput,
  translateResponsesStream,
} from "../../src/providers/openai-responses.js";
import { ProviderError } from "../../src/providers/types.js";
import { reply, type ScriptedServer, startScriptedServer } from "../../src/testing/index.js";
import { assistantBlocks, collect, echoTool, turnStream } from "../helpers/loop.js";
import { grammarProblem } from "./grammar.js";

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function provider(url: string, reasoningSummaries = false) {
  return new OpenAIResponsesProvider({
    displayName: "GPT",
    apiKey: "sk-test",
    apiKeySource: "env",
    baseURL: `${url}/v1`,
    reasoningSummaries,
  });
}

describe("OpenAI Responses provider through the scripted server", () => {
  test("sends instructions, input items in order, function tools, store: false", async () => {
    server = await startScriptedServer({
      steps: [reply().text("Echoing.").tool("Echo", { text: "hi" }, "call_A"), reply().text("ok")],
    });
    const { end } = await collect({
      provider: provider(server.url, true),
      tools: [echoTool()],
      providerModel: "gpt-5",
    });
    expect(end.subtype).toBe("success");
    expect(server.requests.map((r) => r.path)).toEqual(["/v1/responses", "/v1/responses"]);
    expect(server.requests[0]!.headers.authorization).toBe("Bearer sk-test");
    const body = server.requests[1]!.body as Record<string, unknown>;
    expect(body).toMatchObject({
      model: "gpt-5",
      instructions: "test system prompt",
      stream: true,
      store: false,
      max_output_tokens: 16_384,
      reasoning: { summary: "auto" },
      tools: [
        {
          type: "function",
          name: "Echo",
          description: "echoes its text",
          strict: false,
          parameters: expect.objectContaining({ type: "object" }),
        },
      ],
    });
    expect(body.input).toEqual([
      { role: "user", content: "do the thing" },
      { role: "assistant", content: "Echoing." },
      { type: "function_call", call_id: "call_A", name: "Echo", arguments: '{"text":"hi"}' },
      { type: "function_call_output", call_id: "call_A", output: "echo: hi" },
    ]);
  });

  test("no reasoning parameter for models that are not reasoning models", async () => {
    server = await startScriptedServer({ steps: [reply().text("ok")] });
    await collect({ provider: provider(server.url, false), tools: [] });
    expect(server.requests[0]!.body).not.toHaveProperty("reasoning");
  });

  test("reasoning summary → thinking; several calls with streamed argument fragments", async () => {
    server = await startScriptedServer({
      steps: [
        reply()
          .thinking("plan: echo twice")
          .text("Two calls.")
          .tool("Echo", { text: "one" })
          .tool("Echo", { text: "two" }),
        reply().text("done"),
      ],
      chunkSize: 4,
    });
    const { events, end } = await collect({ provider: provider(server.url), tools: [echoTool()] });
    expect(end.subtype).toBe("success");
    const first = turnStream(events, 1);
    expect(grammarProblem(first)).toBeUndefined();
    expect(
      first.filter((e) => e.type === "content_block_delta" && e.delta.type === "input_json_delta").length,
    ).toBeGreaterThan(4);
    expect(assistantBlocks(events).slice(0, 4)).toEqual([
      { type: "thinking", thinking: "plan: echo twice", signature: "" },
      { type: "text", text: "Two calls." },
      { type: "tool_use", id: "call_scripted_0_2", name: "Echo", input: { text: "one" } },
      { type: "tool_use", id: "call_scripted_0_3", name: "Echo", input: { text: "two" } },
    ]);
    expect(first[0]).toMatchObject({
      type: "message_start",
      message: { id: "resp_scripted_1", model: "scripted-model" },
    });
    expect(end.requestId).toMatch(/^req_scripted_/);
  });

  test("an incomplete response (max_output_tokens) stops with max_tokens; usage in Anthropic naming", async () => {
    server = await startScriptedServer({
      steps: [
        reply().text("trunc").stopReason("max_tokens").usage({
          input_tokens: 7,
          output_tokens: 3,
          cache_read_input_tokens: 90,
          cache_creation_input_tokens: 3,
        }),
      ],
    });
    const { events } = await collect({ provider: provider(server.url), tools: [] });
    const call = events.find((e) => e.type === "model_call_end");
    expect(call?.type === "model_call_end" && call.message.stop_reason).toBe("max_tokens");
    expect(call?.type === "model_call_end" && call.message.usage).toEqual({
      input_tokens: 7,
      output_tokens: 3,
      cache_read_input_tokens: 90,
      cache_creation_input_tokens: 3,
    });
  });
});

async function* from(items: unknown[]): AsyncGenerator<ResponseStreamEvent> {
  for (const item of items) yield item as ResponseStreamEvent;
}

async function translate(items: unknown[]): Promise<ModelStreamEvent[]> {
  const out: ModelStreamEvent[] = [];
  for await (const event of translateResponsesStream(from(items), {
    model: "m",
    signal: new AbortController().signal,
  })) {
    out.push(event);
  }
  return out;
}

const created = { type: "response.created", response: { id: "resp_1", model: "gpt-x" } };
const completed = (
  usage: unknown = { input_tokens: 10, output_tokens: 2, input_tokens_details: { cached_tokens: 4 } },
) => ({
  type: "response.completed",
  response: { id: "resp_1", model: "gpt-x", usage, incomplete_details: null },
});

describe("translateResponsesStream (pure)", () => {
  test("raw reasoning_text and several summary parts share one thinking block, parts separated", async () => {
    const events = await translate([
      created,
      { type: "response.reasoning_summary_text.delta", item_id: "rs", summary_index: 0, delta: "first" },
      { type: "response.reasoning_summary_text.delta", item_id: "rs", summary_index: 1, delta: "second" },
      { type: "response.reasoning_text.delta", item_id: "rs2", content_index: 0, delta: "raw" },
      completed(),
    ]);
    expect(grammarProblem(events)).toBeUndefined();
    const thinking = events.flatMap((e) =>
      e.type === "content_block_delta" && e.delta.type === "thinking_delta"
        ? [[e.index, e.delta.thinking]]
        : [],
    );
    expect(thinking).toEqual([
      [0, "first"],
      [0, "\n\n"],
      [0, "second"],
      [1, "raw"],
    ]);
    expect(events.at(-2)).toEqual({
      type: "message_delta",
      delta: { stop_reason: "end_turn", stop_sequence: null },
      usage: {
        input_tokens: 6,
        output_tokens: 2,
        cache_read_input_tokens: 4,
        cache_creation_input_tokens: 0,
      },
    });
  });

  test("done events fill in what no delta carried (servers that do not stream deltas)", async () => {
    const events = await translate([
      created,
      { type: "response.output_text.done", item_id: "m1", content_index: 0, text: "whole text" },
      {
        type: "response.output_item.added",
        output_index: 1,
        item: { type: "function_call", id: "fc1", call_id: "c1", name: "Read", arguments: "" },
      },
      {
        type: "response.function_call_arguments.done",
        item_id: "fc1",
        name: "Read",
        arguments: '{"file_path":"a"}',
      },
      {
        type: "response.output_item.done",
        output_index: 1,
        item: {
          type: "function_call",
          id: "fc1",
          call_id: "c1",
          name: "Read",
          arguments: '{"file_path":"a"}',
        },
      },
      completed(),
    ]);
    expect(grammarProblem(events)).toBeUndefined();
    const deltas = events.flatMap((e) => (e.type === "content_block_delta" ? [e.delta] : []));
    expect(deltas).toEqual([
      { type: "text_delta", text: "whole text" },
      { type: "input_json_delta", partial_json: '{"file_path":"a"}' },
    ]);
    expect(events.at(-2)).toMatchObject({ delta: { stop_reason: "tool_use" } });
  });

  test("response.failed and error events throw ProviderErrors; a stream ending early is retryable", async () => {
    const failed = await translate([
      created,
      { type: "response.failed", response: { error: { code: "server_error", message: "boom" } } },
    ]).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(ProviderError);
    expect((failed as ProviderError).retryable).toBe(true);
    expect((failed as Error).message).toContain("boom");

    const errorEvent = await translate([
      created,
      { type: "error", code: "rate_limit_exceeded", message: "slow", param: null },
    ]).catch((e: unknown) => e);
    expect(errorEvent).toBeInstanceOf(ProviderError);
    expect((errorEvent as ProviderError).status).toBe(429);

    const early = await translate([
      created,
      { type: "response.output_text.delta", item_id: "m", content_index: 0, delta: "par" },
    ]).catch((e: unknown) => e);
    expect(early).toBeInstanceOf(ProviderError);
    expect((early as ProviderError).retryable).toBe(true);
  });

  test("a refusal streams as text and stops with refusal", async () => {
    const events = await translate([
      created,
      { type: "response.refusal.delta", item_id: "m", content_index: 0, delta: "I can't help with that." },
      completed(),
    ]);
    expect(events.at(-2)).toMatchObject({ delta: { stop_reason: "refusal" } });
  });
});

describe("toResponsesInput", () => {
  test("keeps the order of text and calls; tool results as function_call_output; thinking dropped", () => {
    expect(
      toResponsesInput([
        { role: "user", content: "go" },
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "t", signature: "" },
            { type: "text", text: "a" },
            { type: "tool_use", id: "c1", name: "Read", input: {} },
            { type: "text", text: "b" },
          ],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "c1", content: "out" },
            { type: "text", text: "more" },
          ],
        },
      ]),
    ).toEqual([
      { role: "user", content: "go" },
      { role: "assistant", content: "a" },
      { type: "function_call", call_id: "c1", name: "Read", arguments: "{}" },
      { role: "assistant", content: "b" },
      { type: "function_call_output", call_id: "c1", output: "out" },
      { role: "user", content: "more" },
    ]);
  });
});
