/**
 * query() behaviour beyond the streaming clauses: prompts, options wired to the engine, control
 * methods, errors and cancellation. In-process, against the scripted model server.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import {
  ConfigError,
  InvalidOptionsError,
  type Options,
  query,
  type SDKAssistantMessage,
  type SDKMessage,
  type SDKResultMessage,
  type SDKSystemMessage,
  type SDKUserMessage,
} from "../../src/index.js";
import { findModel } from "../../src/providers/catalog.js";
import { costUSD } from "../../src/providers/cost.js";
import { hang, httpError, reply, type ScriptedServer } from "../../src/testing/index.js";
import {
  baseEnv,
  cleanUp,
  collect,
  envFor,
  labels,
  result,
  runQuery,
  semanticBody,
  startServer,
  textFromDeltas,
  users,
  workspace,
} from "./helpers.js";

afterEach(cleanUp);

const init = (messages: SDKMessage[]): SDKSystemMessage => {
  const first = messages.find((message) => message.type === "system");
  if (first?.type !== "system" || first.subtype !== "init") throw new Error("no system/init");
  return first;
};

type Body = {
  model: string;
  system: string;
  tools: { name: string }[];
  messages: { role: string; content: unknown }[];
};
const body = (server: ScriptedServer, index: number): Body =>
  semanticBody<Body>(server.requests[index]!.body);

/** The key the client sent (`x-api-key`, or a bearer token, depending on the client version). */
const credential = (server: ScriptedServer): string | undefined => {
  const headers = server.requests[0]!.headers;
  return (headers["x-api-key"] as string | undefined) ?? headers.authorization?.replace(/^Bearer /, "");
};

