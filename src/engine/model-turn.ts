import { nowMs } from "../util/clock.js";
import { fitToolResults } from "./compaction.js";
import type { EngineEvent } from "./events.js";
import { compact } from "./loop-compaction.js";
import type { LoopRun } from "./loop-run.js";
import { mediaRefusal, ProviderError } from "./provider.js";
import { OVERLOADED_ANSWERS_BEFORE_FALLBACK } from "./retry.js";
import { requestTools } from "./server-tools.js";
import type { ModelStepOutcome } from "./turn-steps.js";

/**
 * The turn's model call, between `model_call_start` and `model_call_end`, through the run's
 * `callModel` step; the answer joins the history. A context overflow is met with one compaction
 * (keeping only the last turn) and one more call; a primary that stays unavailable after its
 * retries, or answers overloaded three times, hands over to the fallback model for the rest of the run.
 *
 * One generator, the step's batches passed on by a single `yield*`: every generator layer costs an
 * async step per streamed batch (docs/performance.md), so the recovery is not a function of its own.
 */
export async function* modelTurn(run: LoopRun): AsyncGenerator<EngineEvent[], ModelStepOutcome> {
  const { options, history, state, signal, meter } = run;
  const callStarted = nowMs();
  yield [{ type: "model_call_start", turn: state.turn, startedAt: Date.now() }];
  let call: ModelStepOutcome | undefined;
  let recovered = false;
  try {
    while (!call) {
      const model = run.model;
      // A model without vision is told so before anything is sent, naming the model.
      const refusal = mediaRefusal(model.model, model.provider.mediaInput, history);
      if (refusal) throw new Error(refusal);
      try {
        const sent = history.length;
        call = yield* run.steps.callModel(
          {
            turn: state.turn,
            request: {
              model: model.providerModel,
              system: options.system,
              messages: history,
              ...requestTools(run.toolSpecs, model.provider, options.webSearch),
              maxTokens: run.maxTokens,
              ...(options.thinking ? { thinking: options.thinking } : {}),
              ...(options.effort ? { effort: options.effort } : {}),
            },
            // An overloaded primary hands over after a few answers, not after all its retries.
            ...(options.fallback && model !== options.fallback
              ? { overloadedLimit: OVERLOADED_ANSWERS_BEFORE_FALLBACK }
              : {}),
          },
          {
            provider: model.provider,
            signal,
            retryPolicy: run.retryPolicy,
            onAttempt: state.inFlight.follow,
          },
        );
        state.inFlight.settle();
        meter.record(sent, call.message.usage);
      } catch (error) {
        if (signal.aborted || !(error instanceof ProviderError)) throw error;
        if (error.contextOverflow && !recovered) {
          recovered = true;
          const compacted = yield* compact(run, "auto", null, 0);
          // The estimate fell short of the server's count: leave the request half the room.
          const cuts = fitToolResults(history, Math.floor(meter.room / 2), meter);
          if (compacted || cuts > 0) continue;
        }
        if (error.contextOverflow) {
          throw new Error(
            `${error.message} (the request did not fit the model's context window of ${meter.window} tokens, also after compaction; set the window with --context-window if it is wrong)`,
          );
        }
        const fallback = options.fallback;
        if (fallback && model !== fallback && isUnavailable(error)) {
          yield [
            {
              type: "model_fallback",
              turn: state.turn,
              from: model.model,
              to: fallback.model,
              error: error.message,
            },
          ];
          run.model = fallback;
          continue;
        }
        throw error;
      }
    }
  } finally {
    state.addApiTime(nowMs() - callStarted);
  }
  const { message } = call;
  state.answered(message, call.requestId);
  const callCost = state.account(message.usage, run.model);
  const requestId = state.lastRequestId;
  yield [
    {
      type: "model_call_end",
      turn: state.turn,
      message,
      ...(requestId ? { requestId } : {}),
      ...(call.rateLimit ? { rateLimit: call.rateLimit } : {}),
      durationMs: Math.round(nowMs() - callStarted),
      costUsd: callCost ?? null,
    },
  ];
  history.push({ role: "assistant", content: message.content.filter(Boolean) });
  return call;
}

/** Overloaded, down, unreachable or without the model: what a fallback model can help with. */
function isUnavailable(error: ProviderError): boolean {
  const status = error.status;
  if (status === undefined) return error.retryable;
  return status === 404 || status === 429 || status === 529 || status >= 500;
}
