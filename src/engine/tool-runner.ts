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
 * Splits calls into batches: consecutive read-only calls share a batch and run in parallel;
 * every other call (edits, shell) runs alone, in order.
 */
export function scheduleBatches(calls: PreparedCall[]): PreparedCall[][] {
  const batches: PreparedCall[][] = [];
  for (const call of calls) {
    const last = batches.at(-1);
    const parallel = call.tool?.kind === "read" || call.rejection !== undefined;
    const lastParallel = last?.every((c) => c.tool?.kind === "read" || c.rejection !== undefined);
    if (last && parallel && lastParallel) last.push(call);
    else batches.push([call]);
  }
  return batches;
}

export function rejected(content: string, errorKind: ToolOutcome["errorKind"]): ToolOutcome {
  return { content, isError: true, errorKind, durationMs: 0 };
}

/** Asks the permission callback (if any), then runs the tool. Never throws. */
export async function runOneCall(
  call: PreparedCall,
  ctx: ToolContext,
  canUseTool: CanUseTool | undefined,
): Promise<{ outcome: ToolOutcome; input: Record<string, unknown>; interrupt: boolean }> {
  const input = call.block.input;
  if (call.rejection) return { outcome: call.rejection, input, interrupt: false };
  const tool = call.tool!;
  if (ctx.signal.aborted)
    return {
      outcome: rejected("The tool call was interrupted by the user.", "aborted"),
      input,
      interrupt: false,
    };
  let finalInput = input;
  if (canUseTool) {
    let decision: PermissionDecision;
    try {
      decision = await canUseTool(tool.name, input, { signal: ctx.signal, toolUseID: call.block.id });
    } catch (error) {
      decision = { behavior: "deny", message: `Permission check failed: ${(error as Error).message}` };
    }
    if (decision.behavior === "deny") {
      return {
        outcome: rejected(`Permission to use ${tool.name} was denied. ${decision.message}`.trim(), "denied"),
        input,
        interrupt: decision.interrupt === true,
      };
    }
    finalInput = decision.updatedInput ?? input;
  }
  return { outcome: await tool.execute(finalInput, ctx), input: finalInput, interrupt: false };
}
