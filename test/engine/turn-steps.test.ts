import { afterEach, describe, expect, test } from "vitest";
import * as z from "zod";
import type { ConversationMessage } from "../../src/engine/messages.js";
import {
  directSteps,
  type ModelStepOutcome,
  type ToolBatchOutcome,
  type TurnSteps,
} from "../../src/engine/turn-steps.js";
import { reply, type ScriptedServer, startScriptedServer } from "../../src/testing/index.js";
import { defineTool } from "../../src/tools/define.js";
import { collect, scriptedProvider } from "../helpers/loop.js";

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A JSON round trip: what a durable engine would write down and read back. */
const stored = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/** Steps that call straight through and keep each step's input and outcome as JSON. */
function recordingSteps(log: { input: unknown; outcome: unknown }[]): TurnSteps {
  return {
    async *callModel(step, context) {
      const input = stored(step);
      const outcome = yield* directSteps.callModel(step, context);
      log.push({ input, outcome: stored(outcome) });
      return outcome;
    },
    async *runTools(step, context) {
      const input = stored(step);
      const outcome = yield* directSteps.runTools(step, context);
      log.push({ input, outcome: stored(outcome) });
      return outcome;
    },
  };
}

/** Steps that run nothing: each gives back the outcome the log kept for it, in order. */
function replayingSteps(log: { input: unknown; outcome: unknown }[]): TurnSteps {
  let next = 0;
  const kept = () => log[next++]!.outcome;
  return {
    // biome-ignore lint/correctness/useYield: a replayed step shows nothing; it only answers.
    async *callModel() {
      return kept() as ModelStepOutcome;
    },
    // biome-ignore lint/correctness/useYield: as above.
    async *runTools() {
      return kept() as ToolBatchOutcome;
    },
  };
}

describe("turn steps", () => {
  test("a run replayed from its steps' stored outcomes, without the model or the tools, ends as the run did", async () => {
    server = await startScriptedServer({
      steps: [
        reply().text("Echoing.").tool("Echo", { text: "hi" }).tool("Echo", { text: "secret" }),
        reply().text("Done."),
      ],
    });
    let ran = 0;
    const echo = defineTool({
      name: "Echo",
      description: "echoes its text",
      effects: { kind: "read", readOnly: true, network: false },
      input: z.object({ text: z.string() }),
      async run(input) {
        ran += 1;
        return { content: `echo: ${input.text}` };
      },
    });
    const common = {
      provider: scriptedProvider(server.url),
      tools: [echo],
      priceUsage: (usage: { output_tokens?: number }) => (usage.output_tokens ?? 0) * 0.001,
      canUseTool: async (_name: string, input: Record<string, unknown>) =>
        input.text === "secret"
          ? { behavior: "deny" as const, message: "not that one" }
          : { behavior: "allow" as const },
    };
    const log: { input: unknown; outcome: unknown }[] = [];
    const firstHistory: ConversationMessage[] = [];
    const first = await collect({ ...common, history: firstHistory, steps: recordingSteps(log) });
    expect(first.end.subtype).toBe("success");
    expect(first.end.permissionDenials.map((denial) => denial.tool_input)).toEqual([{ text: "secret" }]);
    expect(ran).toBe(1);
    // Two model calls and one batch of tool calls (both read-only: one batch), in the order they ran.
    expect(log.map((entry) => Object.keys(entry.outcome as object))).toEqual([
      expect.arrayContaining(["message", "malformed"]),
      ["settled"],
      expect.arrayContaining(["message", "malformed"]),
    ]);

    const requests = server.requests.length;
    const replayedHistory: ConversationMessage[] = [];
    const replayed = await collect({ ...common, history: replayedHistory, steps: replayingSteps(log) });
    expect(server.requests.length).toBe(requests);
    expect(ran).toBe(1);
    const { durationMs, durationApiMs, ...end } = replayed.end;
    const { durationMs: _d, durationApiMs: _a, ...firstEnd } = first.end;
    expect(end).toEqual(firstEnd);
    expect(end.totalCostUsd).toBeGreaterThan(0);
    expect(replayedHistory).toEqual(firstHistory);
  });
});
