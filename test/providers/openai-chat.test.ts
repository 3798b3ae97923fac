import type { ChatCompletionChunk } from "openai/resources/chat/completions";
import { afterEach, describe, expect, test } from "vitest";
import type { ModelStreamEvent } from "../../src/engine/messages.js";
import { toChatMessages, translateChatStream } from "../../src/providers/openai-chat.js";
import { COMPAT_SERVERS } from "../../src/providers/openai-compat.js";
import { resolveModel } from "../../src/providers/registry.js";
import { ProviderError } from "../../src/providers/types.js";
import { reply, type ScriptedServer, startScriptedServer } from "../../src/testing/index.js";
import { assistantBlocks, collect, echoTool, turnStream } from "../helpers/loop.js";
import { grammarProblem } from "./grammar.js";

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function ollama(url: string, apiKey?: string) {
  return (
    await resolveModel({
      model: "ollama/qwen3",
      baseURL: `${url}/v1`,
      env: {},
      ...(apiKey ? { apiKey } : {}),
    })
  ).provider;
}

describe("OpenAI Chat provider through the scripted server", () => {
  test("sends the conversation in Chat shape: system first, tool_calls, tool messages, tools, usage option", async () => {
    server = await startScriptedServer({
      steps: [reply().text("Echoing.").tool("Echo", { text: "hi" }, "call_A"), reply().text("ok")],
    });
    const { end } = await collect({
      provider: await ollama(server.url),
      tools: [echoTool()],
      providerModel: "qwen3",
    });
    expect(end.subtype).toBe("success");
    const body = server.requests[1]!.body as Record<string, unknown>;
    expect(body).toMatchObject({
      model: "qwen3",
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 16_384,
      tools: [
        {
          type: "function",
          function: {
            name: "Echo",
            description: "echoes its text",
            parameters: expect.objectContaining({ type: "object" }),
          },
        },
      ],
    });
    expect(body.messages).toEqual([
      { role: "system", content: "test system prompt" },
      { role: "user", content: "do the thing" },
      {
        role: "assistant",
        content: "Echoing.",
        tool_calls: [
          { id: "call_A", type: "function", function: { name: "Echo", arguments: '{"text":"hi"}' } },
        ],
      },
      { role: "tool", tool_call_id: "call_A", content: "echo: hi" },
    ]);
    // A local server without a key gets no Authorization header at all.
    expect(server.requests[0]!.headers.authorization).toBeUndefined();
  });

  test("--api-key is sent as a bearer token", async () => {
    server = await startScriptedServer({ steps: [reply().text("ok")] });
    await collect({ provider: await ollama(server.url, "sk-local"), tools: [] });
    expect(server.requests[0]!.headers.authorization).toBe("Bearer sk-local");
  });

  test("several tool calls in one message, arguments streamed in fragments, thinking from reasoning_content", async () => {
    server = await startScriptedServer({
      steps: [
        reply()
          .thinking("two echoes")
          .tool("Echo", { text: "first" })
          .tool("Echo", { text: "second, longer" }),
        reply().text("both done"),
      ],
      chunkSize: 3,
    });
    const { events, end } = await collect({ provider: await ollama(server.url), tools: [echoTool()] });
    expect(end.subtype).toBe("success");
    const first = turnStream(events, 1);
    expect(grammarProblem(first)).toBeUndefined();
    const starts = first.filter((e) => e.type === "content_block_start").map((e) => e.content_block.type);
    expect(starts).toEqual(["thinking", "tool_use", "tool_use"]);
    const jsonDeltas = first.filter(
      (e) => e.type === "content_block_delta" && e.delta.type === "input_json_delta",
    );
    expect(jsonDeltas.length).toBeGreaterThan(6);
    expect(assistantBlocks(events).slice(0, 3)).toEqual([
      { type: "thinking", thinking: "two echoes", signature: "" },
      { type: "tool_use", id: "call_scripted_0_1", name: "Echo", input: { text: "first" } },
      { type: "tool_use", id: "call_scripted_0_2", name: "Echo", input: { text: "second, longer" } },
    ]);
    const stop = first.find((e) => e.type === "message_delta");
    expect(stop).toMatchObject({ delta: { stop_reason: "tool_use" } });
    const results = (
      server.requests[1]!.body as { messages: { role: string; tool_call_id?: string }[] }
    ).messages.filter((m) => m.role === "tool");
    expect(results.map((m) => m.tool_call_id)).toEqual(["call_scripted_0_1", "call_scripted_0_2"]);
  });

  test("stop reasons and usage (cached tokens split out of the prompt count)", async () => {
    server = await startScriptedServer({
      steps: [
        reply().text("cut").stopReason("max_tokens").usage({
          input_tokens: 50,
          output_tokens: 5,
          cache_read_input_tokens: 40,
          cache_creation_input_tokens: 10,
        }),
      ],
    });
    const { events } = await collect({ provider: await ollama(server.url), tools: [] });
    const end = events.find((e) => e.type === "model_call_end");
    expect(end?.type === "model_call_end" && end.message.stop_reason).toBe("max_tokens");
    expect(end?.type === "model_call_end" && end.message.usage).toEqual({
      input_tokens: 50,
      output_tokens: 5,
      cache_read_input_tokens: 40,
      cache_creation_input_tokens: 10,
    });
  });
});

