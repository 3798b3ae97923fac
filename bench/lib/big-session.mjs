// A big session's transcript, written directly in cairn's JSONL format (docs: src/sessions/records.ts):
// `turns` turns of one tool call each (Bash, Read, or an Edit every tenth turn), each tool result
// `outputBytes` long, so 5,000 turns (4,500 of them with 11 KB of output) are 10,000 events and 50 MB of tool output. Used by
// the report's browser test and by `npm run bench` (bench/scenarios/report.mjs).

import { once } from "node:events";
import { createWriteStream } from "node:fs";

/**
 * @param {string} file
 * @param {{ turns?: number, outputBytes?: number, sessionId?: string }} [options]
 * @returns {Promise<{ events: number, outputBytes: number, sessionId: string }>}
 */
export async function writeBigSession(file, options = {}) {
  const turns = options.turns ?? 5000;
  const outputBytes = options.outputBytes ?? 11_200;
  const sessionId = options.sessionId ?? "0b1d5e55-0000-4000-8000-000000000000";
  const out = createWriteStream(file);
  const start = Date.parse("2026-01-01T00:00:00.000Z");
  let clock = start;
  const ts = () => new Date(clock).toISOString();
  /** @param {object} record */
  const write = async (record) => {
    if (!out.write(`${JSON.stringify(record)}\n`)) await once(out, "drain");
  };
  let events = 0;
  let output = 0;
  await write({ type: "header", version: 1, sessionId, cwd: "/work/big", createdAt: ts() });
  await write({
    type: "user",
    ts: ts(),
    prompt: true,
    message: { role: "user", content: "Run the whole test matrix and fix what fails." },
    model: "anthropic/claude-sonnet-5-5",
    permissionMode: "bypassPermissions",
  });
  const line = "0123456789 abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ the quick brown fox\n";
  for (let turn = 1; turn <= turns; turn += 1) {
    const id = `toolu_big_${turn}`;
    const kind = turn % 10 === 0 ? "Edit" : turn % 2 === 0 ? "Read" : "Bash";
    const input =
      kind === "Bash"
        ? { command: `npm test -- --shard ${turn}` }
        : kind === "Read"
          ? { file_path: `src/module-${turn}.ts` }
          : {
              file_path: `src/module-${turn}.ts`,
              old_string: `const value = ${turn};`,
              new_string: `const value = ${turn + 1};`,
            };
    clock += 900;
    await write({
      type: "assistant",
      ts: ts(),
      turn,
      message: {
        role: "assistant",
        content: [
          {
            type: "text",
            text: `Step ${turn}: ${kind === "Bash" ? "running shard" : "looking at"} ${turn}.`,
          },
          { type: "tool_use", id, name: kind, input },
        ],
      },
      model: "claude-sonnet-5-5",
      stopReason: "tool_use",
      usage: {
        input_tokens: 1200,
        output_tokens: 60,
        cache_read_input_tokens: 30000,
        cache_creation_input_tokens: 0,
      },
      durationMs: 850,
      costUsd: 0.0135,
    });
    const body =
      kind === "Edit"
        ? `The file src/module-${turn}.ts has been updated successfully.`
        : `marker-${turn}\n${line.repeat(Math.ceil(outputBytes / line.length)).slice(0, outputBytes)}`;
    output += body.length;
    clock += 300;
    await write({
      type: "tool_result",
      ts: ts(),
      turn,
      toolName: kind,
      result: { type: "tool_result", tool_use_id: id, content: body },
      durationMs: 280,
      ...(kind === "Bash" ? { exitCode: turn % 7 === 0 ? 1 : 0 } : {}),
    });
    events += 2;
  }
  clock += 700;
  await write({
    type: "assistant",
    ts: ts(),
    turn: turns + 1,
    message: { role: "assistant", content: [{ type: "text", text: "The matrix passes now." }] },
    model: "claude-sonnet-5-5",
    stopReason: "end_turn",
    usage: {
      input_tokens: 1200,
      output_tokens: 8,
      cache_read_input_tokens: 30000,
      cache_creation_input_tokens: 0,
    },
    durationMs: 650,
    costUsd: 0.0126,
  });
  await write({
    type: "run_end",
    ts: ts(),
    subtype: "success",
    isError: false,
    aborted: false,
    numTurns: turns + 1,
    usage: { input_tokens: 1200 * (turns + 1), output_tokens: 60 * turns + 8 },
    durationMs: clock - start,
    durationApiMs: 850 * turns + 650,
    permissionDenials: 0,
    errors: [],
  });
  events += 3;
  out.end();
  await once(out, "close");
  return { events, outputBytes: output, sessionId };
}
