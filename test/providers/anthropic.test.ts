import { afterEach, describe, expect, test } from "vitest";
import type { ConversationMessage } from "../../src/engine/messages.js";
import { AnthropicProvider, withCacheBreakpoints } from "../../src/providers/anthropic.js";
import { resolveModel } from "../../src/providers/registry.js";
import { ReplayProvider } from "../../src/providers/replay.js";
import { ProviderError } from "../../src/providers/types.js";
import { httpError, reply, type ScriptedServer, startScriptedServer } from "../../src/testing/index.js";
import { collect, echoTool } from "../helpers/loop.js";

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function provider(url: string, promptCaching = false) {
  return new AnthropicProvider({
    model: "claude-sonnet-5-5",
    displayName: "Claude Sonnet 5.5",
    apiKey: "k",
    apiKeySource: "env",
    baseURL: url,
    promptCaching,
  });
}

describe("Anthropic prompt caching", () => {
  test("breakpoints on the system prompt and the conversation so far; second turn reads the cache", async () => {
    server = await startScriptedServer({
      steps: [
        reply()
          .tool("Echo", { text: "a" })
          .usage({ input_tokens: 20, cache_creation_input_tokens: 3000, output_tokens: 5 }),
        reply().text("done").usage({ input_tokens: 30, cache_read_input_tokens: 3000, output_tokens: 2 }),
      ],
    });
    const history: ConversationMessage[] = [];
    const { end } = await collect({ provider: provider(server.url, true), tools: [echoTool()], history });
    expect(end.subtype).toBe("success");
    const first = server.requests[0]!.body as { system: unknown; messages: { content: unknown }[] };
    expect(first.system).toEqual([
      { type: "text", text: "test system prompt", cache_control: { type: "ephemeral" } },
    ]);
    expect(first.messages).toEqual([
      {
        role: "user",
        content: [{ type: "text", text: "do the thing", cache_control: { type: "ephemeral" } }],
      },
    ]);
    const second = server.requests[1]!.body as { messages: { role: string; content: unknown }[] };
    expect(second.messages[0]).toEqual({ role: "user", content: "do the thing" });
    expect(second.messages[2]!.content).toEqual([
      expect.objectContaining({ type: "tool_result", cache_control: { type: "ephemeral" } }),
    ]);
    // The engine's history is untouched (no cache_control leaks into transcripts).
    expect(JSON.stringify(history)).not.toContain("cache_control");
    expect(end.usage).toMatchObject({ cache_creation_input_tokens: 3000, cache_read_input_tokens: 3000 });
  });

  test("off by default: the system prompt stays a plain string; the registry enables it on request", async () => {
    server = await startScriptedServer({ steps: [reply().text("a"), reply().text("b")] });
    await collect({ provider: provider(server.url), tools: [] });
    expect((server.requests[0]!.body as { system: unknown }).system).toBe("test system prompt");
    const cached = await resolveModel({
      model: "anthropic/claude-haiku-5-5",
      promptCaching: true,
      env: { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: server.url },
    });
    await collect({ provider: cached.provider, tools: [] });
    expect((server.requests[1]!.body as { system: unknown }).system).toEqual([
      expect.objectContaining({ cache_control: { type: "ephemeral" } }),
    ]);
  });

  test("only a trailing user text or tool_result block is marked", () => {
    const { messages, system } = withCacheBreakpoints({
      system: "",
      messages: [
        { role: "user", content: "q" },
        { role: "assistant", content: [{ type: "text", text: "a" }] },
      ],
    });
    expect(system).toEqual([]);
    expect(JSON.stringify(messages)).not.toContain("cache_control");
  });
});

describe("Anthropic client settings", () => {
  test("the client never retries by itself (the engine does)", async () => {
    server = await startScriptedServer({ steps: [httpError(529), reply().text("x")] });
    const response = provider(server.url).stream(
      { model: "m", system: "", messages: [{ role: "user", content: "hi" }], tools: [], maxTokens: 5 },
      new AbortController().signal,
    );
    await expect(response).rejects.toBeInstanceOf(ProviderError);
    expect(server.requests).toHaveLength(1);
  });

  test("replay error steps carry Retry-After like the HTTP wires", async () => {
    const replay = new ReplayProvider({ version: 1, steps: [httpError(429, { retryAfter: 1.5 })] }, "s.json");
    const error = await replay
      .stream({ model: "m", system: "", messages: [], tools: [], maxTokens: 1 }, new AbortController().signal)
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 429, retryAfterMs: 1500, retryable: true });
  });
});
