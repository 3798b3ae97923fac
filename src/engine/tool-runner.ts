import type { Tool, ToolContext, ToolOutcome } from "../tools/types.js";
import { CallHooks } from "./call-hooks.js";
import type { HookDispatcher, HookRunRecord } from "./hooks.js";
import type { ToolUseBlock } from "./messages.js";

/** A permission decision for one tool call (shape of the agent-SDK convention's `canUseTool`). */
export type PermissionDecision =
  | { behavior: "allow"; updatedInput?: Record<string, unknown> }
  | { behavior: "deny"; message: string; interrupt?: boolean };

/** What the gate says when it would ask someone, for the hooks that may answer first. */
export type AskInfo = { decisionReason: string; blockedPath?: string; suggestions?: string[] };

export type CanUseTool = (
  toolName: string,
  input: Record<string, unknown>,
  options: {
    signal: AbortSignal;
    toolUseID: string;
    /** The subagent making the call (its agent id); absent on the main thread. */
    agentID?: string;
    /**
     * A PreToolUse hook's `allow` (the call needs no approval: rules and mode still deny) or `ask`
     * (approval is needed even where rules and mode allow). A hook's `deny` never gets here.
     */
    hookDecision?: { decision: "allow" | "ask"; reason: string; hook: string };
    /**
     * Called by a gate that would ask (PermissionRequest and Notification hooks). An answer is used
     * instead of asking; undefined: ask as usual.
     */
    beforeAsk?: (info: AskInfo) => Promise<PermissionDecision | undefined>;
  },
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

type CallResult = {
  outcome: ToolOutcome;
  input: Record<string, unknown>;
  interrupt: boolean;
  /** The hooks that ran for this call, in order. */
  hookRecords: HookRunRecord[];
  /** A hook's `continue: false`: the run ends after this batch. */
  stop?: { reason: string; hook: string };
};

/**
 * One call, in the order every call takes: validate the input → PreToolUse hooks → permission
 * rules and mode, then the permission callback (both behind `canUseTool`; PermissionRequest hooks
 * answer before the callback is asked) → run → PostToolUse (or PostToolUseFailure) hooks. Invalid
 * input never reaches a hook, a rule, a person or a callback; a hook's deny beats every allow.
 * Never throws. `input` in the result is the call's input as given (by the model, a hook's or the
 * callback's rewrite).
 */
export async function runOneCall(
  call: PreparedCall,
  ctx: ToolContext,
  canUseTool: CanUseTool | undefined,
  hooks?: HookDispatcher,
): Promise<CallResult> {
  const given = call.block.input;
  const calls = new CallHooks(hooks, call, ctx.signal);
  const finish = (outcome: ToolOutcome, input = given, interrupt = false): CallResult => ({
    outcome: calls.withContext(outcome),
    input,
    interrupt,
    hookRecords: calls.records,
    ...(calls.stop ? { stop: calls.stop } : {}),
  });
  const deny = async (message: string, input: Record<string, unknown>, interrupt = false) =>
    finish(rejected(await calls.denied(message, input), "denied"), input, interrupt);
  if (call.rejection) return finish(call.rejection);
  const tool = call.tool!;
  if (ctx.signal.aborted) return finish(rejected("The tool call was interrupted by the user.", "aborted"));
  const checked = tool.validate(given);
  if (!checked.ok) return finish(rejected(checked.message, "invalid_input"));
  let input = given;
  let validated = checked.input;
  const pre = await calls.preToolUse(validated);
  if (pre.permission?.decision === "deny") {
    return deny(`The hook ${pre.permission.hook} denied this call. ${pre.permission.reason}`.trim(), given);
  }
  if (pre.updatedInput) {
    // A hook's rewrite is validated again and then judged by the gate like the model's input.
    input = pre.updatedInput;
    const again = tool.validate(input);
    if (!again.ok) return finish(rejected(again.message, "invalid_input"), input);
    validated = again.input;
  }
  const hookDecision = pre.permission as
    | { decision: "allow" | "ask"; reason: string; hook: string }
    | undefined;
  if (canUseTool) {
    let decision: PermissionDecision;
    try {
      decision = await canUseTool(tool.name, validated, {
        signal: ctx.signal,
        toolUseID: call.block.id,
        ...(hookDecision ? { hookDecision } : {}),
        ...(hooks ? { beforeAsk: (info: AskInfo) => calls.beforeAsk(validated, info) } : {}),
      });
    } catch (error) {
      decision = { behavior: "deny", message: `Permission check failed: ${(error as Error).message}` };
    }
    if (decision.behavior === "deny") {
      const message = `Permission to use ${tool.name} was denied. ${decision.message}`.trim();
      return deny(message, input, decision.interrupt === true);
    }
    if (decision.updatedInput) {
      input = decision.updatedInput;
      const again = tool.validate(input);
      if (!again.ok) return finish(rejected(again.message, "invalid_input"), input);
      validated = again.input;
    }
  } else if (hookDecision?.decision === "ask") {
    return deny(
      `The hook ${hookDecision.hook} asks for approval and nobody can be asked. ${hookDecision.reason}`.trim(),
      input,
    );
  }
  const outcome = await tool.execute(validated, ctx);
  await calls.postToolUse(validated, outcome);
  return finish(outcome, input);
}
