import { describe, expect, test } from "vitest";
import { httpError, reply } from "../../../src/testing/index.js";
import { ofType, runCli, textOf } from "./helpers.js";

/** The `text` and `json` formats (PM-7…PM-14). */
describe("print-mode conformance: text and json", () => {
  test("PM-7 text prints only the final assistant message: the text after the last tool call", async () => {
    const run = await runCli({
      steps: [
        reply().text("Let me look. ").tool("Read", { file_path: "a.txt" }),
        reply().text("Now a command.").tool("Bash", { command: "echo from-the-tool" }),
        reply().text("The answer is ").text("42."),
      ],
      files: { "a.txt": "secret-file-content\n" },
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("The answer is 42.\n");
    expect(run.stderr).toBe(""); // no progress when stderr is not a terminal
  });

  test("PM-8 json prints exactly one JSON object and a newline when the run ends", async () => {
    const run = await runCli({
      steps: [reply().text("Reading.").tool("Read", { file_path: "a.txt" }), reply().text("Done.")],
      files: { "a.txt": "a\n" },
      args: ["--output-format", "json"],
    });
    expect(run.code).toBe(0);
    expect(run.events).toHaveLength(1);
    expect(run.stdout).toBe(`${JSON.stringify(run.events[0])}\n`);
    expect(Object.keys(run.events[0]!)).toEqual(
      expect.arrayContaining([
        "type",
        "subtype",
        "is_error",
        "duration_ms",
        "duration_api_ms",
        "result",
        "session_id",
        "request_id",
      ]),
    );
  });

  test("PM-9 type is result, subtype success, is_error false", async () => {
    const run = await runCli({ steps: [reply().text("Ok.")], args: ["--output-format", "json"] });
    expect(run.events[0]).toMatchObject({ type: "result", subtype: "success", is_error: false });
  });

  test("PM-10 duration_ms is the run time; duration_api_ms the true model time, never more", async () => {
    const run = await runCli({
      steps: [
        // About 400 ms inside the model call, then about 400 ms in a tool (not model time).
        reply().text("Waiting.").tool("Bash", { command: "sleep 0.4" }).stall(1, 400),
        reply().text("Done."),
      ],
      args: ["--output-format", "json"],
    });
    expect(run.code).toBe(0);
    const { duration_ms, duration_api_ms } = run.events[0] as {
      duration_ms: number;
      duration_api_ms: number;
    };
    expect(Number.isInteger(duration_ms) && Number.isInteger(duration_api_ms)).toBe(true);
    expect(duration_api_ms).toBeGreaterThanOrEqual(380);
    expect(duration_api_ms).toBeLessThanOrEqual(duration_ms);
    expect(duration_ms - duration_api_ms).toBeGreaterThanOrEqual(350);
  });

  test("PM-11 result is the complete response: every assistant text concatenated, nothing added", async () => {
    const steps = () => [
      reply().text("First, ").tool("Read", { file_path: "a.txt" }),
      reply().text("then\n\n").tool("Read", { file_path: "a.txt" }),
      reply().text("finally ✅."),
    ];
    const json = await runCli({
      steps: steps(),
      files: { "a.txt": "a\n" },
      args: ["--output-format", "json"],
    });
    expect(json.events[0]!.result).toBe("First, then\n\nfinally ✅.");

    const stream = await runCli({
      steps: steps(),
      files: { "a.txt": "a\n" },
      args: ["--output-format", "stream-json"],
    });
    expect(ofType(stream.events, "assistant").map(textOf).join("")).toBe(json.events[0]!.result);
  });

  test("PM-12 request_id is the request id the provider sent for the last model call", async () => {
    const run = await runCli({
      steps: [reply().text("A.").tool("Read", { file_path: "a.txt" }), reply().text("B.")],
      files: { "a.txt": "a\n" },
      args: ["--output-format", "json"],
    });
    // The scripted server sends `request-id: req_scripted_<n>`; the result names the last call's.
    expect(run.events[0]!.request_id).toBe(`req_scripted_${run.server.requests.length}`);
  });

  test("PM-12 request_id is omitted for a model without request ids (offline replay)", async () => {
    const scenario = { version: 1, steps: [{ content: [{ type: "text", text: "Replayed." }] }] };
    const run = await runCli({
      rawArgs: ["-p", "Hi", "--model", "replay:scenario.json", "--output-format", "json"],
      files: { "scenario.json": JSON.stringify(scenario) },
    });
    expect(run.code).toBe(0);
    expect(run.events[0]).toMatchObject({ type: "result", result: "Replayed." });
    expect("request_id" in run.events[0]!).toBe(false);
  });

  test("result.usage totals the run's tokens in the reference CLI's camelCase (inputTokens without cache)", async () => {
    const usage = {
      input_tokens: 10,
      output_tokens: 5,
      cache_read_input_tokens: 100,
      cache_creation_input_tokens: 7,
    };
    const run = await runCli({
      steps: [
        reply().text("A.").tool("Read", { file_path: "a.txt" }).usage(usage),
        reply()
          .text("B.")
          .usage({ ...usage, input_tokens: 20 }),
      ],
      files: { "a.txt": "a\n" },
      args: ["--output-format", "json"],
    });
    expect(run.events[0]!.usage).toEqual({
      inputTokens: 30,
      outputTokens: 10,
      cacheReadTokens: 200,
      cacheWriteTokens: 14,
    });
  });

  test("PM-13 json prints no deltas and no tool events", async () => {
    const run = await runCli({
      steps: [
        reply().text("Reading a file now.").tool("Read", { file_path: "a.txt" }),
        reply().text("Writing.").tool("Write", { file_path: "b.txt", content: "b\n" }),
        reply().text("Done."),
      ],
      files: { "a.txt": "a\n" },
      chunkSize: 1,
      args: ["--output-format", "json", "--stream-partial-output"],
    });
    expect(run.code).toBe(0);
    expect(run.stdout.split("\n")).toEqual([expect.any(String), ""]);
    expect(run.events.map((event) => event.type)).toEqual(["result"]);
  });

  test("PM-14 on failure json exits non-zero, writes the error to stderr and prints no JSON on stdout", async () => {
    for (const args of [["--output-format", "json"], []]) {
      const run = await runCli({
        steps: [
          reply().text("Reading.").tool("Read", { file_path: "a.txt" }),
          httpError(400, { message: "scripted provider failure" }),
        ],
        files: { "a.txt": "a\n" },
        args,
      });
      expect(run.code).toBe(1);
      expect(run.stdout).toBe("");
      expect(run.stderr).toMatch(/^cairn: .*400.*scripted provider failure.*\n$/);
      expect(run.stderr.split("\n")).toHaveLength(2); // one line
    }
  });
});
