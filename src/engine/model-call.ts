import { randomUuid } from "../util/random-id.js";
import { batchesOf } from "./event-batches.js";
import type { EngineEvent } from "./events.js";
import { type MalformedToolInput, MessageAssembler } from "./message-assembler.js";
import type { ModelStreamEvent, StreamedMessage } from "./messages.js";
import type { ModelProvider, ModelRequest, RateLimitReport } from "./provider.js";
import { ProviderError } from "./provider.js";
import {
  isOverloaded,
  isRetryable,
  type RetryPolicy,
  retryDelayMs,
  sleep,
  withIdleTimeout,
  withResponseTimeout,
} from "./retry.js";
import { RetryDeduper } from "./retry-dedupe.js";

/** What a completed call gives back: plain data (a durable engine may keep it and give it back instead of calling again). */
export type ModelCallResult = {
  message: StreamedMessage;
  /** The tool calls whose streamed input was not valid JSON: they must never run. */
  malformed: MalformedToolInput[];
  requestId?: string;
  rateLimit?: RateLimitReport;
};

export type ModelCallOptions = {
  /**
   * Give up after this many overloaded answers, without the remaining retries: the caller has a
   * fallback model waiting. Counted over the whole call, as the reference counts them.
   */
  overloadedLimit?: number;
  /** Given each attempt's assembler as it starts (what the model has streamed so far). */
  onAttempt?: (assembler: MessageAssembler) => void;
};

/**
 * One model call with retries: streams the reply as `stream` / `assistant_block` events, retries
 * retryable failures (HTTP 408/409/429/5xx, resets, cut or idle streams) with backoff, and never
 * shows output of a failed attempt twice; with `overloadedLimit`, the overloaded answer of that number
 * ends the call instead of being retried. Tool calls of a failed attempt never run: tools run only
 * after a call has completed.
 *
 * Events come out in batches: all the events of one network chunk at once (and every other event
 * alone), so that a fast stream costs one async step per chunk, not per event, in every layer up to
 * the front end (docs/performance.md). Each batch is non-empty; flattened, the batches are the
 * engine's event stream. `options.onAttempt` is given each attempt's assembler as it starts (what the
 * model has streamed so far, for an interrupted turn to keep).
 */
export async function* callModel(
  provider: ModelProvider,
  request: ModelRequest,
  turn: number,
  signal: AbortSignal,
  policy: RetryPolicy,
  options: ModelCallOptions = {},
): AsyncGenerator<EngineEvent[], ModelCallResult> {
  const deduper = new RetryDeduper();
  let overloaded = 0;
  for (let attempt = 1; ; attempt++) {
    const attemptController = new AbortController();
    const abortAttempt = () => attemptController.abort(signal.reason);
    signal.addEventListener("abort", abortAttempt, { once: true });
    const assembler = new MessageAssembler();
    options.onAttempt?.(assembler);
    try {
      const onIdle = () => attemptController.abort(new Error("idle stream"));
      const pending = provider.stream(request, attemptController.signal);
      // If the wait times out, the abandoned promise's rejection must not surface as unhandled.
      pending.catch(() => undefined);
      const response = await withResponseTimeout(pending, policy.idleTimeoutMs, onIdle);
      /** Folds one raw event into the message and adds what consumers see of it to `into`. */
      const show = (event: ModelStreamEvent, receivedAt: number, into: EngineEvent[]): void => {
        const completed = assembler.apply(event);
        const shown = deduper.filter(event);
        if (!shown) return;
        into.push({ type: "stream", turn, event: shown, receivedAt });
        if (completed) {
          const snapshot = assembler.snapshot()!;
          into.push({
            type: "assistant_block",
            turn,
            block: completed,
            messageId: snapshot.id,
            model: snapshot.model,
            usage: snapshot.usage,
            // A block completes on its content_block_stop, which names its index.
            index: (event as { index: number }).index,
            uuid: randomUuid(),
          });
        }
      };
      /**
       * Shows a batch's events. A function of its own: its loop is the hot code of a streamed
       * answer, and V8 then optimises this small function early and cheaply instead of the whole
       * of callModel, late and at length on the machine's other core.
       */
      const showBatch = (batch: ModelStreamEvent[], receivedAt: number, into: EngineEvent[]): void => {
        for (const event of batch) show(event, receivedAt, into);
      };
      const batches = withIdleTimeout(batchesOf(response), policy.idleTimeoutMs, onIdle);
      for await (const batch of batches) {
        const out: EngineEvent[] = [];
        const receivedAt = Date.now();
        let failure: { error: unknown } | undefined;
        try {
          showBatch(batch, receivedAt, out);
        } catch (error) {
          failure = { error };
        }
        // What came before a malformed event is delivered first, as it was one event at a time.
        if (out.length > 0) yield out;
        if (failure) throw failure.error;
      }
      const message = assembler.snapshot();
      if (!message || message.stop_reason === null) {
        throw new ProviderError("The model stream ended before the message was complete.", undefined, {
          retryable: true,
        });
      }
      return {
        message,
        malformed: assembler.malformed,
        ...(response.requestId ? { requestId: response.requestId } : {}),
        ...(response.rateLimit ? { rateLimit: response.rateLimit } : {}),
      };
    } catch (error) {
      if (signal.aborted) throw error;
      if (!isRetryable(error) || attempt > policy.maxRetries) throw error;
      if (isOverloaded(error) && ++overloaded >= (options.overloadedLimit ?? Number.POSITIVE_INFINITY)) {
        throw error;
      }
      const delayMs = retryDelayMs(attempt, error, policy);
      yield [
        {
          type: "model_call_retry",
          turn,
          attempt: attempt + 1,
          maxRetries: policy.maxRetries,
          delayMs,
          errorStatus: error instanceof ProviderError && error.status !== undefined ? error.status : null,
          error: error instanceof Error ? error.message : String(error),
        },
      ];
      deduper.startRetry();
      await sleep(delayMs, signal);
    } finally {
      signal.removeEventListener("abort", abortAttempt);
    }
  }
}
