import * as z from "zod";
import type { AssistantBlockEvent, EngineEvent, RunEndEvent } from "../../src/engine/events.js";
import { type LoopOptions, runAgentLoop } from "../../src/engine/loop.js";
import { AnthropicProvider } from "../../src/providers/anthropic.js";
import { defineTool } from "../../src/tools/define.js";
import type { Tool, ToolKind } from "../../src/tools/types.js";

/** A provider talking to the scripted server through the real Anthropic client. */
export function scriptedProvider(url: string): AnthropicProvider {
  return new AnthropicProvider({
    model: "claude-sonnet-5-5",
    displayName: "Claude Sonnet 5.5",
    apiKey: "test-key",
    apiKeySource: "env",
    baseURL: url,
    maxRetries: 0,
  });
}

export async function collect(
  options: Partial<LoopOptions> & Pick<LoopOptions, "provider" | "tools">,
): Promise<{
  events: EngineEvent[];
  end: RunEndEvent;
}> {
  const events: EngineEvent[] = [];
  for await (const event of runAgentLoop({
    env: process.env,
    sessionId: "session-1",
    cwd: process.cwd(),
    model: "anthropic/claude-sonnet-5-5",
    providerModel: "claude-sonnet-5-5",
    system: "test system prompt",
    history: [],
    prompt: "do the thing",
    signal: new AbortController().signal,
    ...options,
  })) {
    events.push(event);
  }
  const end = events.at(-1);
  if (end?.type !== "run_end") throw new Error("the run did not end with run_end");
  return { events, end };
}

/** A tool whose calls wait until the test releases them, to observe scheduling without timing. */
export function gatedTool(name: string, kind: ToolKind) {
  const waiting: (() => void)[] = [];
  const calls: string[] = [];
  const tool = defineTool({
    name,
    description: `${name} test tool`,
    // Read tools are read-only (they run in parallel); the others change something.
    effects: { kind, readOnly: kind === "read", network: false },
    input: z.object({ id: z.string() }),
    async run(input) {
      calls.push(input.id);
      await new Promise<void>((resolve) => waiting.push(resolve));
      return { content: `${name} ${input.id} done`, data: { id: input.id } };
    },
  });
  return {
    tool,
    calls,
    /** Releases every call waiting right now; returns how many there were. */
    release(): number {
      const n = waiting.length;
      for (const resolve of waiting.splice(0)) resolve();
      return n;
    },
  };
}

export function echoTool(name = "Echo"): Tool {
  return defineTool({
    name,
    description: "echoes its text",
    effects: { kind: "read", readOnly: true, network: false },
    input: z.object({ text: z.string() }),
    async run(input) {
      return { content: `echo: ${input.text}`, data: { text: input.text } };
    },
  });
}

export function types(events: EngineEvent[]): string[] {
  return events.map((event) => event.type);
}

/** The blocks of the assistant messages, in order. */
export function assistantBlocks(events: EngineEvent[]): AssistantBlockEvent["block"][] {
  return events.filter((e): e is AssistantBlockEvent => e.type === "assistant_block").map((e) => e.block);
}

/** The provider stream events of one model call (`turn` counts from 1). */
export function turnStream(events: EngineEvent[], turn: number) {
  return events.flatMap((e) => (e.type === "stream" && e.turn === turn ? [e.event] : []));
}
