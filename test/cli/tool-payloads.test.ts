import { describe, expect, test } from "vitest";
import { TOOL_KINDS } from "../../src/cli/formats/tool-kinds.js";
import { completedToolCall, startedToolCall } from "../../src/cli/formats/tool-payloads.js";
import { builtinTools } from "../../src/tools/index.js";
import type { ToolOutcome } from "../../src/tools/types.js";
import { schemaErrors } from "./schemas.js";

const ok = (data: Record<string, unknown>, content = "ok"): ToolOutcome => ({
  content,
  data,
  isError: false,
  durationMs: 1,
});
const failed = (content: string): ToolOutcome => ({
  content,
  isError: true,
  errorKind: "failed",
  durationMs: 1,
});

function valid(started: Record<string, unknown>, completed: Record<string, unknown>): void {
  const line = (subtype: string, toolCall: Record<string, unknown>) => ({
    type: "tool_call",
    subtype,
    call_id: "toolu_1",
    tool_call: toolCall,
    session_id: "00000000-0000-4000-8000-000000000000",
  });
  expect(schemaErrors(line("started", started), "tool-call-started.schema.json")).toEqual([]);
  expect(schemaErrors(line("completed", completed), "tool-call-completed.schema.json")).toEqual([]);
}

describe("tool payloads", () => {
  test("every built-in tool declares a payload shape with a <kind>ToolCall (none falls back to function)", () => {
    const shapes = builtinTools().map((tool) => [tool.name, tool.payload && TOOL_KINDS[tool.payload].key]);
    expect(shapes).toEqual([
      ["Read", "readToolCall"],
      ["Write", "writeToolCall"],
      ["Edit", "editToolCall"],
      ["Bash", "shellToolCall"],
      ["Glob", "globToolCall"],
      ["Grep", "grepToolCall"],
      ["LS", "lsToolCall"],
      ["TodoWrite", "updateTodosToolCall"],
      // Shown as `function` calls (docs/events.md).
      ["BashOutput", undefined],
      ["TaskStop", undefined],
      ["NotebookEdit", undefined],
      ["AskUserQuestion", "askQuestionToolCall"],
      ["ExitPlanMode", "createPlanToolCall"],
    ]);
  });

  test("completed repeats the started args even when the input that ran differs (PM-23)", () => {
    const started = startedToolCall("read", "Read", { file_path: "a.txt" }, "toolu_1", "/w");
    const completed = completedToolCall(
      "read",
      started,
      ok({
        content: "",
        isEmpty: true,
        exceededLimit: false,
        totalLines: 0,
        totalChars: 0,
        path: "/w/b.txt",
        startLine: 1,
      }),
    );
    expect(completed).toEqual({
      readToolCall: {
        args: { path: "a.txt" },
        result: {
          success: { content: "", isEmpty: true, exceededLimit: false, totalLines: 0, totalChars: 0 },
        },
      },
    });
    valid(started, completed);
  });

  test("an invalid call keeps what the model sent and reports the error (PM-27)", () => {
    const started = startedToolCall("write", "Write", { content: 3 }, "toolu_1", "/w");
    expect(started).toEqual({ writeToolCall: { args: { fileText: 3, toolCallId: "toolu_1" } } });
    const completed = completedToolCall(
      "write",
      started,
      failed("InputValidationError: file_path is required"),
    );
    expect(completed.writeToolCall).toMatchObject({
      result: { error: { message: "InputValidationError: file_path is required" } },
    });
  });

  test('shell: exitCode is always a number (128 + signal), signal "" when none; internal flags are not exposed', () => {
    const started = startedToolCall("shell", "Bash", { command: "sleep 9" }, "toolu_1", "/w");
    expect(started).toEqual({
      shellToolCall: {
        args: { command: "sleep 9", workingDirectory: "/w", timeout: 120_000, toolCallId: "toolu_1" },
      },
    });
    const killed = completedToolCall(
      "shell",
      started,
      ok({
        command: "sleep 9",
        workingDirectory: "/w",
        exitCode: null,
        signal: "SIGKILL",
        stdout: "",
        stderr: "",
        executionTime: 5,
        timedOut: false,
        interrupted: false,
      }),
    );
    expect(killed.shellToolCall).toMatchObject({ result: { success: { exitCode: 137, signal: "SIGKILL" } } });
    expect(Object.keys((killed.shellToolCall as { result: { success: object } }).result.success)).toEqual([
      "command",
      "workingDirectory",
      "exitCode",
      "signal",
      "stdout",
      "stderr",
      "executionTime",
    ]);
    valid(started, killed);
  });

  test("a tool declaring no payload shape: function {name, arguments (JSON string)}, success {content}", () => {
    const started = startedToolCall(undefined, "mcp__x__y", { a: [1, "two"] }, "toolu_1", "/w");
    expect(started).toEqual({ function: { name: "mcp__x__y", arguments: '{"a":[1,"two"]}' } });
    const completed = completedToolCall(undefined, started, ok({}, "the answer"));
    expect(completed).toEqual({
      function: {
        name: "mcp__x__y",
        arguments: '{"a":[1,"two"]}',
        result: { success: { content: "the answer" } },
      },
    });
    valid(started, completed);
  });
});