async function until(condition: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

function userMessage(content: SDKUserMessage["message"]["content"]): SDKUserMessage {
  return { type: "user", message: { role: "user", content }, parent_tool_use_id: null, session_id: "" };
}

/** An async iterable of user messages the test feeds one at a time. */
function inputQueue() {
  const pending: SDKUserMessage[] = [];
  let wake: (() => void) | undefined;
  let ended = false;
  return {
    push(text: string) {
      pending.push(userMessage(text));
      wake?.();
    },
    end() {
      ended = true;
      wake?.();
    },
    async *[Symbol.asyncIterator](): AsyncGenerator<SDKUserMessage> {
      while (true) {
        if (pending.length > 0) {
          yield pending.shift()!;
          continue;
        }
        if (ended) return;
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      }
    },
  };
}

/**
 * A streaming-input query whose first message ("first") the test interrupts; once that turn's
 * result is in, "second" is sent and the input ends. `interrupt()` resolves when both turns are over.
 */
function interruptedTurns(server: ScriptedServer, options: Options = {}) {
  const input = inputQueue();
  const q = query({ prompt: input, options: { cwd: workspace(), env: envFor(server), ...options } });
  input.push("first");
  const seen: SDKMessage[] = [];
  const done = (async () => {
    for await (const message of q) {
      seen.push(message);
      if (message.type === "result" && seen.filter((m) => m.type === "result").length === 1) {
        input.push("second");
        input.end();
      }
    }
  })();
  return {
    seen,
    async interrupt() {
      await q.interrupt();
      await done;
    },
  };
}

describe("prompt forms", () => {
  test("a string prompt is one turn; every message carries the session id; sessionId sets it", async () => {
    const { messages, server } = await runQuery(
      [reply().text("Hi.")],
      { sessionId: "my-session" },
      "Hello there",
    );
    expect(labels(messages)).toEqual(["system/init", "assistant/text", "result/success"]);
    for (const message of messages) expect((message as { session_id: string }).session_id).toBe("my-session");
    expect(body(server, 0).messages).toEqual([{ role: "user", content: "Hello there" }]);
  });

  test("streaming input: one result per user message, in one continuing conversation", async () => {
    const server = await startServer([reply().text("Paris."), reply().text("About 2 million.")]);
    const input = inputQueue();
    const q = query({ prompt: input, options: { cwd: workspace(), env: envFor(server) } });
    input.push("Capital of France?");
    const seen: SDKMessage[] = [];
    for await (const message of q) {
      seen.push(message);
      if (message.type === "result" && seen.filter((m) => m.type === "result").length === 1) {
        input.push("Its population?");
        input.end();
      }
    }
    expect(labels(seen)).toEqual([
      "system/init",
      "assistant/text",
      "result/success",
      "system/init",
      "assistant/text",
      "result/success",
    ]);
    const ids = new Set(seen.map((m) => (m as { session_id: string }).session_id));
    expect(ids.size).toBe(1);
    expect(body(server, 1).messages).toEqual([
      { role: "user", content: "Capital of France?" },
      { role: "assistant", content: [{ type: "text", text: "Paris." }] },
      { role: "user", content: "Its population?" },
    ]);
    const results = seen.filter((m): m is SDKResultMessage => m.type === "result");
    expect(results.map((r) => r.subtype === "success" && r.result)).toEqual(["Paris.", "About 2 million."]);
    // The convention: total_cost_usd and modelUsage are the query's so far (read the latest, never
    // sum); usage is the turn's. Each result covered its own turn only before.
    const [first, second] = results as [SDKResultMessage, SDKResultMessage];
    const firstModel = Object.values(first.modelUsage)[0]!;
    const secondModel = Object.values(second.modelUsage)[0]!;
    expect(second.total_cost_usd).toBeGreaterThan(first.total_cost_usd);
    expect(secondModel.costUSD).toBeCloseTo(second.total_cost_usd, 12);
    expect(secondModel.inputTokens).toBe(firstModel.inputTokens + second.usage.input_tokens);
    expect(second.total_cost_usd - first.total_cost_usd).toBeCloseTo(
      secondModel.costUSD - firstModel.costUSD,
      12,
    );
  });

  test("streaming input accepts text blocks; a malformed block makes the iterator throw, naming it", async () => {
    const server = await startServer([reply().text("ok")]);
    async function* input() {
      yield userMessage([
        { type: "text", text: "part one" },
        { type: "text", text: "part two" },
      ]);
      yield userMessage([{ type: "image", source: {} } as never]);
    }
    const seen: SDKMessage[] = [];
    await expect(async () => {
      for await (const message of query({
        prompt: input(),
        options: { cwd: workspace(), env: envFor(server) },
      })) {
        seen.push(message);
      }
    }).rejects.toThrow(/content\[0\]: an image block needs source/);
    expect(labels(seen)).toEqual(["system/init", "assistant/text", "result/success"]);
    expect(body(server, 0).messages[0]!.content).toBe("part one\n\npart two");
  });

  test("an invalid prompt throws synchronously", () => {
    expect(() => query({ prompt: 42 as never })).toThrow(TypeError);
    expect(() => query({ prompt: "" })).toThrow(/must not be empty/);
    expect(() => query(undefined as never)).toThrow(TypeError);
  });
});

describe("options reach the engine", () => {
  test("model: provider/model is sent to the provider and reported in init and modelUsage", async () => {
    const { messages, server } = await runQuery(
      [reply().text("ok").usage({ input_tokens: 7, output_tokens: 3 })],
      {
        model: "anthropic/claude-opus-5",
      },
    );
    expect(body(server, 0).model).toBe("claude-opus-5");
    expect(init(messages).model).toBe("anthropic/claude-opus-5");
    const end = result(messages);
    const expectedCost = costUSD("anthropic/claude-opus-5", { input_tokens: 7, output_tokens: 3 })!;
    expect(expectedCost).toBeGreaterThan(0);
    expect(end.modelUsage).toEqual({
      "claude-opus-5": {
        inputTokens: 7,
        outputTokens: 3,
        cacheReadInputTokens: 0,
        cacheCreationInputTokens: 0,
        webSearchRequests: 0,
        costUSD: expectedCost,
        contextWindow: findModel("claude-opus-5")!.contextWindow,
        maxOutputTokens: findModel("claude-opus-5")!.maxOutput,
      },
    });
    expect(end.usage).toEqual({
      input_tokens: 7,
      output_tokens: 3,
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 0,
    });
    expect(end.total_cost_usd).toBeCloseTo(expectedCost, 12);
    expect(end.stop_reason).toBe("end_turn");
  });

  test("with no model, the default resolution from env applies (as the CLI)", async () => {
    const { messages, server } = await runQuery([reply().text("ok")]);
    expect(init(messages).model).toMatch(/^anthropic\/claude-/);
    expect(init(messages).apiKeySource).toBe("ANTHROPIC_API_KEY");
    expect(credential(server)).toBe("test");
  });

  test("apiKey and baseURL point one query at an endpoint without any env", async () => {
    const server = await startServer([reply().text("ok")]);
    const messages = await collect(
      query({
        prompt: "Go",
        options: { cwd: workspace(), env: baseEnv(), apiKey: "sk-option", baseURL: server.url },
      }),
    );
    expect(result(messages).subtype).toBe("success");
    expect(init(messages).apiKeySource).toBe("option");
    expect(credential(server)).toBe("sk-option");
  });

  test("env replaces process.env for the model and, without credentials, for tool commands", async () => {
    const server = await startServer([
      reply().tool("Bash", { command: 'echo "key=[$ANTHROPIC_API_KEY] extra=[$EXTRA]"' }),
      reply().text("done"),
    ]);
    const messages = await collect(
      query({ prompt: "Go", options: { cwd: workspace(), env: { ...envFor(server), EXTRA: "yes" } } }),
    );
    const [toolResult] = users(messages);
    expect(toolResult!.tool_use_result).toMatchObject({ stdout: "key=[] extra=[yes]\n", exitCode: 0 });
    expect(process.env.EXTRA).toBeUndefined();
  });

  test("systemPrompt: a string replaces cairn's prompt; an array is joined; the preset appends", async () => {
    const replaced = await runQuery([reply().text("ok")], { systemPrompt: "You are terse." });
    expect(body(replaced.server, 0).system).toBe("You are terse.");

    const joined = await runQuery([reply().text("ok")], {
      systemPrompt: ["Part A.", "__SYSTEM_PROMPT_DYNAMIC_BOUNDARY__", "Part B."],
    });
    expect(body(joined.server, 0).system).toBe("Part A.\n\nPart B.");

    const custom = await runQuery([reply().text("ok")], {
      systemPrompt: { type: "custom", prompt: "Custom." },
    });
    expect(body(custom.server, 0).system).toBe("Custom.");

    const preset = await runQuery([reply().text("ok")], {
      systemPrompt: { type: "preset", preset: "claude_code", append: "Always answer in French." },
    });
    const system = body(preset.server, 0).system;
    expect(system).toContain("You are cairn");
    expect(system.endsWith("Always answer in French.")).toBe(true);

    const omitted = await runQuery([reply().text("ok")]);
    expect(body(omitted.server, 0).system).toContain("You are cairn");
  });

  test("tools sets the base set; disallowedTools removes bare-named tools (a rule form only denies calls)", async () => {
    const only = await runQuery([reply().text("ok")], { tools: ["Read", "Grep"] });
    expect(init(only.messages).tools).toEqual(["Read", "Grep"]);
    expect(body(only.server, 0).tools.map((t) => t.name)).toEqual(["Read", "Grep"]);

    const none = await runQuery([reply().text("ok")], { tools: [] });
    expect(init(none.messages).tools).toEqual([]);

    const removed = await runQuery([reply().text("ok")], { disallowedTools: ["Write", "Bash(rm:*)"] });
    const names = init(removed.messages).tools;
    expect(names).toContain("Read");
    expect(names).not.toContain("Write");
    // Denies `rm` commands only (test/sdk/permissions.test.ts); the tool stays.
    expect(names).toContain("Bash");
    expect(body(removed.server, 0).tools.map((t) => t.name)).toEqual(names);

    expect(() => query({ prompt: "x", options: { tools: ["Reed"] } })).toThrow(
      /no built-in tool named "Reed"/,
    );
  });

  test("permissionMode is reported in init; omitted, it is default (enforcement: permissions.test.ts)", async () => {
    const { messages } = await runQuery([reply().text("ok")], { permissionMode: "acceptEdits" });
    expect(init(messages).permissionMode).toBe("acceptEdits");
    const plain = await runQuery([reply().text("ok")]);
    expect(init(plain.messages).permissionMode).toBe("default");
  });

  test("maxTurns ends the turn with error_max_turns and says why", async () => {
    const { messages, server } = await runQuery(
      [
        reply().tool("Glob", { pattern: "*" }),
        reply().tool("Glob", { pattern: "*.md" }),
        reply().text("never"),
      ],
      { maxTurns: 2 },
    );
    const end = result(messages);
    expect(end).toMatchObject({ subtype: "error_max_turns", is_error: true, num_turns: 2 });
    expect(end.subtype !== "success" && end.errors).toEqual(["Reached the maximum number of turns (2)."]);
    expect("result" in end).toBe(false);
    expect(server.requests).toHaveLength(2);
  });
});

describe("errors", () => {
  test("a provider failure: an assistant message with error, then an error result saying why; the iterator finishes normally", async () => {
    const { messages, server } = await runQuery([httpError(401, { message: "invalid x-api-key" })]);
    expect(labels(messages)).toEqual(["system/init", "assistant/text", "result/error_during_execution"]);
    const standIn = messages[1];
    expect(standIn).toMatchObject({
      type: "assistant",
      error: "authentication_failed",
      parent_tool_use_id: null,
    });
    expect(standIn?.type === "assistant" && standIn.message.content[0]).toMatchObject({
      type: "text",
      text: expect.stringMatching(/^API Error: .*401/),
    });
    const end = result(messages);
    expect(end.is_error).toBe(true);
    expect(end.subtype !== "success" && end.errors.join(" ")).toMatch(/401/);
    expect(server.requests).toHaveLength(1);
  });

  test("a retried model call still ends in success, with the text once", async () => {
    const { messages } = await runQuery([httpError(529, { retryAfter: 0 }), reply().text("Recovered.")], {
      includePartialMessages: true,
    });
    expect(result(messages)).toMatchObject({ subtype: "success", result: "Recovered." });
    const retries = messages.filter((m) => m.type === "system" && m.subtype === "api_retry");
    for (const retry of retries)
      expect(retry).toMatchObject({ error_status: 529, error: "overloaded", attempt: 1 });
    expect(textFromDeltas(messages)).toBe("Recovered.");
  });

  test("a configuration error rejects the first next() before any message", async () => {
    const q = query({ prompt: "Go", options: { cwd: workspace(), env: baseEnv() } });
    await expect(q.next()).rejects.toThrow(ConfigError);
    await expect(q.next()).resolves.toEqual({ done: true, value: undefined });

    const unknown = query({
      prompt: "Go",
      options: { cwd: workspace(), env: baseEnv(), model: "nope/model-x" },
    });
    await expect(unknown.next()).rejects.toThrow(/Unknown provider "nope"/);
  });

  test("invalid options throw synchronously, naming the option", () => {
    expect(() => query({ prompt: "x", options: { maxTurns: 0 } })).toThrow(InvalidOptionsError);
    expect(() => query({ prompt: "x", options: { maxTurns: 0 } })).toThrow(/"maxTurns"/);
    expect(() => query({ prompt: "x", options: { allowedTools: "Bash" } as never })).toThrow(
      /invalid option "allowedTools": expected array/,
    );
  });
});

describe("cancellation", () => {
  test("abortController: the turn ends with an error result and the iterator finishes", async () => {
    const server = await startServer([hang()]);
    const abortController = new AbortController();
    const done = collect(
      query({ prompt: "Go", options: { cwd: workspace(), env: envFor(server), abortController } }),
    );
    await until(() => server.requests.length === 1);
    abortController.abort();
    const messages = await done;
    expect(labels(messages)).toEqual(["system/init", "result/error_during_execution"]);
    expect(result(messages).subtype !== "success" && result(messages)).toMatchObject({
      is_error: true,
      errors: ["The run was interrupted."],
    });
  });

  test("an already-aborted controller: init, then an error result, and no model call", async () => {
    const server = await startServer([reply().text("never")]);
    const abortController = new AbortController();
    abortController.abort();
    const messages = await collect(
      query({ prompt: "Go", options: { cwd: workspace(), env: envFor(server), abortController } }),
    );
    expect(labels(messages)).toEqual(["system/init", "result/error_during_execution"]);
    expect(server.requests).toHaveLength(0);
  });

  test("interrupt() ends the current turn; with streaming input the next message starts the next turn", async () => {
    const server = await startServer([hang(), reply().text("Back again.")]);
    const input = inputQueue();
    const q = query({ prompt: input, options: { cwd: workspace(), env: envFor(server) } });
    input.push("first");
    const seen: SDKMessage[] = [];
    const done = (async () => {
      for await (const message of q) {
        seen.push(message);
        if (message.type === "result") {
          if (seen.filter((m) => m.type === "result").length === 1) {
            input.push("second");
            input.end();
          }
        }
      }
    })();
    await until(() => server.requests.length === 1);
    await expect(q.interrupt()).resolves.toBeUndefined();
    await done;
    expect(labels(seen)).toEqual([
      "system/init",
      "result/error_during_execution",
      "system/init",
      "assistant/text",
      "result/success",
    ]);
    // The interrupted prompt stays in the conversation, with the reference's note (nothing was streamed).
    expect(body(server, 1).messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "first" },
          { type: "text", text: "[Request interrupted by user]" },
          { type: "text", text: "second" },
        ],
      },
    ]);
  });

  test("interrupt() mid-answer: the next request keeps what was streamed and tells the model the user interrupted", async () => {
    const server = await startServer([
      // Finished thinking, then text cut off after its first chunk ("Partial answer, "): the rest never comes.
      reply().thinking("Weighing it.").text("Partial answer, then the rest.").stall(7, 600_000),
      reply().text("Back again."),
    ]);
    const turns = interruptedTurns(server, { includePartialMessages: true });
    await until(() => textFromDeltas(turns.seen) === "Partial answer, ");
    await turns.interrupt();
    expect(labels(turns.seen).filter((label) => label.startsWith("result"))).toEqual([
      "result/error_during_execution",
      "result/success",
    ]);
    // What the reference sends: the answer as far as it was shown, then its note, then the next prompt.
    expect(body(server, 1).messages).toEqual([
      { role: "user", content: "first" },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "Weighing it.", signature: "scripted" },
          { type: "text", text: "Partial answer, " },
        ],
      },
      {
        role: "user",
        content: [
          { type: "text", text: "[Request interrupted by user]" },
          { type: "text", text: "second" },
        ],
      },
    ]);
  });

  test("interrupt() mid tool-call input: the text before it is kept, the call cut short is not", async () => {
    const server = await startServer([
      reply().text("Let me look.").tool("Read", { file_path: "a-rather-long-name.txt" }).stall(6, 600_000),
      reply().text("Back again."),
    ]);
    const turns = interruptedTurns(server, { includePartialMessages: true });
    const toolInput = (message: SDKMessage) =>
      message.type === "stream_event" &&
      message.event.type === "content_block_delta" &&
      message.event.delta.type === "input_json_delta";
    await until(() => turns.seen.some(toolInput));
    await turns.interrupt();
    expect(body(server, 1).messages).toEqual([
      { role: "user", content: "first" },
      { role: "assistant", content: [{ type: "text", text: "Let me look." }] },
      {
        role: "user",
        content: [
          { type: "text", text: "[Request interrupted by user]" },
          { type: "text", text: "second" },
        ],
      },
    ]);
  });

  test("interrupt() while a tool runs: the call keeps its result, and the note says the user interrupted tool use", async () => {
    const cwd = workspace();
    const server = await startServer([
      reply().text("Running it.").tool("Bash", { command: "touch started; sleep 30" }, "toolu_wait"),
      reply().text("Back again."),
    ]);
    const turns = interruptedTurns(server, { cwd, permissionMode: "bypassPermissions" });
    await until(() => existsSync(join(cwd, "started")), 20_000);
    await turns.interrupt();
    const messages = body(server, 1).messages;
    expect(messages.slice(0, 2)).toEqual([
      { role: "user", content: "first" },
      {
        role: "assistant",
        content: [
          { type: "text", text: "Running it." },
          { type: "tool_use", id: "toolu_wait", name: "Bash", input: { command: "touch started; sleep 30" } },
        ],
      },
    ]);
    expect(messages[2]).toMatchObject({
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "toolu_wait", is_error: true },
        { type: "text", text: "[Request interrupted by user for tool use]" },
      ],
    });
    expect(messages.slice(3)).toEqual([{ role: "user", content: "second" }]);
  });

  test("close() ends the query at once: no result, the iterator finishes, the prompt iterable is released", async () => {
    const server = await startServer([hang()]);
    let released = false;
    async function* input() {
      try {
        yield userMessage("first");
        await new Promise(() => {});
      } finally {
        released = true;
      }
    }
    const q = query({ prompt: input(), options: { cwd: workspace(), env: envFor(server) } });
    const done = collect(q);
    await until(() => server.requests.length === 1);
    q.close();
    const messages = await done;
    expect(labels(messages)).toEqual(["system/init"]);
    q.close();
    await expect(q.next()).resolves.toEqual({ done: true, value: undefined });
    expect(released).toBe(true);
  });

  test("break stops the run: the model stream is abandoned and nothing more is requested", async () => {
    const server = await startServer(
      [reply().text("x".repeat(800)).delayPerEvent(25), reply().text("never")],
      {
        chunkSize: 4,
      },
    );
    const q = query({
      prompt: "Go",
      options: { cwd: workspace(), env: envFor(server), includePartialMessages: true },
    });
    let seen = 0;
    const started = Date.now();
    for await (const message of q) {
      if (message.type === "stream_event" && message.event.type === "content_block_delta") {
        seen += 1;
        if (seen === 3) break;
      }
    }
    // The whole reply would take about 5 s.
    expect(Date.now() - started).toBeLessThan(2500);
    await expect(q.next()).resolves.toEqual({ done: true, value: undefined });
    expect(server.requests).toHaveLength(1);
  });

  test("return() before iterating is harmless", async () => {
    const q = query({ prompt: "Go", options: { cwd: workspace(), env: baseEnv() } });
    await expect(q.return()).resolves.toEqual({ done: true, value: undefined });
  });
});

