import type { ModelStreamEvent } from "../engine/messages.js";
import { SseDecoder, type SseShortcut } from "./sse.js";
import { endedEarly } from "./stream-builder.js";
import { ProviderError } from "./types.js";

export type AnthropicStreamOptions = {
  signal: AbortSignal;
  baseURL: string;
  /** Maps a failure (HTTP, JSON, connection) to a ProviderError. */
  mapError: (error: unknown) => Error;
  /** The client's own error for an `event: error` message. */
  streamError: (data: string, headers: Headers) => Error;
  /** Called once the body is finished with (read to its end, failed, or abandoned). */
  onFinished?: () => void;
};

/**
 * The events of a streamed Messages response, one array per network chunk, read from the body of
 * the response the official client fetched. The client's own `Stream` yields one event at a time
 * through three async generators, which costs more than parsing at tens of thousands of events a
 * second (docs/performance.md); this reads the same body with the same rules, synchronously per
 * chunk. Behaviour matches the client's parser followed by cairn's checks:
 *
 * - messages without an event name, `ping`s and messages without data are skipped; `event: error`
 *   throws the client's APIError; data that is not JSON throws (a non-retryable ProviderError);
 * - an event without a `type` fails the stream; an abort ends it quietly (as in the client), and the
 *   checks below turn that into the abort;
 * - a stream with no events fails as "not a Messages event stream", one without `message_stop` as
 *   cut short.
 *
 * Events before a failure in the same chunk are still delivered, as they were one by one.
 */
export async function* anthropicEventBatches(
  response: Response,
  options: AnthropicStreamOptions,
): AsyncGenerator<ModelStreamEvent[]> {
  const { signal, baseURL, mapError } = options;
  const body = response.body;
  if (!body) throw mapError(new Error("Attempted to iterate over a response with no body"));
  let count = 0;
  let stopped = false;
  /** The events of the chunk being decoded. */
  let batch: ModelStreamEvent[] = [];
  const decoder = new SseDecoder(
    (name, data) => {
      if (name === null || name === "ping") return;
      if (name === "error") throw options.streamError(data, response.headers);
      if (!data) return;
      const event = JSON.parse(data) as ModelStreamEvent | null;
      const type = (event as { type?: unknown } | null)?.type;
      if (typeof type !== "string") {
        throw new ProviderError(
          `Anthropic server at ${baseURL} sent a stream event without a type: ${JSON.stringify(event)?.slice(0, 80)}`,
          undefined,
          { retryable: false },
        );
      }
      if (type === "ping") return;
      count++;
      if (type === "message_stop") stopped = true;
      batch.push(event as ModelStreamEvent);
    },
    textDeltas((event) => {
      count++;
      batch.push(event);
    }),
  );
  const reader = body.getReader();
  let released = false;
  try {
    while (true) {
      let read: Awaited<ReturnType<typeof reader.read>>;
      try {
        read = await reader.read();
      } catch (error) {
        if (isAbort(error)) {
          released = true;
          break;
        }
        throw mapError(error);
      }
      let failure: { error: unknown } | undefined;
      try {
        if (read.done) decoder.end();
        else decoder.push(read.value);
      } catch (error) {
        failure = { error: mapError(error) };
      }
      if (batch.length > 0) {
        const events = batch;
        batch = [];
        yield events;
      }
      if (failure) throw failure.error;
      if (read.done) {
        released = true;
        break;
      }
    }
  } finally {
    // Stopped early (a failure, or the consumer stopped): release the connection, as the client does.
    if (!released) reader.cancel().catch(() => undefined);
    options.onFinished?.();
  }
  if (count === 0 && !signal.aborted) {
    throw new ProviderError(
      `Anthropic server at ${baseURL} did not send a Messages event stream: the response had no events (is the base URL right?)`,
      undefined,
      { retryable: false },
    );
  }
  if (!stopped) endedEarly(signal, `The Anthropic stream from ${baseURL} ended before message_stop.`);
}

/** What the client treats as an abort (fetch's AbortError), ending the stream without an error. */
function isAbort(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { name?: unknown }).name === "AbortError";
}

/**
 * A text delta exactly as the Messages API sends it: `event: content_block_delta` and one `data`
 * line of compact JSON in this key order, the index without leading zeros, the text any JSON
 * string. Such messages are most of a streamed answer, and matching one is cheaper than cutting it
 * out of the chunk and parsing all of it (docs/performance.md): only the text goes through
 * JSON.parse, which decodes its escapes as it would inside the object and gives a string of its
 * own (a slice of the match would keep the whole network chunk alive). So the event is the object
 * JSON.parse gives, key for key and in the same order; anything else (spaces, other fields or
 * order) is parsed whole, as before.
 */
const TEXT_DELTA =
  /event: content_block_delta\ndata: \{"type":"content_block_delta","index":(0|[1-9]\d{0,8}),"delta":\{"type":"text_delta","text":("(?:[^"\\\x00-\x1f]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*")\}\}\n\n/y;

/** The SSE shortcut for text deltas: `onDelta` gets the event JSON.parse would have made. */
export function textDeltas(onDelta: (event: ModelStreamEvent) => void): SseShortcut {
  return {
    pattern: new RegExp(TEXT_DELTA), // its own lastIndex
    take: (match) =>
      onDelta({
        type: "content_block_delta",
        index: Number(match[1]),
        delta: { type: "text_delta", text: JSON.parse(match[2] as string) as string },
      }),
  };
}
