import { expect, test } from "vitest";
import { httpError, reply } from "../../src/testing/index.js";
import { runCli } from "../conformance/pm/helpers.js";

test("a retried model call leaves stdout untouched and says why on stderr", async () => {
  const run = await runCli({
    steps: [httpError(529, { retryAfter: 0.01 }), reply().text("Recovered.")],
    args: ["--output-format", "json"],
  });
  expect(run.code).toBe(0);
  expect(run.server.requests).toHaveLength(2);
  expect(run.events).toEqual([expect.objectContaining({ type: "result", result: "Recovered." })]);
  expect(run.stderr).toMatch(
    /^cairn: model call failed \(HTTP 529\); retrying in 0\.0 s \(attempt 2 of 5\)\n$/,
  );
});

test("CAIRN_MAX_RETRIES=0 turns retrying off", async () => {
  const run = await runCli({
    steps: [httpError(529), reply().text("unused")],
    args: ["--output-format", "json"],
    env: { CAIRN_MAX_RETRIES: "0" },
  });
  expect(run.code).toBe(1);
  expect(run.stdout).toBe("");
  expect(run.server.requests).toHaveLength(1);
});

test("a stream cut mid-answer is retried and stream-json shows the text once", async () => {
  const text = "Partial answers must never be printed twice, even after a retry.";
  const run = await runCli({
    steps: [reply().text(text).cutAfterEvents(6), reply().text(text)],
    chunkSize: 5,
    args: ["--output-format", "stream-json", "--stream-partial-output"],
    env: { CAIRN_RETRY_BASE_MS: "1" },
  });
  expect(run.code).toBe(0);
  const deltas = run.events.filter(
    (e) => e.type === "assistant" && "timestamp_ms" in e && !("model_call_id" in e),
  );
  const rebuilt = deltas
    .map((e) => (e as { message: { content: { text: string }[] } }).message.content[0]!.text)
    .join("");
  expect(rebuilt).toBe(text);
  expect(run.events.at(-1)).toMatchObject({ type: "result", result: text });
});

test("PM-21 a retried answer that differs from the cut one: the assistant line holds the answer, as result does", async () => {
  // A real model rarely repeats itself: the assistant line joined the cut attempt's text and the
  // retry's ("Partial answRecovered answer.") while result and the transcript held the retry's.
  const run = await runCli({
    steps: [reply().text("Partial answer that is cut.").cutAfterEvents(5), reply().text("Recovered answer.")],
    chunkSize: 4,
    args: ["--output-format", "stream-json"],
    env: { CAIRN_RETRY_BASE_MS: "1" },
  });
  expect(run.code).toBe(0);
  const assistant = run.events.filter((e) => e.type === "assistant");
  expect(assistant).toHaveLength(1);
  expect(assistant[0]).toMatchObject({ message: { content: [{ type: "text", text: "Recovered answer." }] } });
  expect(run.events.at(-1)).toMatchObject({ type: "result", result: "Recovered answer." });
});

test("an unreachable base URL fails after bounded retries with one line naming the URL (exit 1)", async () => {
  const run = await runCli({
    steps: [],
    args: ["--output-format", "json"],
    // Port 9 on loopback: nothing listens there.
    env: { ANTHROPIC_BASE_URL: "http://127.0.0.1:9", CAIRN_RETRY_BASE_MS: "1", CAIRN_MAX_RETRIES: "2" },
  });
  expect(run.code).toBe(1);
  expect(run.stdout).toBe("");
  const lines = run.stderr.trimEnd().split("\n");
  expect(lines.filter((line) => line.includes("retrying"))).toHaveLength(2);
  expect(lines.at(-1)).toMatch(/^cairn: .*http:\/\/127\.0\.0\.1:9/);
});

test("a retry setting that is not a number is refused before the run (exit 2), not quietly replaced", async () => {
  for (const name of ["CAIRN_MAX_RETRIES", "CAIRN_RETRY_BASE_MS", "CAIRN_STREAM_IDLE_TIMEOUT_MS"]) {
    const run = await runCli({
      steps: [reply().text("never")],
      args: ["--output-format", "json"],
      env: { [name]: "abc" },
    });
    expect(run.code, name).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toBe(`cairn: ${name} must be a number of zero or more, not "abc"\n`);
  }
});
