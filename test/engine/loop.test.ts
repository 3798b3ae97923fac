import { afterEach, describe, expect, test } from "vitest";
import * as z from "zod";
import type { EngineEvent, ToolEndEvent } from "../../src/engine/events.js";
import { runAgentLoop } from "../../src/engine/loop.js";
import type { ConversationMessage } from "../../src/engine/messages.js";
import { httpError, reply, type ScriptedServer, startScriptedServer } from "../../src/testing/index.js";
import { defineTool } from "../../src/tools/define.js";
import type { Tool } from "../../src/tools/types.js";
import { collect, echoTool, gatedTool, scriptedProvider, types } from "../helpers/loop.js";

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

type SentMessage = { role: string; content: unknown };
const lastSentMessage = (s: ScriptedServer): SentMessage => {
  const body = s.requests.at(-1)!.body as { messages: SentMessage[] };
  return body.messages.at(-1)!;
};

/** Runs the loop on a fresh history, aborting it at the first event `stop` picks. */
async function interruptWhen(stop: (event: EngineEvent) => boolean, tools: Tool[]) {
  const controller = new AbortController();
  const history: ConversationMessage[] = [];
  const events: EngineEvent[] = [];
  for await (const event of runAgentLoop({
    env: process.env,
    sessionId: "session-1",
    cwd: process.cwd(),
    provider: scriptedProvider(server!.url),
    model: "anthropic/claude-sonnet-5-5",
    providerModel: "claude-sonnet-5-5",
    system: "test system prompt",
    tools,
    history,
    prompt: "do the thing",
    signal: controller.signal,
  })) {
    events.push(event);
    if (stop(event)) controller.abort();
  }
  return { events, history };
}