describe("control methods", () => {
  test("setModel takes effect from the next turn; setPermissionMode shows in the next init", async () => {
    const server = await startServer([reply().text("one"), reply().text("two")]);
    const input = inputQueue();
    const q = query({ prompt: input, options: { cwd: workspace(), env: envFor(server) } });
    input.push("first");
    const inits: SDKSystemMessage[] = [];
    for await (const message of q) {
      if (message.type === "system" && message.subtype === "init") inits.push(message);
      if (message.type === "result" && inits.length === 1) {
        await q.setModel("anthropic/claude-haiku-5-5");
        await expect(q.setPermissionMode("plan")).resolves.toEqual({ mode: "plan" });
        input.push("second");
        input.end();
      }
    }
    expect(inits.map((m) => [m.model, m.permissionMode])).toEqual([
      [expect.stringMatching(/^anthropic\/claude-/), "default"],
      ["anthropic/claude-haiku-5-5", "plan"],
    ]);
    expect(body(server, 1).model).toBe("claude-haiku-5-5");
  });

  test('setModel("opus") from the next turn: sent and reported as the full id', async () => {
    const server = await startServer([reply().text("one"), reply().text("two")]);
    const input = inputQueue();
    const q = query({ prompt: input, options: { cwd: workspace(), env: envFor(server), model: "sonnet" } });
    input.push("first");
    const inits: SDKSystemMessage[] = [];
    for await (const message of q) {
      if (message.type === "system" && message.subtype === "init") inits.push(message);
      if (message.type === "result" && inits.length === 1) {
        await q.setModel("opus");
        input.push("second");
        input.end();
      }
    }
    expect(inits.map((m) => m.model)).toEqual(["claude-sonnet-5-5", "claude-opus-5-5"]);
    expect([body(server, 0).model, body(server, 1).model]).toEqual(["claude-sonnet-5-5", "claude-opus-5-5"]);
  });

  test("setModel rejects a model that cannot be used; setPermissionMode rejects an unknown mode", async () => {
    const q = query({ prompt: "Go", options: { cwd: workspace(), env: baseEnv() } });
    await expect(q.setModel("nope/x")).rejects.toThrow(ConfigError);
    await expect(q.setModel("anthropic/claude-haiku-5-5")).rejects.toThrow(/API key/);
    await expect(q.setModel()).resolves.toBeUndefined();
    await expect(q.setPermissionMode("yolo" as never)).rejects.toThrow(InvalidOptionsError);
    q.close();
  });

  test("supportedModels, supportedCommands, supportedAgents, mcpServerStatus", async () => {
    const q = query({ prompt: "Go", options: { cwd: workspace(), env: baseEnv() } });
    const models = await q.supportedModels();
    // `default` first, as in Claude Code: a program that takes the first entry keeps the configured model.
    expect(models[0]).toMatchObject({ value: "default", displayName: "Default" });
    expect(models[1]).toEqual({
      value: expect.stringMatching(/^anthropic\//),
      displayName: expect.any(String),
      description: expect.any(String),
    });
    expect((await q.supportedCommands()).map((command) => command.name)).toEqual(["compact"]);
    expect(await q.supportedAgents()).toEqual([]);
    expect(await q.mcpServerStatus()).toEqual([]);
    q.close();
  });
});

describe("messages are the consumer's own", () => {
  test("mutating a yielded message does not change the conversation sent to the model", async () => {
    const server = await startServer([
      reply().text("Original.").tool("Glob", { pattern: "*" }),
      reply().text("ok"),
    ]);
    for await (const message of query({
      prompt: "Go",
      options: { cwd: workspace(), env: envFor(server), includePartialMessages: true },
    })) {
      if (message.type === "assistant") {
        const block = (message as SDKAssistantMessage).message.content[0]!;
        if (block.type === "text") block.text = "Tampered.";
        if (block.type === "tool_use") block.input.pattern = "tampered";
      }
      if (message.type === "stream_event" && message.event.type === "content_block_delta") {
        if (message.event.delta.type === "text_delta") message.event.delta.text = "!";
      }
    }
    const sent = JSON.stringify(body(server, 1).messages);
    expect(sent).toContain("Original.");
    expect(sent).not.toContain("Tampered");
    expect(sent).not.toContain("tampered");
  });
});
