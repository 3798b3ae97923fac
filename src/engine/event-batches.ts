import type { ModelStreamEvent } from "./messages.js";
import type { ModelResponse } from "./provider.js";

/** A response's events in batches: the provider's own batches, else one event per batch. */
export function batchesOf(response: ModelResponse): AsyncIterable<ModelStreamEvent[]> {
  return response.batches ?? singles(response.events);
}

async function* singles<T>(events: AsyncIterable<T>): AsyncGenerator<T[]> {
  for await (const event of events) yield [event];
}

/** One event at a time from batches (what `ModelResponse.events` is for a batching provider). */
export async function* eachOf<T>(batches: AsyncIterable<T[]>): AsyncGenerator<T> {
  for await (const batch of batches) {
    for (const event of batch) yield event;
  }
}
