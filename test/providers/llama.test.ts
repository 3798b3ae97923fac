import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import * as z from "zod";
import type { ModelStreamEvent } from "../../src/engine/messages.js";
import { createLlamaProvider, llamaOptionsFromEnv, unloadLlamaModels } from "../../src/providers/llama.js";
import { ConfigError, type ModelProvider, type ModelRequest } from "../../src/providers/types.js";
import { defineTool } from "../../src/tools/define.js";
import { builtinTools } from "../../src/tools/index.js";
import { readTool } from "../../src/tools/read.js";
import { writeTool } from "../../src/tools/write.js";
import { cleanEnv, spawnCli, workspace } from "../conformance/pm/helpers.js";
import { buildTinyLlama, DEFAULT_SCRIPT, writeTinyLlama } from "../fixtures/tiny-llama.js";
import { collect, echoTool } from "../helpers/loop.js";

/** node-llama-cpp, typed loosely: type-checking must not need the optional package. */
type NodeLlamaCpp = {
  readGgufFileInfo(path: string): Promise<{
    version: number;
    metadata: { general: { architecture: string }; tokenizer: { chat_template?: string } };
  }>;
};
const specifier = "node-llama-cpp";
let lib: NodeLlamaCpp | undefined;
const missing = await (import(specifier) as Promise<NodeLlamaCpp>).then(
  (module) => {
    lib = module;
    return undefined;
  },
  (error: Error) => error.message,
);
if (missing) {
  console.warn(
    `[llama tests] node-llama-cpp (an optional dependency) is not available, so the local GGUF provider tests are skipped: ${missing}`,
  );
}

const dir = mkdtempSync(join(tmpdir(), "cairn-llama-"));
afterAll(async () => {
  await unloadLlamaModels();
  rmSync(dir, { recursive: true, force: true });
});

function request(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    model: "tiny",
    system: "test system prompt",
    messages: [{ role: "user", content: "do the thing" }],
    tools: [],
    maxTokens: 256,
    ...overrides,
  };
}

async function events(provider: ModelProvider, req: ModelRequest, signal = new AbortController().signal) {
  const out: ModelStreamEvent[] = [];
  for await (const event of (await provider.stream(req, signal)).events) out.push(event);
  return out;
}

const textOf = (list: ModelStreamEvent[]) =>
  list
    .map((e) => (e.type === "content_block_delta" && e.delta.type === "text_delta" ? e.delta.text : ""))
    .join("");
const finalDelta = (list: ModelStreamEvent[]) =>
  list.find((e): e is Extract<ModelStreamEvent, { type: "message_delta" }> => e.type === "message_delta")!;

const echoSpec = {
  name: "Echo",
  description: "echoes its text",
  input_schema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
};

