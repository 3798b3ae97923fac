import type { ToolOutcome } from "../../tools/types.js";

/**
 * The `tool_call` payload of each built-in tool in stream-json: `{ "<kind>ToolCall": { args, result } }`.
 * Read and Write follow the published contract (PM-24, PM-25); the others follow the reference CLI's
 * observed payloads and are documented in docs/events.md. Any other tool uses `function`.
 */
type Input = Record<string, unknown>;
type Data = Record<string, unknown>;

type PayloadSpec = {
  key: string;
  args(input: Input, toolUseId: string, cwd: string): Input;
  success(data: Data, input: Input): Input;
};

const TODO_STATUS: Record<string, string> = {
  pending: "TODO_STATUS_PENDING",
  in_progress: "TODO_STATUS_IN_PROGRESS",
  completed: "TODO_STATUS_COMPLETED",
};

const pick = (data: Data, keys: string[]): Input =>
  Object.fromEntries(keys.filter((key) => data[key] !== undefined).map((key) => [key, data[key]]));

const PAYLOADS: Record<string, PayloadSpec> = {
  Read: {
    key: "readToolCall",
    args: (input) => ({
      path: input.file_path,
      ...(input.offset !== undefined ? { offset: input.offset } : {}),
      ...(input.limit !== undefined ? { limit: input.limit } : {}),
    }),
    success: (data) => pick(data, ["content", "isEmpty", "exceededLimit", "totalLines", "totalChars"]),
  },
  Write: {
    key: "writeToolCall",
    args: (input, toolUseId) => ({ path: input.file_path, fileText: input.content, toolCallId: toolUseId }),
    success: (data) => pick(data, ["path", "linesCreated", "fileSize"]),
  },
  Edit: {
    key: "editToolCall",
    args: (input, toolUseId) => ({
      path: input.file_path,
      old_string: input.old_string,
      new_string: input.new_string,
      replace_all: input.replace_all === true,
      toolCallId: toolUseId,
    }),
    success: (data) => pick(data, ["path", "linesAdded", "linesRemoved", "replacements", "diffString"]),
  },
  Bash: {
    key: "shellToolCall",
    args: (input, toolUseId, cwd) => ({
      command: input.command,
      workingDirectory: cwd,
      timeout: input.timeout ?? 120_000,
      toolCallId: toolUseId,
      ...(input.description !== undefined ? { description: input.description } : {}),
    }),
    success: (data) =>
      pick(data, [
        "command",
        "workingDirectory",
        "exitCode",
        "signal",
        "stdout",
        "stderr",
        "executionTime",
        "timedOut",
      ]),
  },
  Grep: {
    key: "grepToolCall",
    args: (input, toolUseId) => ({ ...input, toolCallId: toolUseId }),
    success: (data) =>
      pick(data, ["pattern", "path", "outputMode", "matches", "numFiles", "numMatches", "truncated"]),
  },
  Glob: {
    key: "globToolCall",
    args: (input, toolUseId) => ({
      globPattern: input.pattern,
      ...(input.path !== undefined ? { targetDirectory: input.path } : {}),
      toolCallId: toolUseId,
    }),
    success: (data) => pick(data, ["files", "totalFiles", "truncated"]),
  },
  LS: {
    key: "lsToolCall",
    args: (input, toolUseId) => ({ path: input.path, ignore: input.ignore ?? [], toolCallId: toolUseId }),
    success: (data) => pick(data, ["path", "entries", "truncated"]),
  },
  TodoWrite: {
    key: "updateTodosToolCall",
    args: (input) => ({ todos: toCliTodos(input.todos), merge: false }),
    success: (data) => ({ todos: toCliTodos(data.todos) }),
  },
};

function toCliTodos(todos: unknown): unknown {
  if (!Array.isArray(todos)) return [];
  return todos.map((todo: Input, index) => ({
    id: String(todo.id ?? index + 1),
    content: todo.content,
    status: TODO_STATUS[String(todo.status)] ?? todo.status,
  }));
}

/** `tool_call` of a started event. */
export function startedToolCall(name: string, input: Input, toolUseId: string, cwd: string): Input {
  const spec = PAYLOADS[name];
  if (!spec) return { function: { name, arguments: JSON.stringify(input) } };
  return { [spec.key]: { args: spec.args(input, toolUseId, cwd) } };
}

/** `tool_call` of a completed event: the same args plus `result.success` or `result.error` (PM-27). */
export function completedToolCall(
  name: string,
  input: Input,
  toolUseId: string,
  cwd: string,
  outcome: ToolOutcome,
): Input {
  const result = outcome.isError
    ? { error: { message: outcome.content } }
    : {
        success: PAYLOADS[name]
          ? PAYLOADS[name].success(outcome.data ?? {}, input)
          : { content: outcome.content },
      };
  const spec = PAYLOADS[name];
  if (!spec) return { function: { name, arguments: JSON.stringify(input), result } };
  return { [spec.key]: { args: spec.args(input, toolUseId, cwd), result } };
}
