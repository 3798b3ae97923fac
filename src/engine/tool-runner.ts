import type { Tool, ToolContext, ToolOutcome } from "../tools/types.js";
import type { ToolUseBlock } from "./messages.js";

/** A permission decision for one tool call (shape of the agent-SDK convention's `canUseTool`). */
export type PermissionDecision =
  | { behavior: "allow"; updatedInput?: Record<string, unknown> }
  | { behavior: "deny"; message: string; interrupt?: boolean };

export type CanUseTool = (
  toolName: string,
  input: Record<string, unknown>,
  options: { signal: AbortSignal; toolUseID: string },
) => Promise<PermissionDecision>;

export type PreparedCall = {
  block: ToolUseBlock;
  tool?: Tool;
  /** Set when the call must not run (malformed input, unknown tool). */
  rejection?: ToolOutcome;
};

/**
 * Splits calls into batches: consecutive calls of read-only tools (as they declare) share a batch
 * and run in parallel; every other call (edits, shell, undeclared tools) runs alone, in order.
 */
export function scheduleBatches(calls: PreparedCall[]): PreparedCall[][] {
  const parallel = (call: PreparedCall) =>
    call.tool?.effects?.readOnly === true || call.rejection !== undefined;
  const batches: PreparedCall[][] = [];
  for (const call of calls) {
    const last = batches.at(-1);
    if (last && parallel(call) && last.every(parallel)) last.push(call);
    else batches.push([call]);
  }
  return batches;
}

export function rejected(content: string, errorKind: ToolOutcome["errorKind"]): ToolOutcome {
  return { content, isError: true, errorKind, durationMs: 0 };
}

type CallResult = { outcome: ToolOutcome; input: Record<string, unknown>; interrupt: boolean };

/**
 * One call, in the order every call takes: validate the input → (PreToolUse hooks) → permission
 * rules and mode, then the permission callback (both behind `canUseTool`) → run → (PostToolUse
 * hooks). Invalid input never reaches a hook, a rule, a person or a callback. Never throws.
 * `input` in the result is the call's input as given (by the model or the callback's rewrite).
 */
export async function runOneCall(
  call: PreparedCall,
  ctx: ToolContext,
  canUseTool: CanUseTool | undefined,
): Promise<CallResult> {
  const given = call.block.input;
  const refuse = (outcome: ToolOutcome, input = given, interrupt = false): CallResult => ({
    outcome,
    input,
    interrupt,
  });
  if (call.rejection) return refuse(call.rejection);
  const tool = call.tool!;
  if (ctx.signal.aborted) return refuse(rejected("The tool call was interrupted by the user.", "aborted"));
  const checked = tool.validate(given);
  if (!checked.ok) return refuse(rejected(checked.message, "invalid_input"));
  // PreToolUse hooks plug in here: they see the validated input, and a rewrite they make is
  // validated again before the permission check.
  let input = given;
  let validated = checked.input;
  if (canUseTool) {
    let decision: PermissionDecision;
    try {
      decision = await canUseTool(tool.name, validated, { signal: ctx.signal, toolUseID: call.block.id });
    } catch (error) {
      decision = { behavior: "deny", message: `Permission check failed: ${(error as Error).message}` };
    }
    if (decision.behavior === "deny") {
      const message = `Permission to use ${tool.name} was denied. ${decision.message}`.trim();
      return refuse(rejected(message, "denied"), given, decision.interrupt === true);
    }
    if (decision.updatedInput) {
      input = decision.updatedInput;
      const again = tool.validate(input);
      if (!again.ok) return refuse(rejected(again.message, "invalid_input"), input);
      validated = again.input;
    }
  }
  const outcome = await tool.execute(validated, ctx);
  // PostToolUse hooks plug in here, with the outcome before the model sees it.
  return { outcome, input, interrupt: false };
}
