import { constants } from "node:os";
import { BACKGROUND_DEFAULT_TIMEOUT_MS, BASH_DEFAULT_TIMEOUT_MS } from "../../tools/bash.js";
import type { ToolPayload } from "../../tools/types.js";

/**
 * How each payload shape a tool may declare (`Tool.payload`) appears in stream-json: its
 * `<kind>ToolCall` key, its `args` (from the model's input) and its `result.success` (from the tool's
 * structured `data`). The built-in tools declare these shapes; any tool taking the same input and
 * returning the same `data` may declare one too. Read and Write follow
 * the published contract field for field (PM-24, PM-25); the others follow the reference CLI's
 * observed payloads where they are known and are documented in docs/events.md and
 * docs/schema/tool-calls.schema.json. A change here is a change of the public contract: add fields,
 * never rename or remove them (PM-5).
 */
export type Fields = Record<string, unknown>;

export type ToolKindSpec = {
  key: string;
  /** `toolCallId` is the call's id; `cwd` the session's working directory. */
  args(input: Fields, toolCallId: string, cwd: string): Fields;
  success(data: Fields): Fields;
  /**
   * The reference CLI's further observed fields, appended to `success` (its consumers read them; the
   * contract allows added fields, PM-5). `--tool-payloads contract` leaves them out, for payloads
   * exactly as published (PM-24, PM-25).
   */
  full?(data: Fields): Fields;
};

const FULL_CONTENTS = ["beforeFullFileContent", "afterFullFileContent"] as const;

/** Keeps the listed keys, in that order, leaving out those the source lacks. */
function pick(source: Fields, keys: readonly string[]): Fields {
  const out: Fields = {};
  for (const key of keys) if (source[key] !== undefined) out[key] = source[key];
  return out;
}

/** Renames the model's input keys to the payload's names, leaving out absent ones. */
function rename(source: Fields, names: Record<string, string>): Fields {
  const out: Fields = {};
  for (const [from, to] of Object.entries(names)) if (source[from] !== undefined) out[to] = source[from];
  return out;
}

const TODO_STATUS: Record<string, string> = {
  pending: "TODO_STATUS_PENDING",
  in_progress: "TODO_STATUS_IN_PROGRESS",
  completed: "TODO_STATUS_COMPLETED",
};

/** The reference CLI's todo shape: string ids, proto-style status enums. */
function cliTodos(todos: unknown): Fields[] {
  if (!Array.isArray(todos)) return [];
  return todos.map((todo: Fields, index) => ({
    id: String(todo.id ?? index + 1),
    content: todo.content,
    status: TODO_STATUS[String(todo.status)] ?? todo.status,
  }));
}

/**
 * A shell's view of how a command ended: the exit code, or 128 + the signal's number when a signal
 * ended it (what `$?` shows), so `exitCode` is always a number, as in the reference CLI.
 */
function shellExit(data: Fields): { exitCode: number; signal: string } {
  const signal = typeof data.signal === "string" ? data.signal : "";
  if (typeof data.exitCode === "number") return { exitCode: data.exitCode, signal };
  const number = constants.signals[signal as NodeJS.Signals];
  return { exitCode: number === undefined ? -1 : 128 + number, signal };
}