async function* from<T>(items: T[]): AsyncGenerator<T> {
  for (const item of items) yield item;
}

function chunk(
  delta: Record<string, unknown>,
  finish: string | null = null,
  extra: Record<string, unknown> = {},
) {
  return {
    id: "c1",
    object: "chat.completion.chunk",
    created: 1,
    model: "m",
    choices: [{ index: 0, delta, finish_reason: finish }],
    ...extra,
  } as unknown as ChatCompletionChunk;
}

async function translate(
  chunks: ChatCompletionChunk[],
  signal = new AbortController().signal,
): Promise<ModelStreamEvent[]> {
  const out: ModelStreamEvent[] = [];
  for await (const event of translateChatStream(from(chunks), {
    model: "fallback",
    quirks: COMPAT_SERVERS.ollama,
    signal,
  })) {
    out.push(event);
  }
  return out;
}

describe("translateChatStream (pure)", () => {
  test("`reasoning` (Ollama) is thinking too; text, usage chunk and finish in any order", async () => {
    const events = await translate([
      chunk({ role: "assistant", reasoning: "hmm " }),
      chunk({ reasoning: "ok" }),
      chunk({ content: "Hi" }, "stop"),
      chunk({}, null, {
        choices: [],
        usage: { prompt_tokens: 30, completion_tokens: 4, prompt_tokens_details: { cached_tokens: 20 } },
      }),
    ]);
    expect(grammarProblem(events)).toBeUndefined();
    expect(events.map((e) => (e.type === "content_block_delta" ? e.delta : e.type))).toEqual([
      "message_start",
      "content_block_start",
      { type: "thinking_delta", thinking: "hmm " },
      { type: "thinking_delta", thinking: "ok" },
      "content_block_stop",
      "content_block_start",
      { type: "text_delta", text: "Hi" },
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    expect(events.at(-2)).toEqual({
      type: "message_delta",
      delta: { stop_reason: "end_turn", stop_sequence: null },
      usage: {
        input_tokens: 10,
        output_tokens: 4,
        cache_read_input_tokens: 20,
        cache_creation_input_tokens: 0,
      },
    });
    expect(events[0]).toMatchObject({ type: "message_start", message: { id: "c1", model: "m" } });
  });

  test("a server reusing index 0 for each call, omitting ids, sending object arguments and finish 'stop'", async () => {
    const events = await translate([
      chunk({ tool_calls: [{ index: 0, id: "a", function: { name: "Read", arguments: '{"file' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '_path":"x"}' } }] }),
      chunk({ tool_calls: [{ index: 0, id: "b", function: { name: "Ls", arguments: { path: "." } } }] }),
      chunk({ tool_calls: [{ index: 1, function: { name: "Glob", arguments: '{"pattern":"*"}' } }] }),
      chunk({}, "stop"),
    ]);
    expect(grammarProblem(events)).toBeUndefined();
    const tools = events.flatMap((e) =>
      e.type === "content_block_start" && e.content_block.type === "tool_use" ? [e.content_block] : [],
    );
    expect(tools.map((t) => [t.id, t.name])).toEqual([
      ["a", "Read"],
      ["b", "Ls"],
      [expect.stringMatching(/^call_[0-9a-f]{32}$/), "Glob"],
    ]);
    const json = events.flatMap((e) =>
      e.type === "content_block_delta" && e.delta.type === "input_json_delta"
        ? [[e.index, e.delta.partial_json]]
        : [],
    );
    expect(json).toEqual([
      [0, '{"file'],
      [0, '_path":"x"}'],
      [1, '{"path":"."}'],
      [2, '{"pattern":"*"}'],
    ]);
    expect(events.at(-2)).toMatchObject({ delta: { stop_reason: "tool_use" } });
  });

  test("a stream without finish_reason is a retryable ProviderError; with no chunks at all, a non-retryable one", async () => {
    const cut = await translate([chunk({ content: "partial" })]).catch((e: unknown) => e);
    expect(cut).toBeInstanceOf(ProviderError);
    expect((cut as ProviderError).retryable).toBe(true);
    expect((cut as Error).message).toMatch(/no finish_reason/);
    const empty = await translate([]).catch((e: unknown) => e);
    expect(empty).toBeInstanceOf(ProviderError);
    expect((empty as ProviderError).retryable).toBe(false);
  });

  test("fragments of an earlier call after another block started are refused, not silently merged", async () => {
    const error = await translate([
      chunk({ tool_calls: [{ index: 0, id: "a", function: { name: "Read", arguments: "{" } }] }),
      chunk({ tool_calls: [{ index: 1, id: "b", function: { name: "Ls", arguments: "{}" } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: "}" } }] }),
      chunk({}, "tool_calls"),
    ]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as Error).message).toMatch(/after another block/);
  });

  test("length and content_filter map to max_tokens and refusal", async () => {
    const length = await translate([chunk({ content: "x" }, "length")]);
    expect(length.at(-2)).toMatchObject({ delta: { stop_reason: "max_tokens" } });
    const filtered = await translate([chunk({ content: "x" }, "content_filter")]);
    expect(filtered.at(-2)).toMatchObject({ delta: { stop_reason: "refusal" } });
  });
});

describe("toChatMessages", () => {
  test("tool results come right after the assistant call; text beside them follows; thinking is not sent", () => {
    expect(
      toChatMessages("", [
        { role: "user", content: [{ type: "text", text: "go" }] },
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "secret", signature: "" },
            { type: "tool_use", id: "t1", name: "Read", input: { file_path: "a" } },
          ],
        },
        {
          role: "user",
          content: [
            {
              type: "tool_result",
              tool_use_id: "t1",
              content: [
                { type: "text", text: "line 1" },
                { type: "text", text: "line 2" },
              ],
              is_error: true,
            },
            { type: "text", text: "and also this" },
          ],
        },
        { role: "assistant", content: [{ type: "thinking", thinking: "only thinking", signature: "" }] },
      ]),
    ).toEqual([
      { role: "user", content: "go" },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "t1", type: "function", function: { name: "Read", arguments: '{"file_path":"a"}' } },
        ],
      },
      { role: "tool", tool_call_id: "t1", content: "line 1\nline 2" },
      { role: "user", content: "and also this" },
    ]);
  });
});
