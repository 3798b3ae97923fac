import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { httpError, reply } from "../../../src/testing/index.js";
import { labels, MODEL, ofType, runCli, textOf } from "./helpers.js";

const STREAM = ["--output-format", "stream-json"];
const README = "# Project\n\nThis is a sample project...\n";

/** The original document's example flow, as scripted model turns. */
const exampleFlow = () => [
  reply()
    .thinking("Start with the README.")
    .text("I'll read the README.md file")
    .tool("Read", { file_path: "README.md" }, "toolu_vrtx_01NnjaR886UcE8whekg2MGJd"),
  reply()
    .text("Based on the README, I'll create a summary")
    .tool(
      "Write",
      { file_path: "summary.txt", content: "# README Summary\n\nThis project contains...\n" },
      "toolu_vrtx_01Q3VHVnWFSKygaRPT7WDxrv",
    ),
  reply().text("Done! I've created the summary in summary.txt"),
];

/** stream-json: framing, order, and the shape of every event (PM-15…PM-23). */
describe("print-mode conformance: stream-json", () => {
  test("the original's example flow (read README.md, write summary.txt) gives the original's event sequence", async () => {
    const run = await runCli({
      steps: exampleFlow(),
      files: { "README.md": README },
      prompt: "Read README.md and create a summary",
      args: STREAM,
      chunkSize: 7,
    });
    expect(run.code).toBe(0);
    // The sequence shown under シーケンスの例 in cli-output-format.ja.txt.
    expect(labels(run.events)).toEqual([
      "system/init",
      "user",
      "assistant",
      "tool_call/started/readToolCall",
      "tool_call/completed/readToolCall",
      "assistant",
      "tool_call/started/writeToolCall",
      "tool_call/completed/writeToolCall",
      "assistant",
      "result/success",
    ]);
    const texts = ofType(run.events, "assistant").map(textOf);
    expect(texts).toEqual([
      "I'll read the README.md file",
      "Based on the README, I'll create a summary",
      "Done! I've created the summary in summary.txt",
    ]);
    expect(run.events.at(-1)!.result).toBe(
      "I'll read the README.md fileBased on the README, I'll create a summaryDone! I've created the summary in summary.txt",
    );
    expect(readFileSync(join(run.dir, "summary.txt"), "utf8")).toBe(
      "# README Summary\n\nThis project contains...\n",
    );
  });

  test("PM-15 NDJSON, one event a line, in run order", async () => {
    const run = await runCli({
      steps: [
        reply().text("One.").tool("Bash", { command: "echo 1" }),
        reply().tool("Bash", { command: "echo 2" }),
        reply().text("Two."),
      ],
      args: STREAM,
    });
    expect(labels(run.events)).toEqual([
      "system/init",
      "user",
      "assistant",
      "tool_call/started/shellToolCall",
      "tool_call/completed/shellToolCall",
      "tool_call/started/shellToolCall",
      "tool_call/completed/shellToolCall",
      "assistant",
      "result/success",
    ]);
    const stdouts = ofType(run.events, "tool_call")
      .filter((event) => event.subtype === "completed")
      .map(
        (event) =>
          (event.tool_call as { shellToolCall: { result: { success: { stdout: string } } } }).shellToolCall
            .result.success.stdout,
      );
    expect(stdouts).toEqual(["1\n", "2\n"]);
  });

  test("PM-16 without partial output, deltas are aggregated: one assistant line per message between tool calls", async () => {
    const run = await runCli({
      steps: [
        reply().text("A message streamed one character at a time.").tool("Read", { file_path: "a.txt" }),
        reply().text("Second ").text("message, two text blocks.").tool("Read", { file_path: "a.txt" }),
        reply().text("Third."),
      ],
      files: { "a.txt": "a\n" },
      chunkSize: 1,
      args: STREAM,
    });
    const assistants = ofType(run.events, "assistant");
    expect(assistants.map(textOf)).toEqual([
      "A message streamed one character at a time.",
      "Second message, two text blocks.",
      "Third.",
    ]);
    for (const event of assistants) {
      expect("timestamp_ms" in event || "model_call_id" in event).toBe(false);
    }
  });

  test("PM-17 on success the stream ends with the result event, with the same fields as json", async () => {
    const steps = () => [
      reply().text("Reading.").tool("Read", { file_path: "a.txt" }),
      reply().text("Done."),
    ];
    const stream = await runCli({ steps: steps(), files: { "a.txt": "a\n" }, args: STREAM });
    const json = await runCli({
      steps: steps(),
      files: { "a.txt": "a\n" },
      args: ["--output-format", "json"],
    });
    const last = stream.events.at(-1)!;
    expect(last.type).toBe("result");
    expect(stream.stdout.endsWith(`${JSON.stringify(last)}\n`)).toBe(true);
    expect(Object.keys(last)).toEqual(Object.keys(json.events[0]!));
    const stable = ({ duration_ms, duration_api_ms, session_id, ...rest }: Record<string, unknown>) => rest;
    expect(stable(last)).toEqual(stable(json.events[0]!));
  });

  test("PM-18 on failure the stream ends early without result, exit non-zero, the error on stderr", async () => {
    const run = await runCli({
      steps: [
        reply().text("Reading.").tool("Read", { file_path: "a.txt" }),
        httpError(400, { message: "gone" }),
      ],
      files: { "a.txt": "a\n" },
      args: STREAM,
    });
    expect(run.code).toBe(1);
    expect(labels(run.events)).toEqual([
      "system/init",
      "user",
      "assistant",
      "tool_call/started/readToolCall",
      "tool_call/completed/readToolCall",
    ]);
    expect(run.stderr).toMatch(/^cairn: .*gone.*\n$/);
  });

  test("PM-19 system/init comes first and once, with the documented fields", async () => {
    const run = await runCli({
      steps: [reply().text("Reading.").tool("Read", { file_path: "a.txt" }), reply().text("Done.")],
      files: { "a.txt": "a\n" },
      args: STREAM,
    });
    expect(ofType(run.events, "system")).toHaveLength(1);
    const init = run.events[0]!;
    expect(init).toEqual({
      type: "system",
      subtype: "init",
      apiKeySource: "env",
      cwd: run.dir,
      session_id: expect.any(String),
      model: "Claude Sonnet 5.5", // the display name, not the id
      permissionMode: "default",
      tools: [
        "Read",
        "Write",
        "Edit",
        "Bash",
        "Glob",
        "Grep",
        "LS",
        "TodoWrite",
        "BashOutput",
        "TaskStop",
        "NotebookEdit",
      ],
    });
  });

  test("PM-19 apiKeySource is flag with --api-key, none for the offline replay model", async () => {
    const flag = await runCli({
      steps: [reply().text("Ok.")],
      env: { ANTHROPIC_API_KEY: "" },
      args: ["--api-key", "from-the-flag", ...STREAM],
    });
    expect(flag.code).toBe(0);
    expect(flag.events[0]).toMatchObject({ apiKeySource: "flag" });
    expect(JSON.stringify(flag.server.requests[0]!.headers)).toContain("from-the-flag");

    const scenario = { version: 1, steps: [{ content: [{ type: "text", text: "Replayed." }] }] };
    const replay = await runCli({
      rawArgs: ["-p", "Hi", "--model", "replay:scenario.json", ...STREAM],
      files: { "scenario.json": JSON.stringify(scenario) },
    });
    expect(replay.events[0]).toMatchObject({ apiKeySource: "none", model: "Replay (scenario.json)" });
  });

  test("PM-19 cwd is the absolute workspace given with --workspace", async () => {
    const run = await runCli({
      steps: [reply().text("Ok.")],
      files: { "a.txt": "a\n" },
      rawArgs: ["-p", "Hi", "--model", MODEL, "--workspace", ".", ...STREAM],
    });
    expect(run.events[0]!.cwd).toBe(run.dir);
  });

  test("PM-20 user carries the prompt", async () => {
    const prompt = 'Explain ünïcödé, "quotes" and\nnew lines 🙂';
    const run = await runCli({ steps: [reply().text("Ok.")], prompt, args: STREAM });
    expect(run.events[1]).toEqual({
      type: "user",
      message: { role: "user", content: [{ type: "text", text: prompt }] },
      session_id: run.events[0]!.session_id,
    });
  });

  test("PM-21 assistant carries one complete message", async () => {
    const run = await runCli({ steps: [reply().text("The complete message.")], args: STREAM });
    expect(ofType(run.events, "assistant")).toEqual([
      {
        type: "assistant",
        message: { role: "assistant", content: [{ type: "text", text: "The complete message." }] },
        session_id: run.events[0]!.session_id,
      },
    ]);
  });

  test("PM-22 tool_call started: call_id and tool_call.<kind>ToolCall.args", async () => {
    const run = await runCli({
      steps: [reply().tool("Read", { file_path: "a.txt" }, "toolu_abc"), reply().text("Done.")],
      files: { "a.txt": "a\n" },
      args: STREAM,
    });
    const started = run.events.find((event) => event.subtype === "started");
    expect(started).toEqual({
      type: "tool_call",
      subtype: "started",
      call_id: "toolu_abc",
      tool_call: { readToolCall: { args: { path: "a.txt" } } },
      session_id: run.events[0]!.session_id,
    });
  });

  test("PM-23 tool_call completed: the same call_id and args plus result; call_id pairs started with completed", async () => {
    const run = await runCli({
      steps: [
        // Two reads in one message run in parallel; completions arrive in completion order.
        reply()
          .text("Both.")
          .tool("Read", { file_path: "one.txt" }, "toolu_one")
          .tool("Read", { file_path: "two.txt" }, "toolu_two"),
        reply().text("Done."),
      ],
      files: { "one.txt": "1\n", "two.txt": "2\n" },
      args: STREAM,
    });
    const calls = ofType(run.events, "tool_call");
    expect(calls.slice(0, 2).map((event) => [event.subtype, event.call_id])).toEqual([
      ["started", "toolu_one"],
      ["started", "toolu_two"],
    ]);
    const completed = calls.filter((event) => event.subtype === "completed");
    expect(completed.map((event) => event.call_id).sort()).toEqual(["toolu_one", "toolu_two"]);
    for (const done of completed) {
      const started = calls.find((event) => event.subtype === "started" && event.call_id === done.call_id)!;
      const startedCall = (started.tool_call as { readToolCall: object }).readToolCall;
      const doneCall = (done.tool_call as { readToolCall: { args: object; result: object } }).readToolCall;
      expect(doneCall.args).toEqual((startedCall as { args: object }).args);
      expect(Object.keys(doneCall)).toEqual(["args", "result"]);
      expect(doneCall.result).toHaveProperty("success");
    }
  });
});
