import type { EngineEvent, SubagentEvent } from "./events.js";
import { hookEvents } from "./loop-hooks.js";
import { ReportQueue } from "./report-queue.js";
import { runOneCall } from "./tool-runner.js";
import type { ToolBatchOutcome, ToolBatchStep, ToolSettlement, ToolStepContext } from "./turn-steps.js";

/**
 * Runs one batch of tool calls at once (the default `runTools` step): `tool_start` for each, then
 * what their subagents report while they run (docs/agents.md), and each call's hooks and
 * `tool_end` as it finishes.
 */
export async function* runToolBatch(
  step: ToolBatchStep,
  context: ToolStepContext,
): AsyncGenerator<EngineEvent[], ToolBatchOutcome> {
  const { turn } = step;
  for (const call of step.calls) {
    yield [
      {
        type: "tool_start",
        turn,
        toolUseId: call.block.id,
        name: call.block.name,
        input: call.block.input,
        startedAt: Date.now(),
      },
    ];
  }
  const settled: ToolSettlement[] = [];
  const reports = new ReportQueue<SubagentEvent>();
  const pending = new Map(
    step.calls.map((call) => [
      call.block.id,
      runOneCall(
        call.rejection ? call : { block: call.block, tool: context.tools.get(call.block.name) },
        {
          cwd: context.cwd,
          signal: context.signal,
          toolUseId: call.block.id,
          env: context.env,
          sandbox: context.sandbox,
          ...(context.backgroundShells ? { backgroundShells: context.backgroundShells } : {}),
          model: context.model,
          ...(context.mediaInput ? { mediaInput: context.mediaInput } : {}),
          ...(context.unattended ? { unattended: true } : {}),
          report: (report) => reports.push({ type: "subagent", turn, toolUseId: call.block.id, ...report }),
        },
        context.canUseTool,
        context.hooks,
      ).then((done) => ({ block: call.block, ...done })),
    ]),
  );
  while (pending.size > 0 || reports.size > 0) {
    const done = pending.size > 0 ? await Promise.race([...pending.values(), reports.ready()]) : null;
    if (done === null || done === ReportQueue.READY) {
      const taken = reports.take();
      for (const { value } of taken) {
        if (value.event.type === "run_end") settled.push({ kind: "subagent", end: value.event });
      }
      yield taken.map((report) => report.value);
      for (const report of taken) report.ack();
      continue;
    }
    pending.delete(done.block.id);
    settled.push({ kind: "call", ...done });
    if (done.hookRecords.length > 0) yield hookEvents(turn, done.hookRecords, done.block.id);
    yield [
      {
        type: "tool_end",
        turn,
        toolUseId: done.block.id,
        name: done.block.name,
        input: done.input,
        outcome: done.outcome,
        endedAt: Date.now(),
      },
    ];
  }
  return { settled };
}
