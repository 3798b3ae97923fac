import { ProviderError } from "./provider.js";

/** How model calls are retried. Defaults suit interactive and CI use alike. */
export type RetryPolicy = {
  /** Retries after the first attempt (0 disables retrying). */
  maxRetries: number;
  /** First backoff; doubles per attempt, with full jitter. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** A server's Retry-After is honoured up to this cap. */
  retryAfterCapMs: number;
  /** A stream with no event for this long is aborted and retried. */
  idleTimeoutMs: number;
};

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxRetries: 4,
  baseDelayMs: 500,
  maxDelayMs: 20_000,
  retryAfterCapMs: 60_000,
  idleTimeoutMs: 120_000,
};

/**
 * Reads `CAIRN_MAX_RETRIES`, `CAIRN_RETRY_BASE_MS`, `CAIRN_STREAM_IDLE_TIMEOUT_MS` over the defaults.
 * A value that is not a number of zero or more goes to `invalid` (the run's front end says so).
 */
export function retryPolicyFromEnv(
  env: NodeJS.ProcessEnv,
  base: RetryPolicy = DEFAULT_RETRY_POLICY,
  invalid: (message: string) => void = () => {},
): RetryPolicy {
  const num = (name: string): number | undefined => {
    const raw = env[name];
    if (raw === undefined || raw === "") return undefined;
    const value = Number(raw);
    if (Number.isFinite(value) && value >= 0) return value;
    invalid(`${name} must be a number of zero or more, not "${raw}"`);
    return undefined;
  };
  return {
    ...base,
    maxRetries: num("CAIRN_MAX_RETRIES") ?? base.maxRetries,
    baseDelayMs: num("CAIRN_RETRY_BASE_MS") ?? base.baseDelayMs,
    idleTimeoutMs: num("CAIRN_STREAM_IDLE_TIMEOUT_MS") ?? base.idleTimeoutMs,
  };
}

/**
 * How many overloaded answers (HTTP 529, `overloaded_error`) of one model call make it hand over to
 * the fallback model at once instead of spending its remaining retries: the reference's
 * MAX_529_RETRIES (docs/context.md, "Fallback model"). Without a fallback model they are retried
 * like any other retryable failure.
 */
export const OVERLOADED_ANSWERS_BEFORE_FALLBACK = 3;

export function isOverloaded(error: unknown): boolean {
  return error instanceof ProviderError && error.overloaded;
}

export function isRetryable(error: unknown): boolean {
  if (error instanceof ProviderError) return error.retryable;
  return false;
}

/** Backoff before retry number `attempt` (1-based): Retry-After when given (capped), else jittered exponential. */
export function retryDelayMs(
  attempt: number,
  error: unknown,
  policy: RetryPolicy,
  random = Math.random,
): number {
  const retryAfter = error instanceof ProviderError ? error.retryAfterMs : undefined;
  if (retryAfter !== undefined) return Math.min(retryAfter, policy.retryAfterCapMs);
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  // Half fixed, half jitter: spreads retries of concurrent runs without ever retrying instantly.
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/** Waits `ms`, or rejects at once when the signal aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Waits for a model call's response (headers), failing with a retryable ProviderError when it takes
 * longer than `idleMs`; `onIdle` aborts the request. A server that accepts and never answers is
 * therefore retried like an idle stream instead of waiting for the client's own long timeout.
 */
export async function withResponseTimeout<T>(
  pending: Promise<T>,
  idleMs: number,
  onIdle: () => void,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const idle = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      onIdle();
      reject(idleError(idleMs));
    }, idleMs);
  });
  try {
    return await Promise.race([pending, idle]);
  } finally {
    clearTimeout(timer);
  }
}

function idleError(idleMs: number): ProviderError {
  return new ProviderError(
    `The model stream was idle for ${Math.round(idleMs / 1000)} s and was aborted.`,
    undefined,
    {
      retryable: true,
    },
  );
}

/**
 * Iterates a model stream, failing with a retryable ProviderError when no event arrives for
 * `idleMs`; `onIdle` aborts the underlying request so its socket is released.
 *
 * One timer serves the whole stream and is re-armed only when it fires: arming and clearing a timer
 * and racing a promise for every event cost more than the rest of an event's handling at tens of
 * thousands of deltas a second (docs/performance.md). Only time spent waiting for the source counts;
 * a consumer that holds an event (stdout backpressure) never makes the stream look idle.
 */
export async function* withIdleTimeout<T>(
  source: AsyncIterable<T>,
  idleMs: number,
  onIdle: () => void,
): AsyncGenerator<T> {
  const iterator = source[Symbol.asyncIterator]();
  /** Date.now() when the pending wait for the source began; undefined while the consumer has an event. */
  let waitingSince: number | undefined;
  let wake: ((value: "idle") => void) | undefined;
  let timer: NodeJS.Timeout | undefined;
  const check = () => {
    const waited = waitingSince === undefined ? 0 : Date.now() - waitingSince;
    if (waited >= idleMs) wake?.("idle");
    else timer = setTimeout(check, idleMs - waited);
  };
  timer = setTimeout(check, idleMs);
  try {
    while (true) {
      waitingSince = Date.now();
      const next = await new Promise<IteratorResult<T> | "idle">((resolve, reject) => {
        wake = resolve;
        iterator.next().then(resolve, reject);
      });
      waitingSince = undefined;
      wake = undefined;
      if (next === "idle") {
        onIdle();
        throw idleError(idleMs);
      }
      if (next.done) return;
      yield next.value;
    }
  } finally {
    clearTimeout(timer);
    // Closing the iterator releases the HTTP response when we stop early. Not awaited: after an idle
    // timeout a `next()` may still be pending, and `return()` would queue behind it.
    iterator.return?.().catch(() => undefined);
  }
}
