import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { reply } from "../../src/testing/index.js";
import { ofType, runCli } from "../conformance/pm/helpers.js";

type Call = Record<string, { args: Record<string, unknown>; result: { success: Record<string, unknown> } }>;

/** The completed tool_call objects of a stream-json run, in order. */
function completedCalls(events: Record<string, unknown>[]): Call[] {
  return events
    .filter((event) => event.type === "tool_call" && event.subtype === "completed")
    .map((event) => event.tool_call as Call);
}

/**
 * The reference CLI's stream-json extras: its real tool payloads, printed by default (its consumers
 * read `fileSize`, the before/after contents and diffs; the contract allows added fields, PM-5), with
 * `--tool-payloads contract` for exactly the contract's fields (PM-24, PM-25); and thinking events,
 * opt-in (PM-3). Every line is schema-checked by runCli.
 */
describe("tool payloads: full by default, --tool-payloads contract (CAIRN_TOOL_PAYLOADS) for the contract's own", () => {
  const steps = [
    reply()
      .tool("Read", { file_path: "a.txt", offset: 2, limit: 1 }, "toolu_read")
      .tool("Write", { file_path: "a.txt", content: "one\nTWO\n" }, "toolu_write"),
    reply().tool("Edit", { file_path: "a.txt", old_string: "TWO", new_string: "2" }, "toolu_edit"),
    reply().tool("Bash", { command: "echo out; echo err >&2; echo out2" }, "toolu_bash"),
    reply().text("Done."),
  ];

  for (const [how, args, env] of [
    ["no flag (the default)", [], {}],
    ["the flag", ["--tool-payloads", "full"], {}],
    ["the environment", [], { CAIRN_TOOL_PAYLOADS: "full" }],
  ] as const) {
    test(`with ${how}: Read fileSize/path/readRange, Write and Edit before/after, shell interleavedOutput`, async () => {
      const run = await runCli({
        steps,
        files: { "a.txt": "one\ntwo\n" },
        args: ["--output-format", "stream-json", "--force", "--sandbox", "disabled", ...args],
        env,
      });
      expect(run.code).toBe(0);
      expect(run.stderr).toBe("");
      const [read, write, edit, shell] = completedCalls(run.events);
      expect(read!.readToolCall!.result.success).toMatchObject({
        content: "two",
        fileSize: 8,
        path: join(run.dir, "a.txt"),
        readRange: { startLine: 2, endLine: 2 },
      });
      expect(write!.writeToolCall!.result.success).toMatchObject({
        beforeFullFileContent: "one\ntwo\n",
        afterFullFileContent: "one\nTWO\n",
      });
      expect(edit!.editToolCall!.result.success).toMatchObject({
        linesAdded: 1,
        linesRemoved: 1,
        diffString: "@@ -2,1 +2,1 @@\n-TWO\n+2\n",
        beforeFullFileContent: "one\nTWO\n",
        afterFullFileContent: "one\n2\n",
      });
      expect(shell!.shellToolCall!.result.success).toMatchObject({
        stdout: "out\nout2\n",
        stderr: "err\n",
        signal: "",
      });
      // Both streams in one text, as they arrived (the order across two pipes is the OS's).
      const interleaved = shell!.shellToolCall!.result.success.interleavedOutput as string;
      expect(interleaved.split("\n").sort()).toEqual(["", "err", "out", "out2"]);
    });
  }

  test("--tool-payloads contract (or CAIRN_TOOL_PAYLOADS=contract): exactly the contract's fields", async () => {
    for (const [args, env] of [
      [["--tool-payloads", "contract"], {}],
      [[], { CAIRN_TOOL_PAYLOADS: "contract" }],
    ] as const) {
      const run = await runCli({
        steps,
        files: { "a.txt": "one\ntwo\n" },
        args: ["--output-format", "stream-json", "--force", "--sandbox", "disabled", ...args],
        env,
      });
      expect(run.code).toBe(0);
      const [read, write, edit, shell] = completedCalls(run.events);
      expect(Object.keys(read!.readToolCall!.result.success)).toEqual([
        "content",
        "isEmpty",
        "exceededLimit",
        "totalLines",
        "totalChars",
      ]);
      expect(Object.keys(write!.writeToolCall!.result.success)).toEqual(["path", "linesCreated", "fileSize"]);
      expect(edit!.editToolCall!.result.success).not.toHaveProperty("beforeFullFileContent");
      expect(shell!.shellToolCall!.result.success).not.toHaveProperty("interleavedOutput");
    }
  });

  test("chosen with another format, or an unknown CAIRN_TOOL_PAYLOADS value, is said once on stderr", async () => {
    const text = await runCli({
      steps: [reply().text("Hi.")],
      args: ["--output-format", "json", "--tool-payloads", "contract"],
    });
    expect(text.code).toBe(0);
    expect(text.stderr).toBe(
      "cairn: --tool-payloads (CAIRN_TOOL_PAYLOADS) only applies to --output-format stream-json; ignored.\n",
    );
    const quiet = await runCli({ steps: [reply().text("Hi.")], args: ["--output-format", "json"] });
    expect(quiet.stderr).toBe("");
    const unknown = await runCli({
      steps: [reply().tool("Read", { file_path: "a.txt" }), reply().text("Done.")],
      files: { "a.txt": "abc\n" },
      args: ["--output-format", "stream-json"],
      env: { CAIRN_TOOL_PAYLOADS: "minimal" },
    });
    expect(unknown.code).toBe(0);
    expect(unknown.stderr).toBe(
      "cairn: CAIRN_TOOL_PAYLOADS=minimal is neither contract nor full; ignored (full, the default, is used).\n",
    );
    expect(completedCalls(unknown.events)[0]!.readToolCall!.result.success).toMatchObject({ fileSize: 4 });
  });

  test("a file over the cap carries no before/after content (never half a file)", async () => {
    const big = `${"x".repeat(100_001)}\n`;
    const run = await runCli({
      steps: [reply().tool("Write", { file_path: "big.txt", content: big }), reply().text("Done.")],
      args: ["--output-format", "stream-json"],
    });
    const [write] = completedCalls(run.events);
    expect(write!.writeToolCall!.result.success).not.toHaveProperty("afterFullFileContent");
    expect(write!.writeToolCall!.result.success).toMatchObject({ fileSize: big.length });
  });
});

