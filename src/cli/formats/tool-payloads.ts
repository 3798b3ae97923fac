import type { ToolOutcome } from "../../tools/types.js";
import { type Fields, TOOL_KINDS } from "./tool-kinds.js";

/**
 * The `tool_call` object of stream-json's `tool_call` events: `{ "<kind>ToolCall": { args } }` for the
 * built-in tools (tool-kinds.ts), `{ "function": { name, arguments } }` with the input as a JSON
 * string for any other tool (PM-26). The completed event repeats the started event's args and adds
 * `result`: `{ success: {...} }`, or `{ error: { message } }` when the tool failed, was refused or
 * never ran (PM-27).
 */
export function startedToolCall(name: string, input: Fields, toolCallId: string, cwd: string): Fields {
  const spec = TOOL_KINDS[name];
  if (!spec) return { function: { name, arguments: JSON.stringify(input) } };
  return { [spec.key]: { args: spec.args(input, toolCallId, cwd) } };
}

/** `started` is the started event's `tool_call`, so both events carry the very same args (PM-23). */
export function completedToolCall(name: string, started: Fields, outcome: ToolOutcome): Fields {
  const [key, call] = Object.entries(started)[0] as [string, Fields];
  const spec = TOOL_KINDS[name];
  let result: Fields;
  if (outcome.isError) result = { error: { message: outcome.content } };
  else if (spec) result = { success: spec.success(outcome.data ?? {}) };
  else result = { success: { content: outcome.content } };
  return { [key]: { ...call, result } };
}
