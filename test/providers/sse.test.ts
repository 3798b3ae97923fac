import { _iterSSEMessages } from "@anthropic-ai/sdk/core/streaming";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { SseDecoder } from "../../src/providers/sse.js";

type Message = { event: string | null; data: string };

/** What cairn's decoder makes of `bytes` cut into `chunks`. */
function decode(chunks: Uint8Array[]): Message[] {
  const messages: Message[] = [];
  const decoder = new SseDecoder((event, data) => messages.push({ event, data }));
  for (const chunk of chunks) decoder.push(chunk);
  decoder.end();
  return messages;
}

/** What the official Anthropic client's parser makes of the same chunks. */
async function reference(chunks: Uint8Array[]): Promise<Message[]> {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  const messages: Message[] = [];
  for await (const sse of _iterSSEMessages(new Response(body), new AbortController())) {
    messages.push({ event: sse.event, data: sse.data });
  }
  return messages;
}

/** `bytes` cut at the given offsets (possibly inside a multi-byte character). */
function cut(bytes: Uint8Array, offsets: number[]): Uint8Array[] {
  const points = [...new Set(offsets.map((offset) => offset % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let start = 0;
  for (const point of [...points, bytes.length]) {
    if (point > start) chunks.push(bytes.subarray(start, point));
    start = Math.max(start, point);
  }
  return chunks;
}

const encode = (text: string) => new TextEncoder().encode(text);

describe("SseDecoder reads a stream as the official client does", () => {
  test("the Messages API's own shape, whole and cut anywhere", async () => {
    const text =
      'event: message_start\ndata: {"type":"message_start"}\n\n' +
      'event: ping\ndata: {"type": "ping"}\n\n' +
      'event: content_block_delta\ndata: {"type":"content_block_delta","delta":{"text":"é ✓"}}\n\n' +
      "event: message_stop\ndata: {}\n\n";
    const bytes = encode(text);
    const expected = await reference([bytes]);
    expect(expected).toHaveLength(4);
    for (let at = 0; at <= bytes.length; at++) {
      expect(decode(cut(bytes, [at]))).toEqual(expected);
    }
  });

  test("a message begun in a chunk with CR line ends and finished in one without", async () => {
    const chunks = ["data: a\r\n", "event: x\ndata: y\n\n"].map(encode);
    const expected = await reference(chunks);
    expect(expected).toEqual([{ event: "x", data: "a\ny" }]);
    expect(decode(chunks)).toEqual(expected);
  });

  test("any mix of fields, comments, blank lines, CR / CRLF / LF, BOMs and chunk boundaries", async () => {
    const token = fc.constantFrom(
      "event: content_block_delta\n",
      'data: {"type":"content_block_delta"}\n',
      "event: ",
      "event:",
      "event",
      "data: ",
      "data:",
      "data",
      "datum: ",
      "id: 7",
      ": comment",
      "retry: 5",
      "ping",
      "error",
      "x",
      " ",
      ":",
      "{}",
      "é",
      "✓",
      "\uFEFF",
      "\n",
      "\n",
      "\n\n",
      "\r",
      "\r\n",
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(token, { maxLength: 40 }),
        fc.array(fc.nat(200), { maxLength: 6 }),
        async (tokens, offsets) => {
          const bytes = encode(tokens.join(""));
          const chunks = cut(bytes, offsets);
          expect(decode(chunks)).toEqual(await reference(chunks));
        },
      ),
      { numRuns: 2000 },
    );
  });
});
