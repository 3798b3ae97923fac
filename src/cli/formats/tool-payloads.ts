import type { ToolDeclaration, ToolOutcome, ToolPayload } from "../../tools/types.js";
import { type Fields, TOOL_KINDS } from "./tool-kinds.js";

/** The payload shape each of the run's tools declares, by tool name. */
export type ToolPayloads = (toolName: string) => ToolPayload | undefined;

export function payloadsOf(tools: readonly ToolDeclaration[]): ToolPayloads {
  const byName = new Map(
    tools.flatMap((tool) =>
      [tool.name, ...(tool.aliases ?? [])].map((name) => [name, tool.payload] as const),
    ),
  );
  return (toolName) => byName.get(toolName);
}

/**
 * The `tool_call` object of stream-json's `tool_call` events: `{ "<kind>ToolCall": { args } }` for a
 * tool declaring a payload shape (tool-kinds.ts), `{ "function": { name, arguments } }` with the
 * input as a JSON string for any other tool (PM-26). The completed event repeats the started event's
 * args and adds `result`: `{ success: {...} }`, or `{ error: { message } }` when the tool failed, was
 * refused or never ran (PM-27). A refused call also carries the reference CLI's `rejected: { command
 * | path, reason }` (its ACP adapters ask the editor, and retry, only when they see it).
 */
export function startedToolCall(
  payload: ToolPayload | undefined,
  name: string,
  input: Fields,
  toolCallId: string,
  cwd: string,
): Fields {
  if (!payload) return { function: { name, arguments: JSON.stringify(input) } };
  const spec = TOOL_KINDS[payload];
  return { [spec.key]: { args: spec.args(input, toolCallId, cwd) } };
}

/**
 * `started` is the started event's `tool_call`, so both events carry the very same args (PM-23).
 * `full`: `success` also gets the kind's further fields (tool-kinds.ts; off with `--tool-payloads contract`).
 */
export function completedToolCall(
  payload: ToolPayload | undefined,
  started: Fields,
  outcome: ToolOutcome,
  full = false,
): Fields {
  const [key, call] = Object.entries(started)[0] as [string, Fields];
  let result: Fields;
  if (outcome.isError) {
    result = { error: { message: outcome.content } };
    if (outcome.errorKind === "denied") result.rejected = rejection(call.args as Fields, outcome.content);
  } else if (payload) {
    const spec = TOOL_KINDS[payload];
    const data = outcome.data ?? {};
    result = { success: { ...spec.success(data), ...(full && spec.full ? spec.full(data) : {}) } };
  } else result = { success: { content: outcome.content } };
  return { [key]: { ...call, result } };
}

/** What was refused: the command line of a shell call, else the path the call named; and why. */
function rejection(args: Fields | undefined, reason: string): Fields {
  if (typeof args?.command === "string") return { command: args.command, reason };
  const path = args?.path ?? args?.targetDirectory;
  return typeof path === "string" ? { path, reason } : { reason };
}
