import { _iterSSEMessages } from "@anthropic-ai/sdk/core/streaming";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { textDeltas } from "../../src/providers/anthropic-events.js";
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

describe("the text-delta shortcut gives what the listener and JSON.parse give", () => {
  /** Each message as the Anthropic stream reads it: its name and its data parsed (or why not). */
  function read(chunks: Uint8Array[], shortcut: boolean): { taken: number; messages: unknown[] } {
    const messages: unknown[] = [];
    let taken = 0;
    const decoder = new SseDecoder(
      (event, data) => {
        let value: unknown;
        try {
          value = JSON.parse(data);
        } catch {
          value = { unparsed: data };
        }
        messages.push({ event, value });
      },
      shortcut
        ? textDeltas((value) => {
            taken++;
            messages.push({ event: "content_block_delta", value });
          })
        : undefined,
    );
    for (const chunk of chunks) decoder.push(chunk);
    decoder.end();
    return { taken, messages };
  }

  const delta = (index: string, text: string) =>
    `event: content_block_delta\ndata: {"type":"content_block_delta","index":${index},"delta":{"type":"text_delta","text":${text}}}\n\n`;

  test("the Messages API's deltas take the shortcut, whole and cut anywhere", () => {
    const text = `${delta("0", '"Hello, "')}${delta("1", '"wörld ✓ 😀"')}${delta("12", '""')}${delta("0", JSON.stringify('a "quote", a \\ and\n\ta line\u0001 \u2028'))}event: message_stop\ndata: {"type":"message_stop"}\n\n`;
    const bytes = encode(text);
    const expected = read([bytes], false).messages;
    expect(read([bytes], true)).toEqual({ taken: 4, messages: expected });
    for (let at = 0; at <= bytes.length; at++) {
      const chunks = cut(bytes, [at]);
      const { messages } = read(chunks, true);
      expect(messages).toEqual(expected);
      expect(JSON.stringify(messages)).toBe(JSON.stringify(expected)); // keys in the same order
    }
  });

  test("one text delta of ten million characters goes the general way instead of failing the run", () => {
    // The shortcut's regular expression overflowed its backtracking stack on it ("Maximum call
    // stack size exceeded"), which ended the run with exit 1.
    const huge = "x".repeat(10_000_000);
    const bytes = encode(
      `${delta("0", JSON.stringify(huge))}event: message_stop\ndata: {"type":"message_stop"}\n\n`,
    );
    const { messages } = read([bytes], true);
    expect(messages).toHaveLength(2);
    expect((messages[0] as { value: { delta: { text: string } } }).value.delta.text).toBe(huge);
  });

  test("any text, escaped or not, any index, near misses of the shape, any chunk boundaries", () => {
    let shortcuts = 0;
    const piece = fc.oneof(
      fc.string({ unit: "binary", maxLength: 12 }),
      fc.constantFrom(
        '"',
        "\\",
        "\\n",
        "\\u0041",
        "\\ud83d",
        "\n",
        "\r",
        "\u0000",
        "\u001f",
        "\u007f",
        "\uFEFF",
        "é",
        "😀",
        " ",
      ),
    );
    const text = fc.array(piece, { maxLength: 6 }).map((pieces) => pieces.join(""));
    const index = fc.constantFrom(
      "0",
      "1",
      "7",
      "42",
      "123456789",
      "1234567890",
      "01",
      "-1",
      "1.5",
      "1e2",
      " 0",
      "",
    );
    const message = fc.oneof(
      // Escaped as a JSON writer would, or written raw (then possibly not JSON at all).
      fc.tuple(index, text).map(([i, t]) => delta(i, JSON.stringify(t))),
      fc.tuple(index, text).map(([i, t]) => delta(i, `"${t}"`)),
      text.map((t) => delta("0", JSON.stringify(t)).replace('"text":', '"text": ')),
      text.map((t) => delta("0", JSON.stringify(t)).replace("\n\n", "\r\n\r\n")),
      text.map((t) => delta("0", JSON.stringify(t)).replace("}}\n", '},"x":1}\n')),
      text.map((t) => delta("0", JSON.stringify(t)).replace("text_delta", "thinking_delta")),
      text.map((t) => delta("0", JSON.stringify(t)).replace("event: content_block_delta\n", "")),
      text.map((t) => `\n${delta("0", JSON.stringify(t))}`),
      fc.constantFrom(
        'event: message_start\ndata: {"type":"message_start"}\n\n',
        "event: ping\ndata: {}\n\n",
        ": comment\n",
        "\n",
        "event: content_block_delta\n",
      ),
    );
    fc.assert(
      fc.property(
        fc.array(message, { maxLength: 8 }),
        fc.array(fc.nat(600), { maxLength: 5 }),
        (messages, offsets) => {
          const chunks = cut(encode(messages.join("")), offsets);
          const expected = read(chunks, false).messages;
          const { messages: got, taken } = read(chunks, true);
          expect(got).toEqual(expected);
          expect(JSON.stringify(got)).toBe(JSON.stringify(expected));
          shortcuts += taken;
        },
      ),
      { numRuns: 3000 },
    );
    expect(shortcuts).toBeGreaterThan(100); // the property is not vacuous
  });
});