describe("--print-thinking (CAIRN_PRINT_THINKING=1)", () => {
  const steps = [reply().thinking("Let me think about it.").text("Answer."), reply().text("unused")];

  test("stream-json prints the reference's thinking delta and completed events, before the answer", async () => {
    for (const [args, env] of [
      [["--print-thinking"], {}],
      [[], { CAIRN_PRINT_THINKING: "1" }],
    ] as const) {
      const run = await runCli({ steps, args: ["--output-format", "stream-json", ...args], env });
      expect(run.code).toBe(0);
      const thinking = ofType(run.events, "thinking");
      const sessionId = run.events[0]!.session_id;
      const deltas = thinking.filter((event) => event.subtype === "delta");
      expect(deltas.map((event) => event.text).join("")).toBe("Let me think about it.");
      expect(thinking.at(-1)).toEqual({
        type: "thinking",
        subtype: "completed",
        session_id: sessionId,
        timestamp_ms: expect.any(Number),
      });
      for (const delta of deltas)
        expect(Object.keys(delta).sort()).toEqual(["session_id", "subtype", "text", "timestamp_ms", "type"]);
      const firstAssistant = run.events.findIndex((event) => event.type === "assistant");
      expect(run.events.indexOf(thinking.at(-1)!)).toBeLessThan(firstAssistant);
    }
  });

  test("by default thinking is never printed (PM-3); with json it is said once to be ignored", async () => {
    const quiet = await runCli({ steps, args: ["--output-format", "stream-json"] });
    expect(ofType(quiet.events, "thinking")).toEqual([]);
    const json = await runCli({ steps, args: ["--output-format", "json", "--print-thinking"] });
    expect(json.code).toBe(0);
    expect(json.stderr).toBe(
      "cairn: --print-thinking (CAIRN_PRINT_THINKING) only applies to --output-format stream-json; ignored.\n",
    );
  });
});
