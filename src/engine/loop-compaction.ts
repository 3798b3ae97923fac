import { type CompactTrigger, compactHistory, fitToolResults } from "./compaction.js";
import type { EngineEvent } from "./events.js";
import type { LoopRun } from "./loop-run.js";
import { requestTools } from "./server-tools.js";

/** Automatic compaction keeps this share of the room for input as verbatim recent turns (at least the last turn). */
const KEEP_RECENT_SHARE = 0.25;

/** Makes room before a request: compaction past the threshold, then cut tool results that still do not fit. */
export async function* makeRoom(run: LoopRun): AsyncGenerator<EngineEvent[], void> {
  const { meter, history } = run;
  if (meter.estimate(history) > meter.compactAt) {
    yield* compact(run, "auto", null, Math.floor(meter.room * KEEP_RECENT_SHARE));
  }
  fitToolResults(history, meter.room, meter);
}

/** Compacts the history in place between its status events; false when there was nothing to summarise. */
export async function* compact(
  run: LoopRun,
  trigger: CompactTrigger,
  instructions: string | null,
  keepTokens: number,
): AsyncGenerator<EngineEvent[], boolean> {
  const { turn } = run.state;
  // A compaction that throws ends the run; its status is then closed by the run's end.
  yield [{ type: "compaction_status", turn, phase: "start" }];
  const compacted = yield* compactOnce(run, trigger, instructions, keepTokens);
  yield [{ type: "compaction_status", turn, phase: "end", compacted }];
  return compacted;
}

async function* compactOnce(
  run: LoopRun,
  trigger: CompactTrigger,
  instructions: string | null,
  keepTokens: number,
): AsyncGenerator<EngineEvent[], boolean> {
  const { history, model, state, options } = run;
  const turn = state.turn;
  const outcome = yield* compactHistory(history, {
    trigger,
    instructions,
    keepTokens,
    provider: model.provider,
    providerModel: model.providerModel,
    system: options.system,
    ...requestTools(run.toolSpecs, model.provider, options.webSearch),
    maxTokens: run.maxTokens,
    turn,
    signal: run.signal,
    retryPolicy: run.retryPolicy,
    meter: run.meter,
    ...(options.compactionHooks ? { hooks: options.compactionHooks } : {}),
  });
  if (!outcome) return false;
  state.addApiTime(outcome.durationMs);
  const costUsd = state.account(outcome.usage, model) ?? null;
  history.splice(0, history.length, ...outcome.messages);
  yield [
    {
      type: "compact_boundary",
      turn,
      trigger,
      preTokens: outcome.preTokens,
      postTokens: outcome.postTokens,
      durationMs: outcome.durationMs,
      summary: outcome.summary,
      messages: outcome.messages,
      costUsd,
    },
  ];
  return true;
}
