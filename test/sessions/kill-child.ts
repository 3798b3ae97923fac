/**
 * The process the kill -9 loop murders. Bundled with esbuild by test/sessions/kill.test.ts and
 * scripts/kill-loop.mjs, then run as:
 *
 *   node kill-child.mjs write <cairnHome> <cwd> <sessionId>   appends runs forever (resuming the id)
 *   node kill-child.mjs check <cairnHome> <cwd> <sessionId>   loads it, prints {messages, warnings, problems}
 *
 * `write` prints "ready" once the transcript is open, then writes synthetic engine events of real
 * shape (prompt, assistant messages with tool calls, tool results up to 200 kB, turn ends, run end)
 * as fast as it can, yielding to the event loop between records so a kill lands anywhere.
 */
import { pathToFileURL } from "node:url";
import type { EngineEvent } from "../../src/engine/events.js";
import type { ConversationMessage, StreamedMessage } from "../../src/engine/messages.js";
import { JsonlTranscriptStore, SessionNotFoundError } from "../../src/sessions/index.js";

/** What makes a history invalid for the model API; empty when it is fine. */
export function historyProblems(history: ConversationMessage[]): string[] {
  const problems: string[] = [];
  if (history.length > 0 && history[0]!.role !== "user")
    problems.push("the history does not start with a user message");
  for (let i = 0; i < history.length; i += 1) {
    const message = history[i]!;
    const previous = history[i - 1];
    if (previous && previous.role === message.role)
      problems.push(`messages ${i - 1} and ${i} have the same role`);
    if (message.role === "assistant") {
      if (message.content.length === 0) problems.push(`assistant message ${i} is empty`);
      const uses = message.content.filter((block) => block.type === "tool_use").map((block) => block.id);
      if (uses.length === 0) continue;
      const next = history[i + 1];
      const results =
        next?.role === "user" && Array.isArray(next.content)
          ? next.content.filter((block) => block.type === "tool_result").map((block) => block.tool_use_id)
          : [];
      if (JSON.stringify(results) !== JSON.stringify(uses))
        problems.push(
          `tool calls ${uses.join(",")} of message ${i} are answered by ${results.join(",") || "nothing"}`,
        );
      if (next?.role === "user" && Array.isArray(next.content)) {
        const firstOther = next.content.findIndex((block) => block.type !== "tool_result");
        if (firstOther !== -1 && firstOther < results.length)
          problems.push(`message ${i + 1} mixes results after text`);
      }
    } else if (Array.isArray(message.content)) {
      const previousUses =
        previous?.role === "assistant"
          ? previous.content.filter((b) => b.type === "tool_use").map((b) => b.id)
          : [];
      for (const block of message.content)
        if (block.type === "tool_result" && !previousUses.includes(block.tool_use_id))
          problems.push(`message ${i} has an orphan result ${block.tool_use_id}`);
    }
  }
  return problems;
}

const usage = {
  input_tokens: 10,
  output_tokens: 5,
  cache_read_input_tokens: 0,
  cache_creation_input_tokens: 0,
};

function message(
  id: string,
  content: StreamedMessage["content"],
  stop: StreamedMessage["stop_reason"],
): StreamedMessage {
  return {
    id,
    type: "message",
    role: "assistant",
    model: "synthetic",
    content,
    stop_reason: stop,
    stop_sequence: null,
    usage,
  };
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Events are built with the fields the transcript writer reads; the cast keeps this fixture compiling
 * while the engine adds fields of its own (cost, retries, ...).
 */
async function oneRun(
  recordEvent: (event: EngineEvent) => void,
  sessionId: string,
  run: number,
): Promise<void> {
  const record = (event: Record<string, unknown> & { type: EngineEvent["type"] }) =>
    recordEvent(event as unknown as EngineEvent);
  const started = Date.now();
  record({
    type: "run_start",
    sessionId,
    cwd: process.cwd(),
    model: "synthetic",
    modelDisplayName: "Synthetic",
    apiKeySource: "none",
    permissionMode: "acceptEdits",
    tools: ["Bash", "Read"],
    prompt: `prompt ${run} ${"p".repeat(Math.floor(Math.random() * 2000))}`,
    startedAt: started,
  });
  await tick();
  const turns = 1 + Math.floor(Math.random() * 3);
  for (let turn = 1; turn <= turns; turn += 1) {
    const calls = Math.floor(Math.random() * 3) + 1;
    const ids = Array.from({ length: calls }, (_, i) => `toolu_${process.pid}_${run}_${turn}_${i}`);
    record({
      type: "model_call_end",
      turn,
      message: message(
        `msg_${run}_${turn}`,
        [
          { type: "text", text: `turn ${turn}` },
          ...ids.map((id) => ({
            type: "tool_use" as const,
            id,
            name: "Bash",
            input: { command: `echo ${id}` },
          })),
        ],
        "tool_use",
      ),
      durationMs: 1,
      costUsd: null,
    });
    await tick();
    for (const id of [...ids].reverse()) {
      record({
        type: "tool_end",
        turn,
        toolUseId: id,
        name: "Bash",
        input: { command: `echo ${id}` },
        outcome: {
          content: `${id}\n${"o".repeat(Math.floor(Math.random() * 200_000))}`,
          isError: false,
          durationMs: 1,
        },
        endedAt: Date.now(),
      });
      await tick();
    }
    record({ type: "turn_end", turn, stopReason: "tool_use" });
    await tick();
  }
  record({
    type: "model_call_end",
    turn: turns + 1,
    message: message(`msg_${run}_final`, [{ type: "text", text: `run ${run} done` }], "end_turn"),
    durationMs: 1,
    costUsd: null,
  });
  record({ type: "turn_end", turn: turns + 1, stopReason: "end_turn" });
  await tick();
  record({
    type: "run_end",
    sessionId,
    subtype: "success",
    isError: false,
    aborted: false,
    result: "",
    finalText: "",
    durationMs: Date.now() - started + 1,
    durationApiMs: 1,
    numTurns: turns + 1,
    usage,
    modelUsage: {},
    totalCostUsd: null,
    modelCostUsd: {},
    errors: [],
    permissionDenials: [],
  });
  await tick();
}

async function main(): Promise<void> {
  const [mode, cairnHome, cwd, sessionId] = process.argv.slice(2);
  if (!mode || !cairnHome || !cwd || !sessionId)
    throw new Error("usage: write|check <cairnHome> <cwd> <sessionId>");
  const store = new JsonlTranscriptStore({ cairnHome });
  if (mode === "check") {
    const loaded = await store.load(sessionId, cwd);
    const result = {
      messages: loaded.history.length,
      runs: loaded.runs.length,
      warnings: loaded.warnings,
      problems: historyProblems(loaded.history),
    };
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return;
  }
  let writer: Awaited<ReturnType<JsonlTranscriptStore["create"]>>;
  try {
    writer = await store.open(sessionId, cwd);
  } catch (error) {
    if (!(error instanceof SessionNotFoundError)) throw error;
    writer = await store.create(cwd, sessionId);
  }
  process.stdout.write("ready\n");
  for (let run = 0; ; run += 1) await oneRun((event) => writer.recordEvent(event), sessionId, run);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  });
}
