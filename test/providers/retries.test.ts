import { afterEach, describe, expect, test } from "vitest";
import * as z from "zod";
import type { EngineEvent, ModelCallRetryEvent } from "../../src/engine/events.js";
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from "../../src/engine/retry.js";
import { httpError, reply, type ScriptedServer, startScriptedServer } from "../../src/testing/index.js";
import { defineTool } from "../../src/tools/define.js";
import { collect } from "../helpers/loop.js";
import { WIRE_CASES } from "./helpers.js";

/** The engine's retries, driven through each wire's provider: the errors must classify the same way. */
let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const fast: RetryPolicy = { ...DEFAULT_RETRY_POLICY, baseDelayMs: 5, maxDelayMs: 20 };
const retries = (events: EngineEvent[]) =>
  events.filter((e): e is ModelCallRetryEvent => e.type === "model_call_retry");
const shownText = (events: EngineEvent[]) =>
  events
    .map((e) =>
      e.type === "stream" && e.event.type === "content_block_delta" && e.event.delta.type === "text_delta"
        ? e.event.delta.text
        : "",
    )
    .join("");

describe.each(WIRE_CASES)("engine retries through $name", (wire) => {
  test("429 with Retry-After, then success", async () => {
    server = await startScriptedServer({
      steps: [httpError(429, { retryAfter: 0.01 }), reply().text("fine")],
    });
    const { events, end } = await collect({
      provider: await wire.make(server.url),
      tools: [],
      retryPolicy: fast,
    });
    expect(end.result).toBe("fine");
    expect(retries(events).map((r) => [r.errorStatus, r.delayMs])).toEqual([[429, 10]]);
    expect(server.requests).toHaveLength(2);
  });

  test("a stream cut after partial text is retried; the text is shown and kept once", async () => {
    const answer = "The answer is forty-two, as computed.";
    server = await startScriptedServer({
      steps: [reply().text(answer).cutAfterEvents(6), reply().text(answer)],
      chunkSize: 4,
    });
    const { events, end } = await collect({
      provider: await wire.make(server.url),
      tools: [],
      retryPolicy: fast,
    });
    expect(end.subtype).toBe("success");
    expect(retries(events)).toHaveLength(1);
    expect(end.result).toBe(answer);
    expect(shownText(events)).toBe(answer);
  });

  test("a tool call from a cut attempt never runs", async () => {
    const ran: string[] = [];
    const counting = defineTool({
      name: "Echo",
      description: "echoes its text",
      effects: { kind: "read", readOnly: true, network: false },
      input: z.object({ text: z.string() }),
      async run(input) {
        ran.push(input.text);
        return { content: `echo: ${input.text}`, data: {} };
      },
    });
    server = await startScriptedServer({
      steps: [
        reply().tool("Echo", { text: "once" }).cutAfterEvents(4),
        reply().tool("Echo", { text: "once" }),
        reply().text("ok"),
      ],
      chunkSize: 3,
    });
    const { end } = await collect({
      provider: await wire.make(server.url),
      tools: [counting],
      retryPolicy: fast,
    });
    expect(end.subtype).toBe("success");
    expect(ran).toEqual(["once"]);
  });

  test("an idle stream is aborted and retried", async () => {
    server = await startScriptedServer({
      steps: [reply().text("slow").stall(3, 60_000), reply().text("quick")],
    });
    const { events, end } = await collect({
      provider: await wire.make(server.url),
      tools: [],
      retryPolicy: { ...fast, idleTimeoutMs: 150 },
    });
    expect(retries(events)[0]?.error).toMatch(/idle/);
    expect(end.result).toBe("quick");
  });

  test("401 is not retried", async () => {
    server = await startScriptedServer({ steps: [httpError(401), reply().text("never")] });
    const { events, end } = await collect({
      provider: await wire.make(server.url),
      tools: [],
      retryPolicy: fast,
    });
    expect(end.subtype).toBe("error_during_execution");
    expect(end.errors[0]).toContain("401");
    expect(retries(events)).toHaveLength(0);
    expect(server.requests).toHaveLength(1);
  });
});
