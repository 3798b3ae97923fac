import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import type { EngineEvent, ModelCallEndEvent, ToolEndEvent } from "../../src/engine/events.js";
import type { ModelStreamEvent } from "../../src/engine/messages.js";
import { costUSD } from "../../src/providers/cost.js";
import { reply, type ScriptedServer, startScriptedServer } from "../../src/testing/index.js";
import { builtinTools } from "../../src/tools/index.js";
import { collect } from "../helpers/loop.js";
import { grammarProblem } from "./grammar.js";
import { WIRE_CASES } from "./helpers.js";

let server: ScriptedServer | undefined;
let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "cairn-providers-"));
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await rm(dir, { recursive: true, force: true });
});

/** Stream events grouped per model call. */
function streamsPerCall(events: EngineEvent[]): ModelStreamEvent[][] {
  const calls: ModelStreamEvent[][] = [];
  for (const event of events) {
    if (event.type === "model_call_start") calls.push([]);
    if (event.type === "stream") calls.at(-1)!.push(event.event);
  }
  return calls;
}

const EXPECTED_PATH: Record<string, string> = {
  "Anthropic Messages": "/v1/messages",
  "OpenAI Responses": "/v1/responses",
  "OpenAI Chat (ollama preset)": "/v1/chat/completions",
};

describe.each(WIRE_CASES)("read a file, write a file, answer — $name", (wire) => {
  test("runs the whole scenario with the real tools, over real HTTP", async () => {
    await writeFile(join(dir, "notes.txt"), "alpha\nbeta\n");
    server = await startScriptedServer({
      steps: [
        reply()
          .thinking("I should read the notes first.")
          .text("Reading the notes.")
          .tool("Read", { file_path: "notes.txt" }),
        reply()
          .text("Two notes; writing the summary.")
          .tool("Write", { file_path: "summary.txt", content: "2 notes: alpha, beta\n" }),
        reply()
          .text("Done: summary.txt lists 2 notes.")
          .usage({ input_tokens: 1200, output_tokens: 9, cache_read_input_tokens: 800 }),
      ],
      chunkSize: 5,
    });
    const provider = await wire.make(server.url);
    const { events, end } = await collect({
      provider,
      tools: builtinTools(),
      cwd: dir,
      model: wire.model,
      providerModel: wire.providerModel,
      prompt: "Summarise notes.txt into summary.txt",
    });

    expect(end.errors).toEqual([]);
    expect(end.subtype).toBe("success");
    expect(end.numTurns).toBe(3);
    expect(end.finalText).toBe("Done: summary.txt lists 2 notes.");
    expect(end.result).toBe(
      "Reading the notes.Two notes; writing the summary.Done: summary.txt lists 2 notes.",
    );
    expect(await readFile(join(dir, "summary.txt"), "utf8")).toBe("2 notes: alpha, beta\n");

    const toolEnds = events.filter((e): e is ToolEndEvent => e.type === "tool_end");
    expect(toolEnds.map((e) => [e.name, e.outcome.isError ?? false])).toEqual([
      ["Read", false],
      ["Write", false],
    ]);
    expect(toolEnds[0]!.outcome.content).toContain("alpha");

    // Thinking arrived as a thinking block, before the text and the tool call.
    const firstBlocks = events.flatMap((e) =>
      e.type === "assistant_block" && e.turn === 1 ? [e.block.type] : [],
    );
    expect(firstBlocks).toEqual(["thinking", "text", "tool_use"]);

    // Every call's stream is well-formed Anthropic grammar.
    for (const call of streamsPerCall(events)) expect(grammarProblem(call)).toBeUndefined();

    // The model was sent each tool result, on the wire's own path, keyed by the call's id.
    expect(server.requests.map((r) => r.path)).toEqual(Array(3).fill(EXPECTED_PATH[wire.name]));
    const toolUseId = toolEnds[0]!.toolUseId;
    expect(JSON.stringify(server.requests[1]!.body)).toContain(toolUseId);
    expect(JSON.stringify(server.requests[1]!.body)).toContain("alpha");

    // Usage is counted once per call, in Anthropic naming, cached tokens split out.
    const calls = events.filter((e): e is ModelCallEndEvent => e.type === "model_call_end");
    expect(calls).toHaveLength(3);
    expect(calls[2]!.message.usage).toEqual({
      input_tokens: 1200,
      output_tokens: 9,
      cache_read_input_tokens: 800,
      cache_creation_input_tokens: 0,
    });
    const summed = calls.reduce((sum, call) => sum + call.message.usage.input_tokens, 0);
    expect(end.usage.input_tokens).toBe(summed);
    expect(costUSD(wire.model, calls[2]!.message.usage)).toSatisfy((cost: number | undefined) =>
      wire.model.startsWith("ollama/") ? cost === undefined : typeof cost === "number" && cost > 0,
    );
  });
});
