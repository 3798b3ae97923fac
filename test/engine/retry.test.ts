import { afterEach, describe, expect, test } from "vitest";
import type { EngineEvent, ModelCallRetryEvent } from "../../src/engine/events.js";
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from "../../src/engine/retry.js";
import { hang, httpError, reply, type ScriptedServer, startScriptedServer } from "../../src/testing/index.js";
import { collect, echoTool, gatedTool, scriptedProvider } from "../helpers/loop.js";

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const fast: RetryPolicy = { ...DEFAULT_RETRY_POLICY, baseDelayMs: 5, maxDelayMs: 20 };

/** The text a consumer rebuilds by appending every text delta it was shown. */
function streamedText(events: EngineEvent[]): string {
  return events
    .map((e) =>
      e.type === "stream" && e.event.type === "content_block_delta" && e.event.delta.type === "text_delta"
        ? e.event.delta.text
        : "",
    )
    .join("");
}

const retries = (events: EngineEvent[]) =>
  events.filter((e): e is ModelCallRetryEvent => e.type === "model_call_retry");

describe("model call retries", () => {
  test("a 529 with Retry-After is retried and the run succeeds", async () => {
    server = await startScriptedServer({
      steps: [httpError(529, { retryAfter: 0.01 }), reply().text("fine")],
    });
    const { events, end } = await collect({
      provider: scriptedProvider(server.url),
      tools: [],
      retryPolicy: fast,
    });
    expect(end.subtype).toBe("success");
    expect(end.result).toBe("fine");
    expect(server.requests).toHaveLength(2);
    expect(retries(events)).toEqual([expect.objectContaining({ attempt: 2, errorStatus: 529 })]);
  });

  test.each([400, 401, 403, 413])("HTTP %i is not retried", async (status) => {
    server = await startScriptedServer({ steps: [httpError(status), reply().text("unused")] });
    const { events, end } = await collect({
      provider: scriptedProvider(server.url),
      tools: [],
      retryPolicy: fast,
    });
    expect(end.subtype).toBe("error_during_execution");
    expect(server.requests).toHaveLength(1);
    expect(retries(events)).toEqual([]);
  });

  test.each([408, 409, 429, 500, 503])("HTTP %i is retried", async (status) => {
    server = await startScriptedServer({ steps: [httpError(status), reply().text("ok")] });
    const { end } = await collect({ provider: scriptedProvider(server.url), tools: [], retryPolicy: fast });
    expect(end.subtype).toBe("success");
    expect(server.requests).toHaveLength(2);
  });

  test("gives up after maxRetries and reports the last error", async () => {
    server = await startScriptedServer({
      steps: [httpError(529), httpError(529), httpError(529), reply().text("x")],
    });
    const { end } = await collect({
      provider: scriptedProvider(server.url),
      tools: [],
      retryPolicy: { ...fast, maxRetries: 2 },
    });
    expect(end.subtype).toBe("error_during_execution");
    expect(end.errors.join(" ")).toContain("529");
    expect(server.requests).toHaveLength(3);
  });

  test("a stream cut after partial text is retried without showing the text twice", async () => {
    const text = "The answer is forty-two, and here is why it matters.";
    server = await startScriptedServer({
      steps: [reply().text(text).cutAfterEvents(5), reply().text(text)],
      chunkSize: 4,
    });
    const history: never[] = [];
    const { events, end } = await collect({
      provider: scriptedProvider(server.url),
      tools: [],
      retryPolicy: fast,
      history,
    });
    expect(retries(events)).toHaveLength(1);
    expect(streamedText(events)).toBe(text);
    expect(end.result).toBe(text);
    const assistantTexts = events.flatMap((e) =>
      e.type === "assistant_block" && e.block.type === "text" ? [e.block.text] : [],
    );
    expect(assistantTexts).toEqual([text]);
    expect(history).toEqual([
      { role: "user", content: "do the thing" },
      { role: "assistant", content: [{ type: "text", text }] },
    ]);
  });

  test("no tool call from a failed attempt runs", async () => {
    const gate = gatedTool("Danger", "execute");
    // The first attempt streams a complete tool_use block, then the connection is cut.
    server = await startScriptedServer({
      steps: [
        reply().text("Running it.").tool("Danger", { id: "a" }).cutAfterEvents(9),
        reply().text("Changed my mind."),
      ],
    });
    const { end } = await collect({
      provider: scriptedProvider(server.url),
      tools: [gate.tool],
      retryPolicy: fast,
    });
    expect(gate.calls).toEqual([]);
    expect(end.subtype).toBe("success");
    expect(end.result).toBe("Changed my mind.");
  });

  test("an idle stream is aborted and retried", async () => {
    server = await startScriptedServer({
      steps: [reply().text("slow").stall(2, 60_000), reply().text("quick")],
    });
    const { events, end } = await collect({
      provider: scriptedProvider(server.url),
      tools: [],
      retryPolicy: { ...fast, idleTimeoutMs: 150 },
    });
    expect(retries(events)[0]?.error).toMatch(/idle/);
    expect(end.result).toBe("quick");
  });

  test("an abort cancels the backoff wait at once", async () => {
    server = await startScriptedServer({
      steps: [httpError(529, { retryAfter: 600 }), reply().text("never")],
    });
    const controller = new AbortController();
    const run = collect({
      provider: scriptedProvider(server.url),
      tools: [echoTool()],
      signal: controller.signal,
      retryPolicy: { ...fast, retryAfterCapMs: 600_000 },
    });
    await expect.poll(() => server!.requests.length).toBe(1);
    controller.abort();
    const { end } = await run;
    expect(end.aborted).toBe(true);
    expect(server.requests).toHaveLength(1);
  });

  test("a hung request is abandoned when the run is aborted", async () => {
    server = await startScriptedServer({ steps: [hang()] });
    const controller = new AbortController();
    const run = collect({
      provider: scriptedProvider(server.url),
      tools: [],
      signal: controller.signal,
      retryPolicy: fast,
    });
    await expect.poll(() => server!.requests.length).toBe(1);
    controller.abort();
    const { end } = await run;
    expect(end.aborted).toBe(true);
    expect(end.subtype).toBe("error_during_execution");
  });

  test("a server that accepts a request and never answers is given up after the idle timeout and retried", async () => {
    server = await startScriptedServer({ steps: [hang(), reply().text("answered")] });
    const { events, end } = await collect({
      provider: scriptedProvider(server.url),
      tools: [],
      retryPolicy: { ...fast, idleTimeoutMs: 150 },
    });
    expect(retries(events)[0]?.error).toMatch(/idle/);
    expect(end.result).toBe("answered");
    expect(server.requests).toHaveLength(2);
  });
});