export const TOOL_KINDS: Readonly<Record<ToolPayload, ToolKindSpec>> = {
  read: {
    key: "readToolCall",
    args: (input) => rename(input, { file_path: "path", offset: "offset", limit: "limit" }),
    success: (data) => pick(data, ["content", "isEmpty", "exceededLimit", "totalLines", "totalChars"]),
    full: (data) => ({
      ...pick(data, ["fileSize", "path"]),
      ...(typeof data.startLine === "number"
        ? { readRange: { startLine: data.startLine, endLine: data.endLine } }
        : {}),
    }),
  },
  write: {
    key: "writeToolCall",
    args: (input, toolCallId) => ({
      ...rename(input, { file_path: "path", content: "fileText" }),
      toolCallId,
    }),
    success: (data) => pick(data, ["path", "linesCreated", "fileSize"]),
    full: (data) => pick(data, FULL_CONTENTS),
  },
  edit: {
    key: "editToolCall",
    args: (input, toolCallId) => ({
      ...rename(input, { file_path: "path", old_string: "old_string", new_string: "new_string" }),
      replace_all: input.replace_all === true,
      toolCallId,
    }),
    success: (data) => pick(data, ["path", "linesAdded", "linesRemoved", "diffString", "replacements"]),
    full: (data) => pick(data, FULL_CONTENTS),
  },
  shell: {
    key: "shellToolCall",
    args: (input, toolCallId, cwd) => ({
      ...rename(input, { command: "command" }),
      workingDirectory: cwd,
      timeout:
        typeof input.timeout === "number"
          ? input.timeout
          : input.run_in_background === true
            ? BACKGROUND_DEFAULT_TIMEOUT_MS
            : BASH_DEFAULT_TIMEOUT_MS,
      toolCallId,
      ...rename(input, { description: "description" }),
      // The reference CLI's name for it; only on background calls, so other payloads stay as they were.
      ...(input.run_in_background === true ? { isBackground: true } : {}),
    }),
    // A background call succeeds once the shell started: it has no exit yet (exitCode 0, no output,
    // executionTime 0), and names the shell that BashOutput and TaskStop take.
    success: (data) =>
      typeof data.backgroundTaskId === "string"
        ? {
            ...pick(data, ["command", "workingDirectory"]),
            exitCode: 0,
            signal: "",
            stdout: "",
            stderr: "",
            executionTime: 0,
            backgroundShellId: data.backgroundTaskId,
          }
        : {
            ...pick(data, ["command", "workingDirectory"]),
            ...shellExit(data),
            ...pick(data, ["stdout", "stderr", "executionTime"]),
          },
    full: (data) => pick(data, ["interleavedOutput"]),
  },
  grep: {
    key: "grepToolCall",
    args: (input, toolCallId) => ({
      ...rename(input, {
        pattern: "pattern",
        path: "path",
        glob: "glob",
        type: "type",
        output_mode: "outputMode",
        "-i": "caseInsensitive",
        "-n": "lineNumbers",
        "-B": "beforeContext",
        "-A": "afterContext",
        "-C": "context",
        head_limit: "headLimit",
        multiline: "multiline",
      }),
      toolCallId,
    }),
    success: (data) =>
      pick(data, ["pattern", "path", "outputMode", "matches", "numFiles", "numMatches", "truncated"]),
  },
  glob: {
    key: "globToolCall",
    args: (input, toolCallId) => ({
      ...rename(input, { pattern: "globPattern", path: "targetDirectory" }),
      toolCallId,
    }),
    success: (data) => pick(data, ["files", "totalFiles", "truncated"]),
  },
  ls: {
    key: "lsToolCall",
    args: (input, toolCallId) => ({
      ...rename(input, { path: "path" }),
      ignore: Array.isArray(input.ignore) ? input.ignore : [],
      toolCallId,
    }),
    success: (data) => pick(data, ["path", "entries", "truncated"]),
  },
  task: {
    key: "taskToolCall",
    args: (input) =>
      rename(input, { description: "description", prompt: "prompt", subagent_type: "subagentType" }),
    // The answer, and which subagent gave it (its transcript: agent-<agentId>.jsonl, docs/agents.md).
    success: (data) => ({
      ...pick(data, ["agentId", "agentType"]),
      result: Array.isArray(data.content) ? data.content.map((part: Fields) => part.text ?? "").join("") : "",
      ...pick(data, ["totalToolUseCount", "totalDurationMs", "totalTokens"]),
    }),
  },
  updateTodos: {
    key: "updateTodosToolCall",
    args: (input) => ({ todos: cliTodos(input.todos), merge: false }),
    success: (data) => ({ todos: cliTodos(data.todos) }),
  },
  // cairn's own shapes, under the reference CLI's key names (docs/events.md).
  askQuestion: {
    key: "askQuestionToolCall",
    args: (input) => pick(input, ["questions"]),
    success: (data) => ({ answers: data.answers ?? {} }),
  },
  createPlan: {
    key: "createPlanToolCall",
    args: (input) => pick(input, ["plan"]),
    success: (data) => pick(data, ["plan"]),
  },
};
