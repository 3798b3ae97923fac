import type { ModelProvider, ModelResponse } from "../engine/provider.js";
import { ProviderError } from "../engine/provider.js";
import type { ModelLimiter } from "./model-limits.js";

/**
 * The provider a worker's run calls its model through: each request first waits for its place
 * under the deployment's model limits (src/durable/model-limits.ts) and holds it until its answer
 * has streamed; a 429 it gets pauses every worker's requests of that account to that model. A
 * provider with no remote account (local, replay) is returned as it is.
 */
export function limitedProvider(inner: ModelProvider, limiter: ModelLimiter, runId: string): ModelProvider {
  const scope = inner.limitScope?.();
  if (!scope) return inner;
  const noteRateLimit = (error: unknown, model: string) =>
    error instanceof ProviderError && error.status === 429
      ? limiter.rateLimited(scope, model, error.retryAfterMs).catch(() => {})
      : undefined;
  return {
    wire: inner.wire,
    displayName: inner.displayName,
    apiKeySource: inner.apiKeySource,
    ...(inner.mediaInput !== undefined ? { mediaInput: inner.mediaInput } : {}),
    ...(inner.contextWindow !== undefined ? { contextWindow: inner.contextWindow } : {}),
    ...(inner.serverWebSearch !== undefined ? { serverWebSearch: inner.serverWebSearch } : {}),
    limitScope: () => scope,
    async stream(request, signal): Promise<ModelResponse> {
      const lease = await limiter.acquire(scope, request.model, runId, signal);
      // An aborted request (a cancel, an idle stream) frees its place whether or not it is read on.
      signal.addEventListener("abort", () => void lease.release(), { once: true });
      let response: ModelResponse;
      try {
        response = await inner.stream(request, signal);
      } catch (error) {
        await noteRateLimit(error, request.model);
        await lease.release();
        throw error;
      }
      const held = <T>(source: AsyncIterable<T>): AsyncIterable<T> => ({
        async *[Symbol.asyncIterator]() {
          try {
            yield* source;
          } catch (error) {
            await noteRateLimit(error, request.model);
            throw error;
          } finally {
            // The step ends with its place given back: the next request anywhere may take it.
            await lease.release();
          }
        },
      });
      return {
        ...response,
        events: held(response.events),
        ...(response.batches ? { batches: held(response.batches) } : {}),
      };
    },
  };
}
