import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { reply, type StepInput } from "../../../src/testing/index.js";
import { runCli } from "./helpers.js";

type Call = Record<
  string,
  { args: Record<string, unknown>; result?: Record<string, Record<string, unknown>> }
>;

/**
 * Runs one tool call through the CLI (stream-json) and returns its started and completed
 * `tool_call` objects; the run must go on to its final answer.
 */
async function toolCall(
  name: string,
  input: Record<string, unknown>,
  files: Record<string, string> = {},
  extraArgs: string[] = [],
) {
  const steps: StepInput[] = [reply().tool(name, input, "toolu_x"), reply().text("Done.")];
  const run = await runCli({ steps, files, args: ["--output-format", "stream-json", ...extraArgs] });
  expect(run.code).toBe(0);
  expect(run.events.at(-1)).toMatchObject({ type: "result", subtype: "success", result: "Done." });
  const started = run.events.find((event) => event.subtype === "started")!;
  const completed = run.events.find((event) => event.subtype === "completed")!;
  expect([started.call_id, completed.call_id]).toEqual(["toolu_x", "toolu_x"]);
  return { started: started.tool_call as Call, completed: completed.tool_call as Call, dir: run.dir };
}

/** Tool payloads (PM-24…PM-27), every built-in kind, and the `function` form for any other tool. */
describe("print-mode conformance: tool calls", () => {
  test("PM-24 Read: args {path}; result.success {content, isEmpty, exceededLimit, totalLines, totalChars}", async () => {
    const success = {
      content: "# Notes\n\nline three ✅",
      isEmpty: false,
      exceededLimit: false,
      totalLines: 3,
      totalChars: 22,
    };
    // By default the reference's further fields come too (PM-5: readers skip fields they do not
    // know); every field the contract names is there, with its value.
    const files = { "notes.md": "# Notes\n\nline three ✅\n" };
    const { started, completed } = await toolCall("Read", { file_path: "notes.md" }, files);
    expect(started).toEqual({ readToolCall: { args: { path: "notes.md" } } });
    expect(Object.keys(completed.readToolCall!)).toEqual(["args", "result"]);
    expect(completed.readToolCall!.args).toEqual({ path: "notes.md" });
    expect(Object.keys(completed.readToolCall!.result!)).toEqual(["success"]);
    expect(completed.readToolCall!.result!.success).toMatchObject(success);
    // `--tool-payloads contract`: exactly the contract's payload.
    const exact = await toolCall("Read", { file_path: "notes.md" }, files, ["--tool-payloads", "contract"]);
    expect(exact.completed).toEqual({ readToolCall: { args: { path: "notes.md" }, result: { success } } });

    const empty = await toolCall("Read", { file_path: "empty.txt" }, { "empty.txt": "" });
    expect(empty.completed.readToolCall!.result!.success).toMatchObject({ isEmpty: true, totalLines: 0 });
    const partial = await toolCall("Read", { file_path: "a.txt", limit: 1 }, { "a.txt": "1\n2\n3\n" });
    expect(partial.started.readToolCall!.args).toEqual({ path: "a.txt", limit: 1 });
    expect(partial.completed.readToolCall!.result!.success).toMatchObject({
      content: "1",
      exceededLimit: true,
      totalLines: 3,
    });
  });

  test("PM-25 Write: args {path, fileText, toolCallId}; result.success {path (absolute), linesCreated, fileSize}", async () => {
    const fileText = "# Summary\n\nÜber 🙂\n";
    const { started, completed, dir } = await toolCall("Write", {
      file_path: "out/summary.txt",
      content: fileText,
    });
    const args = { path: "out/summary.txt", fileText, toolCallId: "toolu_x" };
    const success = (dir: string) => ({
      path: join(dir, "out/summary.txt"),
      linesCreated: 3,
      fileSize: Buffer.byteLength(fileText),
    });
    expect(started).toEqual({ writeToolCall: { args } });
    // Every field the contract names, with its value (the reference's further fields may follow: PM-5).
    expect(Object.keys(completed.writeToolCall!)).toEqual(["args", "result"]);
    expect(completed.writeToolCall!.args).toEqual(args);
    expect(Object.keys(completed.writeToolCall!.result!)).toEqual(["success"]);
    expect(completed.writeToolCall!.result!.success).toMatchObject(success(dir));
    expect(readFileSync(join(dir, "out/summary.txt"), "utf8")).toBe(fileText);
    // `--tool-payloads contract`: exactly the contract's payload.
    const exact = await toolCall("Write", { file_path: "out/summary.txt", content: fileText }, {}, [
      "--tool-payloads",
      "contract",
    ]);
    expect(exact.completed).toEqual({ writeToolCall: { args, result: { success: success(exact.dir) } } });
  });

  test("PM-26 other built-in tools use their documented <kind>ToolCall key (Edit, Bash, Grep, Glob, LS, TodoWrite)", async () => {
    const keys: Record<string, [Record<string, unknown>, Record<string, string>]> = {
      editToolCall: [
        { name: "Edit", file_path: "a.txt", old_string: "a", new_string: "b" },
        { "a.txt": "a\n" },
      ],
      shellToolCall: [{ name: "Bash", command: "true" }, {}],
      grepToolCall: [{ name: "Grep", pattern: "a" }, { "a.txt": "a\n" }],
      globToolCall: [{ name: "Glob", pattern: "*.txt" }, { "a.txt": "a\n" }],
      lsToolCall: [{ name: "LS", path: "." }, {}],
      updateTodosToolCall: [{ name: "TodoWrite", todos: [] }, {}],
    };
    for (const [key, [{ name, ...input }, files]] of Object.entries(keys)) {
      const { started, completed } = await toolCall(name as string, input, files);
      expect(Object.keys(started)).toEqual([key]);
      expect(Object.keys(completed[key]!)).toEqual(["args", "result"]);
      expect(Object.keys(completed[key]!.result!)).toEqual(["success"]);
    }
  });

  test("PM-26 any other tool uses tool_call.function = {name, arguments} with arguments as a JSON string", async () => {
    const input = { query: "cairn", limit: 3 };
    const { started, completed } = await toolCall("mcp__docs__search", input);
    expect(started).toEqual({ function: { name: "mcp__docs__search", arguments: JSON.stringify(input) } });
    const fn = completed.function as unknown as { name: string; arguments: string; result: unknown };
    expect(JSON.parse(fn.arguments)).toEqual(input);
    // cairn's CLI has no such tool, so the call is refused (PM-27); the run goes on.
    expect(fn.result).toEqual({
      error: { message: expect.stringMatching(/^No such tool available: mcp__docs__search/) },
    });
  });

  test("PM-27 a failed or refused tool completes with result.error.message, and the run goes on", async () => {
    const failures: [string, Record<string, unknown>, RegExp][] = [
      ["Read", { file_path: "missing.txt" }, /^File does not exist: .*missing\.txt$/],
      ["Read", {}, /^InputValidationError: /], // the model's input was invalid: the tool never ran
      ["Edit", { file_path: "a.txt", old_string: "zzz", new_string: "y" }, /String to replace not found/],
      ["Bash", { command: "sleep 5", timeout: 300 }, /timed out after 300 ms/],
      ["LS", { path: "nowhere" }, /Directory does not exist/],
    ];
    for (const [name, input, message] of failures) {
      const { completed } = await toolCall(name, input, { "a.txt": "a\n" });
      const [call] = Object.values(completed);
      expect(call!.result).toEqual({ error: { message: expect.stringMatching(message) } });
    }
  });

  describe("every built-in tool kind", () => {
    test("Edit → editToolCall {path, old_string, new_string, replace_all, toolCallId} → {path, linesAdded, linesRemoved, diffString, replacements}", async () => {
      const input = { file_path: "a.txt", old_string: "two", new_string: "2\n2b", replace_all: true };
      const { started, completed, dir } = await toolCall("Edit", input, { "a.txt": "one\ntwo\nthree two\n" });
      const args = {
        path: "a.txt",
        old_string: "two",
        new_string: "2\n2b",
        replace_all: true,
        toolCallId: "toolu_x",
      };
      expect(started).toEqual({ editToolCall: { args } });
      expect(completed.editToolCall!.result!.success).toEqual({
        path: join(dir, "a.txt"),
        linesAdded: 4,
        linesRemoved: 2,
        diffString: "@@ -2,1 +2,2 @@\n-two\n+2\n+2b\n@@ -3,1 +4,2 @@\n-three two\n+three 2\n+2b\n",
        replacements: 2,
        beforeFullFileContent: "one\ntwo\nthree two\n",
        afterFullFileContent: "one\n2\n2b\nthree 2\n2b\n",
      });
    });

    test("Bash → shellToolCall {command, workingDirectory, timeout, toolCallId} → {command, workingDirectory, exitCode, signal, stdout, stderr, executionTime}", async () => {
      const { started, completed, dir } = await toolCall("Bash", {
        command: "echo out; echo err >&2; exit 3",
        description: "Fail on purpose",
      });
      const args = {
        command: "echo out; echo err >&2; exit 3",
        workingDirectory: dir,
        timeout: 120_000,
        toolCallId: "toolu_x",
        description: "Fail on purpose",
      };
      expect(started).toEqual({ shellToolCall: { args } });
      // A non-zero exit is the command's outcome, not a tool failure: it is a success payload.
      expect(completed.shellToolCall!.result!.success).toEqual({
        command: args.command,
        workingDirectory: dir,
        exitCode: 3,
        signal: "",
        stdout: "out\n",
        stderr: "err\n",
        executionTime: expect.any(Number),
        interleavedOutput: expect.stringMatching(/^(out\nerr\n|err\nout\n)$/),
      });
    });

    test("Bash → shellToolCall: a command ended by a signal reports 128 + its number, as a shell does", async () => {
      // `kill` is not a read-only command: print mode runs it only when allowed (here by a rule).
      const allow = ["--allowedTools", "Bash(kill:*)"];
      const { completed } = await toolCall("Bash", { command: "kill -TERM $$" }, {}, [
        ...allow,
        "--sandbox",
        "disabled",
      ]);
      expect(completed.shellToolCall!.result!.success).toMatchObject({ exitCode: 143, signal: "SIGTERM" });
      // Under the sandbox bubblewrap reports the signal as the exit code only (docs/security.md).
      const sandboxed = await toolCall("Bash", { command: "kill -TERM $$" }, {}, allow);
      expect(sandboxed.completed.shellToolCall!.result!.success).toMatchObject({ exitCode: 143 });
    });

    test("Grep → grepToolCall {pattern, path?, outputMode?, …, toolCallId} → {pattern, path, outputMode, matches, numFiles, numMatches, truncated}", async () => {
      const files = { "a.txt": "alpha\nTODO one\n", "b.txt": "todo two\n" };
      const { started, completed, dir } = await toolCall(
        "Grep",
        { pattern: "todo", "-i": true, output_mode: "content", path: "a.txt" },
        files,
      );
      expect(started).toEqual({
        grepToolCall: {
          args: {
            pattern: "todo",
            path: "a.txt",
            outputMode: "content",
            caseInsensitive: true,
            toolCallId: "toolu_x",
          },
        },
      });
      expect(completed.grepToolCall!.result!.success).toEqual({
        pattern: "todo",
        path: join(dir, "a.txt"),
        outputMode: "content",
        matches: [{ file: join(dir, "a.txt"), lineNumber: 2, content: "TODO one" }],
        numFiles: 1,
        numMatches: 1,
        truncated: false,
      });
      const listed = await toolCall("Grep", { pattern: "two" }, files);
      expect(listed.completed.grepToolCall!.result!.success).toMatchObject({
        outputMode: "files_with_matches",
        matches: [{ file: join(listed.dir, "b.txt") }],
      });
    });

    test("Glob → globToolCall {globPattern, targetDirectory?, toolCallId} → {files, totalFiles, truncated}", async () => {
      const { started, completed, dir } = await toolCall(
        "Glob",
        { pattern: "*.ts", path: "." },
        { "a.ts": "", "b.md": "" },
      );
      expect(started).toEqual({
        globToolCall: { args: { globPattern: "*.ts", targetDirectory: ".", toolCallId: "toolu_x" } },
      });
      expect(completed.globToolCall!.result!.success).toEqual({
        files: [join(dir, "a.ts")],
        totalFiles: 1,
        truncated: false,
      });
    });

    test("LS → lsToolCall {path, ignore, toolCallId} → {path, entries, truncated}", async () => {
      const { started, completed, dir } = await toolCall("LS", { path: "." }, { "a.txt": "", "b.log": "" });
      expect(started).toEqual({ lsToolCall: { args: { path: ".", ignore: [], toolCallId: "toolu_x" } } });
      expect(completed.lsToolCall!.result!.success).toEqual({
        path: dir,
        entries: [
          { name: "a.txt", type: "file" },
          { name: "b.log", type: "file" },
        ],
        truncated: false,
      });
    });

    test("TodoWrite → updateTodosToolCall {todos, merge} → {todos}", async () => {
      const todos = [
        { content: "Read the code", status: "completed", activeForm: "Reading the code" },
        { content: "Fix the bug", status: "in_progress", activeForm: "Fixing the bug" },
        { content: "Run the tests", status: "pending", activeForm: "Running the tests", id: "t3" },
      ];
      const { started, completed } = await toolCall("TodoWrite", { todos });
      const cliTodos = [
        { id: "1", content: "Read the code", status: "TODO_STATUS_COMPLETED" },
        { id: "2", content: "Fix the bug", status: "TODO_STATUS_IN_PROGRESS" },
        { id: "t3", content: "Run the tests", status: "TODO_STATUS_PENDING" },
      ];
      expect(started).toEqual({ updateTodosToolCall: { args: { todos: cliTodos, merge: false } } });
      expect(completed.updateTodosToolCall!.result).toEqual({ success: { todos: cliTodos } });
    });
  });
});