describe("agent loop through the real Anthropic client", () => {
  test("runs text → tool → answer, feeding the tool result back to the model", async () => {
    server = await startScriptedServer({
      steps: [
        reply().thinking("hmm").text("Let me echo.").tool("Echo", { text: "hi" }),
        reply().text("All done."),
      ],
      chunkSize: 4,
    });
    const { events, end } = await collect({ provider: scriptedProvider(server.url), tools: [echoTool()] });

    expect(end.subtype).toBe("success");
    expect(end.result).toBe("Let me echo.All done.");
    expect(end.finalText).toBe("All done.");
    expect(end.numTurns).toBe(2);
    expect(end.requestId).toMatch(/^req_scripted_/);
    expect(end.durationApiMs).toBeLessThanOrEqual(end.durationMs);
    expect(types(events).filter((t) => t !== "stream" && t !== "assistant_block")).toEqual([
      "run_start",
      "model_call_start",
      "model_call_end",
      "tool_start",
      "tool_end",
      "turn_end",
      "model_call_start",
      "model_call_end",
      "turn_end",
      "run_end",
    ]);
    const blocks = events.flatMap((e) => (e.type === "assistant_block" ? [e.block.type] : []));
    expect(blocks).toEqual(["thinking", "text", "tool_use", "text"]);

    const sent = lastSentMessage(server);
    expect(sent.role).toBe("user");
    expect(sent.content).toEqual([expect.objectContaining({ type: "tool_result", content: "echo: hi" })]);
    const firstBody = server.requests[0]!.body as { system: string; tools: { name: string }[] };
    expect(firstBody.system).toBe("test system prompt");
    expect(firstBody.tools.map((t) => t.name)).toEqual(["Echo"]);
  });

  test("counts usage once per model call and sums it on the result", async () => {
    server = await startScriptedServer({
      steps: [
        reply()
          .tool("Echo", { text: "a" })
          .usage({ input_tokens: 100, output_tokens: 10, cache_read_input_tokens: 5 }),
        reply().text("ok").usage({ input_tokens: 200, output_tokens: 20 }),
      ],
    });
    const { end } = await collect({ provider: scriptedProvider(server.url), tools: [echoTool()] });
    expect(end.usage).toEqual({
      input_tokens: 300,
      output_tokens: 30,
      cache_read_input_tokens: 5,
      cache_creation_input_tokens: 0,
    });
    expect(end.modelUsage["claude-sonnet-5-5"]?.input_tokens).toBe(300);
  });

  test("runs consecutive read calls in parallel and edit calls one at a time", async () => {
    const readA = gatedTool("ReadA", "read");
    const editB = gatedTool("EditB", "edit");
    server = await startScriptedServer({
      steps: [
        reply()
          .tool("ReadA", { id: "r1" })
          .tool("ReadA", { id: "r2" })
          .tool("EditB", { id: "e1" })
          .tool("EditB", { id: "e2" }),
        reply().text("done"),
      ],
    });
    const run = collect({ provider: scriptedProvider(server.url), tools: [readA.tool, editB.tool] });
    // Both reads are in flight together before either finishes.
    await expect.poll(() => readA.calls.length).toBe(2);
    expect(editB.calls).toEqual([]);
    expect(readA.release()).toBe(2);
    // Edits: the second does not start until the first is released.
    await expect.poll(() => editB.calls.length).toBe(1);
    expect(editB.release()).toBe(1);
    await expect.poll(() => editB.calls.length).toBe(2);
    expect(editB.release()).toBe(1);
    const { end, events } = await run;
    expect(end.subtype).toBe("success");
    const ends = events.filter((e): e is ToolEndEvent => e.type === "tool_end");
    expect(ends.map((e) => e.outcome.content).sort()).toEqual([
      "EditB e1 done",
      "EditB e2 done",
      "ReadA r1 done",
      "ReadA r2 done",
    ]);
  });

  test("a call with invalid input never runs; the model gets an error naming the field", async () => {
    let ran = false;
    const tool = defineTool({
      name: "Touch",
      description: "touch",
      effects: { kind: "edit", readOnly: false, network: false },
      input: z.object({ path: z.string() }),
      async run() {
        ran = true;
        return { content: "touched" };
      },
    });
    server = await startScriptedServer({
      steps: [reply().tool("Touch", { pth: "x" }), reply().text("sorry")],
    });
    const { end } = await collect({ provider: scriptedProvider(server.url), tools: [tool] });
    expect(ran).toBe(false);
    expect(end.subtype).toBe("success");
    const sent = lastSentMessage(server).content as { content: string; is_error: boolean }[];
    expect(sent[0]!.is_error).toBe(true);
    expect(sent[0]!.content).toContain("`path`");
  });

  test("an unknown tool gets an error result listing the available tools", async () => {
    server = await startScriptedServer({ steps: [reply().tool("Nope", {}), reply().text("ok")] });
    const { events } = await collect({ provider: scriptedProvider(server.url), tools: [echoTool()] });
    const end = events.find((e): e is ToolEndEvent => e.type === "tool_end")!;
    expect(end.outcome.isError).toBe(true);
    expect(end.outcome.errorKind).toBe("unknown_tool");
    expect(end.outcome.content).toContain("Available tools: Echo");
  });

  test("stops at maxTurns with error_max_turns", async () => {
    server = await startScriptedServer({
      steps: [
        reply().tool("Echo", { text: "1" }),
        reply().tool("Echo", { text: "2" }),
        reply().text("never"),
      ],
    });
    const { end } = await collect({
      provider: scriptedProvider(server.url),
      tools: [echoTool()],
      maxTurns: 2,
    });
    expect(end.subtype).toBe("error_max_turns");
    expect(end.isError).toBe(true);
    expect(end.numTurns).toBe(2);
    expect(server.requests).toHaveLength(2);
  });

  test("a provider error ends the run with error_during_execution naming the status", async () => {
    server = await startScriptedServer({ steps: [httpError(401, { message: "bad key" })] });
    const { end } = await collect({ provider: scriptedProvider(server.url), tools: [] });
    expect(end.subtype).toBe("error_during_execution");
    expect(end.errors.join(" ")).toMatch(/401/);
  });

  test("an abort during a tool gives every tool_use a result and ends the run", async () => {
    const gate = gatedTool("Slow", "execute");
    const controller = new AbortController();
    server = await startScriptedServer({
      steps: [reply().tool("Slow", { id: "s1" }).tool("Slow", { id: "s2" })],
    });
    const run = collect({
      provider: scriptedProvider(server.url),
      tools: [gate.tool],
      signal: controller.signal,
      history: [],
    });
    await expect.poll(() => gate.calls.length).toBe(1);
    controller.abort();
    const { events, end } = await run;
    expect(end.aborted).toBe(true);
    expect(end.isError).toBe(true);
    const ends = events.filter((e): e is ToolEndEvent => e.type === "tool_end");
    expect(ends.map((e) => [e.toolUseId, e.outcome.errorKind])).toEqual([
      [expect.any(String), "aborted"],
      [expect.any(String), "aborted"],
    ]);
    expect(gate.calls).toEqual(["s1"]);
  });

  test("an abort mid-answer keeps the text and the finished thinking before it, not a tool call or trailing thinking", async () => {
    // Thinking, text, more thinking (finished), then a tool call that has only started: the stream stalls there.
    server = await startScriptedServer({
      steps: [
        reply()
          .thinking("First thought.")
          .text("Some text.")
          .thinking("Second thought.")
          .tool("Echo", { text: "never" })
          .stall(13, 600_000),
      ],
    });
    const toolStarted = (event: EngineEvent) =>
      event.type === "stream" &&
      event.event.type === "content_block_start" &&
      event.event.content_block.type === "tool_use";
    const { events, history } = await interruptWhen(toolStarted, [echoTool()]);
    const kept = [
      { type: "thinking", thinking: "First thought.", signature: "scripted" },
      { type: "text", text: "Some text." },
    ];
    expect(history).toEqual([
      { role: "user", content: "do the thing" },
      { role: "assistant", content: kept },
      { role: "user", content: [{ type: "text", text: "[Request interrupted by user]" }] },
    ]);
    expect(types(events).slice(-2)).toEqual(["turn_interrupted", "run_end"]);
    expect(events.at(-2)).toEqual({
      type: "turn_interrupted",
      turn: 1,
      answer: kept,
      note: "[Request interrupted by user]",
    });
  });

  test("an abort while thinking keeps no answer (thinking cut short is not sent back); the note joins the prompt", async () => {
    server = await startScriptedServer({
      steps: [reply().thinking("A long line of thought.").text("Answer.").stall(3, 600_000)],
    });
    const thinking = (event: EngineEvent) =>
      event.type === "stream" &&
      event.event.type === "content_block_delta" &&
      event.event.delta.type === "thinking_delta";
    const { events, history } = await interruptWhen(thinking, []);
    expect(history).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "do the thing" },
          { type: "text", text: "[Request interrupted by user]" },
        ],
      },
    ]);
    expect(events.at(-2)).toEqual({
      type: "turn_interrupted",
      turn: 1,
      note: "[Request interrupted by user]",
    });
  });

  test("the same failing call three times in a row ends the run instead of looping", async () => {
    const failing = defineTool({
      name: "Fail",
      description: "always fails",
      effects: { kind: "read", readOnly: true, network: false },
      input: z.object({}),
      async run() {
        return { content: "nope", isError: true };
      },
    });
    server = await startScriptedServer({
      steps: [
        reply().tool("Fail", {}),
        reply().tool("Fail", {}),
        reply().tool("Fail", {}),
        reply().text("x"),
      ],
    });
    const { end } = await collect({ provider: scriptedProvider(server.url), tools: [failing] });
    expect(end.subtype).toBe("error_during_execution");
    expect(end.errors[0]).toContain("3 times");
    expect(server.requests).toHaveLength(3);
  });

  test("a denied call never runs and is listed in permissionDenials", async () => {
    const gate = gatedTool("Danger", "execute");
    server = await startScriptedServer({ steps: [reply().tool("Danger", { id: "d" }), reply().text("ok")] });
    const { end, events } = await collect({
      provider: scriptedProvider(server.url),
      tools: [gate.tool],
      canUseTool: async () => ({ behavior: "deny", message: "not in CI" }),
    });
    expect(gate.calls).toEqual([]);
    expect(end.permissionDenials).toEqual([
      { tool_name: "Danger", tool_use_id: expect.any(String), tool_input: { id: "d" } },
    ]);
    const toolEnd = events.find((e): e is ToolEndEvent => e.type === "tool_end")!;
    expect(toolEnd.outcome.content).toContain("not in CI");
  });

  test("a terminal tool outcome ends the run successfully without another model call", async () => {
    const finish = defineTool({
      name: "Finish",
      description: "finishes",
      effects: { kind: "other", readOnly: false, network: false },
      input: z.object({ answer: z.string() }),
      async run(input) {
        return { content: `accepted ${input.answer}`, terminal: true };
      },
    });
    server = await startScriptedServer({ steps: [reply().text("Here.").tool("Finish", { answer: "42" })] });
    const { end } = await collect({ provider: scriptedProvider(server.url), tools: [finish] });
    expect(end.subtype).toBe("success");
    expect(end.result).toBe("Here.");
    expect(server.requests).toHaveLength(1);
  });
});
