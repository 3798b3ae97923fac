import { afterEach, describe, expect, test } from "vitest";
import type { CompactBoundaryEvent } from "../../src/engine/events.js";
import type { LoopOptions } from "../../src/engine/loop.js";
import type { ConversationMessage } from "../../src/engine/messages.js";
import { DEFAULT_RETRY_POLICY } from "../../src/engine/retry.js";
import {
  estimateTokens,
  httpError,
  reply,
  type ScriptedServer,
  startScriptedServer,
} from "../../src/testing/index.js";
import { builtinTools } from "../../src/tools/index.js";
import { collect, scriptedProvider } from "../helpers/loop.js";
import { tempDir } from "../helpers/temp.js";

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const TOO_LONG = {
  message: "prompt is too long: 250000 tokens > 200000 maximum",
  errorType: "invalid_request_error",
};
const NO_RETRIES = { ...DEFAULT_RETRY_POLICY, maxRetries: 0 };

function workspaceWith(lines: number): string {
  return tempDir("cairn-compaction-", {
    "big.txt": Array.from({ length: lines }, (_, i) => `line ${i} `.padEnd(79, "x")).join("\n"),
  });
}

/** A run of the loop against the scripted server, in a workspace whose big.txt has `lines` lines. */
function runLoop(lines: number, options: Partial<LoopOptions> = {}) {
  return collect({
    provider: scriptedProvider(server!.url),
    tools: builtinTools(),
    cwd: workspaceWith(lines),
    retryPolicy: NO_RETRIES,
    ...options,
  });
}

function boundaries(events: { type: string }[]): CompactBoundaryEvent[] {
  return events.filter((event): event is CompactBoundaryEvent => event.type === "compact_boundary");
}

describe("overflow recovery", () => {
  test('a 400 "prompt is too long" mid-run is met with one compaction and a retry', async () => {
    server = await startScriptedServer({
      steps: [
        reply().tool("Read", { file_path: "big.txt" }),
        httpError(400, TOO_LONG),
        reply().text("The user asked to read big.txt."),
        reply().text("done"),
      ],
    });
    const history: ConversationMessage[] = [];
    const { events, end } = await runLoop(100, {
      history,
    });
    expect(end.subtype).toBe("success");
    expect(end.finalText).toBe("done");
    const [boundary] = boundaries(events);
    expect(boundary?.trigger).toBe("auto");
    // The retried request starts with the summary and keeps the last turn (the read) verbatim.
    const retried = JSON.stringify(server.requests[3]!.body);
    expect(retried).toContain("The user asked to read big.txt.");
    expect(retried).toContain("line 99 ");
    expect(history[0]!.role).toBe("user");
    // The summary call is counted: four calls' usage, not three.
    const reported = server.requests.filter((r) => r.stepIndex !== 1).map((r) => estimateTokens(r.body));
    expect(end.usage.input_tokens).toBe(reported.reduce((a, b) => a + b, 0));
  });

  test("a second overflow of the same call is reported, naming the window", async () => {
    server = await startScriptedServer({
      steps: [
        reply().tool("Read", { file_path: "big.txt" }),
        httpError(400, TOO_LONG),
        reply().text("summary"),
        httpError(400, TOO_LONG),
      ],
    });
    const { end } = await runLoop(100);
    expect(end.subtype).toBe("error_during_execution");
    expect(end.errors.join(" ")).toMatch(
      /prompt is too long.*context window of \d+ tokens, also after compaction/,
    );
    expect(server.requests).toHaveLength(4);
  });

  test("a single tool result larger than the window is cut with a visible note, and the request fits", async () => {
    const window = 32_768;
    server = await startScriptedServer({
      contextWindow: window,
      steps: [reply().tool("Read", { file_path: "big.txt" }), reply().text("summary"), reply().text("done")],
    });
    const { end } = await runLoop(2000, {
      context: { contextWindow: window },
    });
    expect(end.subtype).toBe("success");
    const last = JSON.stringify(server.requests.at(-1)!.body);
    expect(last).toContain("[cairn: this tool result was");
    expect(last).toContain("Read the rest in parts");
    for (const request of server.requests) expect(estimateTokens(request.body)).toBeLessThanOrEqual(window);
  });

  test("the scripted server answers an oversized request like the API, without consuming a step", async () => {
    server = await startScriptedServer({ contextWindow: 1_000, steps: [reply().text("fits")] });
    const response = await fetch(`${server.url}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        model: "m",
        max_tokens: 10,
        messages: [{ role: "user", content: "x".repeat(8_000) }],
      }),
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { type: string; message: string } };
    expect(body.error.type).toBe("invalid_request_error");
    expect(body.error.message).toMatch(/^prompt is too long: \d+ tokens > 1000 maximum$/);
    expect(server.remaining).toHaveLength(1);
    const chat = await fetch(`${server.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "x".repeat(8_000) }] }),
    });
    expect(((await chat.json()) as { error: { code: string } }).error.code).toBe("context_length_exceeded");
  });
});

describe("compaction hooks seam", () => {
  test("beforeCompact and afterCompact are called around an automatic compaction", async () => {
    server = await startScriptedServer({
      steps: [
        reply().tool("Read", { file_path: "big.txt" }),
        httpError(400, TOO_LONG),
        reply().text("the summary"),
        reply().text("done"),
      ],
    });
    const calls: string[] = [];
    await runLoop(10, {
      compactionHooks: {
        beforeCompact: (input) => {
          calls.push(`pre:${input.trigger}:${input.customInstructions}`);
        },
        afterCompact: (input) => {
          calls.push(`post:${input.trigger}:${input.summary}`);
        },
      },
    });
    expect(calls).toEqual(["pre:auto:null", "post:auto:the summary"]);
  });
});
