import * as z from "zod";
import type { EngineEvent } from "../../src/engine/events.js";
import { runAgentLoop } from "../../src/engine/loop.js";
import type { ModelProvider } from "../../src/providers/types.js";
import { type ReplyBuilder, renderReplyEvents } from "../../src/testing/index.js";
import { defineTool } from "../../src/tools/define.js";

/** A tool with no side effects, so projection tests need no files. */
const echo = defineTool({
  name: "Echo",
  description: "echoes its text",
  effects: { kind: "read", readOnly: true, network: false },
  input: z.object({ text: z.string() }),
  async run(input) {
    return { content: input.text };
  },
});

/** Plays reply steps in-process (no socket), with request ids like a real provider's. */
function scriptedProvider(steps: ReplyBuilder[], chunkSize: number): ModelProvider {
  let call = 0;
  return {
    wire: "replay",
    displayName: "Scripted",
    apiKeySource: "none",
    async stream() {
      call += 1;
      const step = steps[call - 1];
      if (!step) throw new Error(`no step for model call ${call}`);
      const events = renderReplyEvents(step.step, {
        chunkSize,
        model: "scripted-model",
        messageId: `msg_${call}`,
        toolUseId: (block) => `toolu_${call}_${block}`,
        inputTokens: 10,
      });
      return {
        requestId: `req_${call}`,
        events: (async function* () {
          yield* events;
        })(),
      };
    },
  };
}

/** The engine's real event sequence for scripted replies (tool calls go to `Echo`). */
export async function engineEvents(steps: ReplyBuilder[], chunkSize: number): Promise<EngineEvent[]> {
  const events: EngineEvent[] = [];
  for await (const event of runAgentLoop({
    env: process.env,
    sessionId: "00000000-0000-4000-8000-000000000000",
    cwd: "/workspace",
    provider: scriptedProvider(steps, chunkSize),
    model: "scripted",
    providerModel: "scripted",
    system: "",
    tools: [echo],
    history: [],
    prompt: "go",
    signal: new AbortController().signal,
  })) {
    events.push(event);
  }
  return events;
}
