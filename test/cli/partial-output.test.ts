import { describe, expect, test } from "vitest";
import { projectionFor } from "../../src/cli/formats/select.js";
import type { OutputFormat } from "../../src/cli/formats/types.js";
import type { EngineEvent, RunEndEvent } from "../../src/engine/events.js";
import { type ReplyBuilder, reply } from "../../src/testing/index.js";
import { engineEvents } from "./engine-events.js";
import { validLine } from "./schemas.js";

/**
 * PM-28…PM-30 as properties of the stream-json projection over real engine event sequences:
 * whatever the text and however it is chunked, keeping only the deltas rebuilds `result` byte for
 * byte, each flush repeats exactly the segment it closes, and nothing else carries new text.
 */
function lines(events: EngineEvent[], format: OutputFormat, partial: boolean): Record<string, unknown>[] {
  // The Echo tool of these runs declares no payload shape.
  const projection = projectionFor(format, partial, []);
  const out = events.map((event) => projection.project(event)).join("");
  return out.split("\n").filter(Boolean).map(validLine);
}

const textOf = (event: Record<string, unknown>) =>
  (event.message as { content: { text: string }[] }).content.map((block) => block.text).join("");

/** Segments: the text between tool calls, as a model sent it, with a tool call after each but the last. */
function steps(segments: string[]): ReplyBuilder[] {
  return segments.map((text, index) => {
    const step = reply();
    if (text !== "") step.text(text);
    if (index < segments.length - 1) step.tool("Echo", { text: `call ${index}` });
    return step;
  });
}

function check(events: EngineEvent[], segments: string[]): void {
  const end = events.at(-1) as RunEndEvent;
  const expected = segments.join("");
  expect(end.result).toBe(expected);

  const partial = lines(events, "stream-json", true);
  const assistants = partial.filter((event) => event.type === "assistant");
  const deltas = assistants.filter((event) => "timestamp_ms" in event && !("model_call_id" in event));
  expect(Buffer.from(deltas.map(textOf).join(""))).toEqual(Buffer.from(expected));
  expect(partial.at(-1)!.result).toBe(expected);

  // Each boundary repeats, once, exactly what its segment's deltas said.
  const flushes = assistants.filter((event) => "model_call_id" in event);
  const finals = assistants.filter((event) => !("timestamp_ms" in event));
  const nonEmpty = segments.slice(0, -1).filter((text) => text !== "");
  expect(flushes.map(textOf)).toEqual(nonEmpty);
  expect(finals.map(textOf)).toEqual(segments.at(-1) === "" ? [] : [segments.at(-1)]);
  for (const flush of flushes) {
    expect(partial[partial.indexOf(flush) + 1]).toMatchObject({ type: "tool_call", subtype: "started" });
  }

  // Without partial output: one line per non-empty segment, concatenating to the same result.
  const plain = lines(events, "stream-json", false).filter((event) => event.type === "assistant");
  expect(plain.map(textOf)).toEqual(segments.filter((text) => text !== ""));
  expect(lines(events, "json", false)[0]!.result).toBe(expected);
}

const TRICKY: string[][] = [
  ["正在查看项目 🙂\n", "  ", "\t\n", "done ✅ 👩‍💻"],
  ["", "only after a silent tool call"],
  ["\r\n\r\n", "é\u0301 combining", '"quotes" and \\backslashes\\'],
  ["a"],
  ["text before", ""],
];

describe("partial output properties", () => {
  for (const chunkSize of [1, 2, 3]) {
    test.each(TRICKY.map((segments) => [JSON.stringify(segments), segments] as const))(
      `chunkSize ${chunkSize}: %s`,
      async (_, segments) => {
        check(await engineEvents(steps(segments), chunkSize), segments);
      },
    );
  }

  test("random texts of emoji, CJK, whitespace and escapes, random chunk sizes", async () => {
    const alphabet = [
      "a",
      "Z",
      " ",
      "  ",
      "\n",
      "\t",
      "\r\n",
      "🙂",
      "👩‍💻",
      "正",
      "é",
      "\u200d",
      '"',
      "\\",
      "\u0000",
    ];
    let seed = 20_260_101;
    const random = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed % n;
    };
    for (let run = 0; run < 40; run++) {
      const segments = Array.from({ length: 1 + random(4) }, () =>
        Array.from({ length: random(12) }, () => alphabet[random(alphabet.length)]).join(""),
      );
      check(await engineEvents(steps(segments), 1 + random(5)), segments);
    }
  });
});