describe("createLlamaProvider: bad input", () => {
  test("a missing file, a directory and a non-GGUF file are ConfigErrors naming the path", async () => {
    const missingPath = join(dir, "nope.gguf");
    await expect(createLlamaProvider({ modelPath: missingPath })).rejects.toThrow(ConfigError);
    await expect(createLlamaProvider({ modelPath: missingPath })).rejects.toThrow(/not found: .*nope\.gguf/);
    await expect(createLlamaProvider({ modelPath: dir })).rejects.toThrow(/directory/);
    const text = join(dir, "model.gguf.txt");
    writeFileSync(text, "not a model");
    await expect(createLlamaProvider({ modelPath: text })).rejects.toThrow(/not a GGUF file/);
  });

  test("without node-llama-cpp: a ConfigError that says how to install it", async () => {
    const path = writeTinyLlama(join(dir, "no-lib.gguf"));
    const error = await createLlamaProvider(
      { modelPath: path },
      {
        importModule: () => Promise.reject(new Error("Cannot find package 'node-llama-cpp'")),
      },
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(/optional dependency node-llama-cpp@3\.21\.1/);
    expect((error as Error).message).toMatch(/npm install node-llama-cpp@3\.21\.1/);
  });

  test("options from the environment; invalid values are ConfigErrors", () => {
    expect(llamaOptionsFromEnv({})).toEqual({});
    expect(
      llamaOptionsFromEnv({
        CAIRN_LOCAL_CONTEXT_SIZE: "4096",
        CAIRN_LOCAL_THREADS: " 2 ",
        CAIRN_LOCAL_TEMPERATURE: "0.7",
      }),
    ).toEqual({ contextSize: 4096, threads: 2, temperature: 0.7 });
    expect(() => llamaOptionsFromEnv({ CAIRN_LOCAL_CONTEXT_SIZE: "big" })).toThrow(ConfigError);
    expect(() => llamaOptionsFromEnv({ CAIRN_LOCAL_THREADS: "0" })).toThrow(/positive integer, got "0"/);
    expect(() => llamaOptionsFromEnv({ CAIRN_LOCAL_TEMPERATURE: "-1" })).toThrow(/CAIRN_LOCAL_TEMPERATURE/);
  });

  test("the generated file is GGUF v3 with the tiny llama's metadata", () => {
    const file = buildTinyLlama();
    expect(file.subarray(0, 4).toString("latin1")).toBe("GGUF");
    expect(file.readUInt32LE(4)).toBe(3);
    expect(file.readBigUInt64LE(8)).toBe(12n); // tensors
    expect(file.length).toBeLessThan(1_000_000);
  });
});

describe.skipIf(missing !== undefined)("local GGUF provider (node-llama-cpp, a generated tiny model)", () => {
  const modelPath = join(dir, "tiny.gguf");
  const loopPath = join(dir, "tiny-loop.gguf");
  let provider: ModelProvider;
  let looping: ModelProvider;

  test("loads the model and reads its metadata", async () => {
    writeTinyLlama(modelPath);
    writeTinyLlama(loopPath, { reply: ["Counting", " on"], loopReply: true });
    const info = await lib!.readGgufFileInfo(modelPath);
    expect(info.version).toBe(3);
    expect(info.metadata.general.architecture).toBe("llama");
    expect(info.metadata.tokenizer.chat_template).toContain("<tool_call>");

    provider = await createLlamaProvider({ modelPath, threads: 1 });
    looping = await createLlamaProvider({ modelPath: loopPath, threads: 1, displayName: "Looper" });
    expect(provider.displayName).toBe("cairn tiny test model (local)");
    expect(provider.wire).toBe("llama");
    expect(provider.apiKeySource).toBe("none");
    expect(looping.displayName).toBe("Looper");
    // Cached per path: a second provider reuses the loaded model.
    const again = await createLlamaProvider({ modelPath, threads: 1 });
    expect(again.displayName).toBe(provider.displayName);
  });

  test("streams text as text_delta events in the Anthropic shape and ends the turn", async () => {
    const list = await events(provider, request());
    expect(list.map((e) => e.type)).toEqual([
      "message_start",
      "content_block_start",
      "content_block_delta",
      "content_block_delta",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    expect(textOf(list)).toBe(DEFAULT_SCRIPT.reply.join(""));
    const start = list[0] as Extract<ModelStreamEvent, { type: "message_start" }>;
    expect(start.message).toMatchObject({ role: "assistant", model: "tiny", stop_reason: null });
    const end = finalDelta(list);
    expect(end.delta.stop_reason).toBe("end_turn");
    // "Hello", " from", " GGUF" and the end-of-turn token.
    expect(end.usage.output_tokens).toBe(4);
    expect(end.usage.input_tokens).toBeGreaterThan(20);
  });

  test("a tool call streams as a tool_use block with valid JSON input and stops with tool_use", async () => {
    const list = await events(provider, request({ tools: [echoSpec] }));
    const blockStart = list.find((e) => e.type === "content_block_start");
    expect(blockStart).toMatchObject({ content_block: { type: "tool_use", name: "Echo", input: {} } });
    const fragments = list.flatMap((e) =>
      e.type === "content_block_delta" && e.delta.type === "input_json_delta" ? [e.delta.partial_json] : [],
    );
    expect(fragments.length).toBeGreaterThan(3); // streamed as generated, not in one piece
    expect(JSON.parse(fragments.join(""))).toEqual({ text: DEFAULT_SCRIPT.toolValue });
    expect(textOf(list)).toBe("");
    expect(finalDelta(list).delta.stop_reason).toBe("tool_use");
    expect(list.at(-1)).toEqual({ type: "message_stop" });
  });

  test("the engine loop runs the tool, feeds its result back, and gets the answer", async () => {
    const { events: engineEvents, end } = await collect({ provider, tools: [echoTool()] });
    expect(end.subtype).toBe("success");
    expect(end.numTurns).toBe(2);
    const toolEnd = engineEvents.find((e) => e.type === "tool_end");
    expect(toolEnd).toMatchObject({ name: "Echo", input: { text: "hi" }, outcome: { content: "echo: hi" } });
    expect(end.finalText).toBe(DEFAULT_SCRIPT.answer.join(""));
    expect(end.usage.output_tokens).toBeGreaterThan(0);
    // The second call reuses the first call's prompt from the KV cache.
    const calls = engineEvents.filter((e) => e.type === "model_call_end");
    expect(calls[1]).toMatchObject({ message: { usage: { cache_read_input_tokens: expect.any(Number) } } });
    const second = (calls[1] as Extract<(typeof calls)[number], { type: "model_call_end" }>).message.usage;
    expect(second.cache_read_input_tokens).toBeGreaterThan(100);
    expect(second.input_tokens).toBeLessThan(100);
  });

  test("the scenario through the real tools: read a file, write a file, answer", async () => {
    const work = mkdtempSync(join(dir, "work-"));
    writeFileSync(join(work, "notes.txt"), "first line\n");
    const scripted = await createLlamaProvider({
      modelPath: writeTinyLlama(join(dir, "tiny-rw.gguf"), {
        calls: ["Read", "Write"],
        toolValue: "notes.txt",
        answer: ["Wrote", " it"],
      }),
      threads: 1,
    });
    const { events: engineEvents, end } = await collect({
      provider: scripted,
      tools: [readTool, writeTool],
      cwd: work,
    });
    expect(end.subtype).toBe("success");
    expect(end.numTurns).toBe(3);
    const ends = engineEvents.filter((e) => e.type === "tool_end");
    expect(ends.map((e) => [e.name, e.input, e.outcome.isError])).toEqual([
      ["Read", { file_path: "notes.txt" }, false],
      ["Write", { file_path: "notes.txt", content: "notes.txt" }, false],
    ]);
    expect(ends[0]!.outcome.content).toContain("first line");
    expect(readFileSync(join(work, "notes.txt"), "utf8")).toBe("notes.txt");
    expect(end.finalText).toBe("Wrote it");
  });

  test("every built-in tool's schema becomes a grammar whose calls pass the tool's own JSON Schema", async () => {
    const { Ajv2020 } = createRequire(import.meta.url)(
      "ajv/dist/2020.js",
    ) as typeof import("ajv/dist/2020.js");
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    for (const tool of builtinTools()) {
      const spec = { name: tool.name, description: tool.description, input_schema: tool.jsonSchema };
      // Room for the biggest input (AskUserQuestion's nested questions): the tiny model writes about
      // a token per character.
      const list = await events(provider, request({ tools: [spec], maxTokens: 2048 }));
      const json = list
        .map((e) =>
          e.type === "content_block_delta" && e.delta.type === "input_json_delta" ? e.delta.partial_json : "",
        )
        .join("");
      const validate = ajv.compile(tool.jsonSchema);
      const input: unknown = JSON.parse(json);
      expect({ tool: tool.name, valid: validate(input), errors: ajv.errorsText(validate.errors) }).toEqual({
        tool: tool.name,
        valid: true,
        errors: "No errors",
      });
      expect(finalDelta(list).delta.stop_reason).toBe("tool_use");
    }
  });

  test("optional parameters are offered as nullable and never reach the tool as null", async () => {
    const calls: unknown[] = [];
    const tool = defineTool({
      name: "Note",
      description: "takes a note",
      effects: { kind: "read", readOnly: true, network: false },
      input: z.object({ text: z.string(), tag: z.string().optional() }),
      async run(input) {
        calls.push(input);
        return { content: "noted" };
      },
    });
    const { end } = await collect({ provider, tools: [tool] });
    expect(end.subtype).toBe("success");
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ text: "hi" });
    expect(Object.values(calls[0] as object)).not.toContain(null);
  });

  test("max tokens: stops with max_tokens", async () => {
    const list = await events(looping, request({ maxTokens: 5 }));
    expect(finalDelta(list).delta.stop_reason).toBe("max_tokens");
    expect(finalDelta(list).usage.output_tokens).toBe(5);
    expect(textOf(list)).toBe("Counting on on on on");
  });

  test("an abort stops the generation promptly and frees the sequence for the next call", async () => {
    const controller = new AbortController();
    const seen: string[] = [];
    const started = performance.now();
    let abortedAt = 0;
    const run = (async () => {
      const response = await looping.stream(request({ maxTokens: 100_000 }), controller.signal);
      for await (const event of response.events) {
        if (event.type === "content_block_delta" && event.delta.type === "text_delta") {
          seen.push(event.delta.text);
          if (seen.length === 20) {
            abortedAt = performance.now();
            controller.abort(new Error("user pressed Ctrl-C"));
          }
        }
      }
    })();
    const error = await run.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).name).toBe("AbortError");
    expect(seen.length).toBe(20);
    expect(performance.now() - abortedAt).toBeLessThan(2000);
    expect(performance.now() - started).toBeLessThan(20_000);

    // The same model (same sequence) answers the next call normally.
    const list = await events(looping, request({ maxTokens: 3 }));
    expect(textOf(list)).toBe("Counting on on");
  });

  test("a consumer that stops reading early releases the sequence too", async () => {
    const response = await looping.stream(request({ maxTokens: 100_000 }), new AbortController().signal);
    let count = 0;
    for await (const event of response.events) {
      if (event.type === "content_block_delta" && ++count === 5) break;
    }
    const list = await events(looping, request({ maxTokens: 2 }));
    expect(textOf(list)).toBe("Counting on");
  });

  test("concurrent calls on one model take turns", async () => {
    const [a, b] = await Promise.all([
      events(provider, request()),
      events(provider, request({ tools: [echoSpec] })),
    ]);
    expect(textOf(a)).toBe(DEFAULT_SCRIPT.reply.join(""));
    expect(finalDelta(b).delta.stop_reason).toBe("tool_use");
  });

  test("an already aborted signal rejects at once", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(provider.stream(request(), controller.signal)).rejects.toThrow(/aborted/);
  });

  test("the built CLI runs a local: model (node-llama-cpp loaded from the code-cached bundle)", async () => {
    // Every tool denied, so the tiny model takes its no-tools path and the prompt stays short.
    const init = spawnCli(["-p", "hi", "--output-format", "stream-json", "--model", `local:${modelPath}`], {
      cwd: workspace(),
      env: cleanEnv({ CAIRN_LOCAL_THREADS: "1" }),
    });
    // Only its system/init line is needed: the tools a run offers.
    await new Promise<void>((resolve) => {
      init.child.stdout!.on("data", () => {
        if (init.out.stdout.includes("\n")) resolve();
      });
      void init.exited.then(() => resolve());
    });
    init.child.kill();
    const offered = (JSON.parse(init.out.stdout.split("\n")[0]!) as { tools: string[] }).tools;
    const cli = spawnCli(["--disallowedTools", ...offered, "-p", "hi", "--model", `local:${modelPath}`], {
      cwd: workspace(),
      env: cleanEnv({ CAIRN_LOCAL_THREADS: "1" }),
      timeoutMs: 120_000,
    });
    const { code } = await cli.exited;
    expect({ code, stdout: cli.out.stdout, stderr: cli.out.stderr }).toEqual({
      code: 0,
      stdout: `${DEFAULT_SCRIPT.reply.join("")}\n`,
      stderr: "",
    });
  }, 180_000);
});
