import type { Tool } from "../tools/types.js";
import type { MalformedToolInput } from "./message-assembler.js";
import type { ConversationMessage, ToolResultBlock, ToolUseBlock, UserContentBlock } from "./messages.js";
import type { RunState } from "./run-state.js";
import { toToolResult } from "./tool-result.js";
import { type PreparedCall, rejected, scheduleBatches } from "./tool-runner.js";
import type { ToolBatchOutcome, ToolCallStep } from "./turn-steps.js";

/**
 * The tool calls of an answer as the batches they run in (docs/tools.md: read-only calls together,
 * any other alone, in order), each call as plain data: its block, or why it must not run (its input
 * did not parse, or no tool has its name).
 */
export function toolBatches(
  toolUses: ToolUseBlock[],
  tools: ReadonlyMap<string, Tool>,
  malformed: readonly MalformedToolInput[],
): ToolCallStep[][] {
  const prepared = toolUses.map((block) => prepareCall(block, tools, malformed));
  return scheduleBatches(prepared).map((batch) =>
    batch.map(({ block, rejection }) => (rejection ? { block, rejection } : { block })),
  );
}

function prepareCall(
  block: ToolUseBlock,
  tools: ReadonlyMap<string, Tool>,
  malformed: readonly MalformedToolInput[],
): PreparedCall {
  const bad = malformed.find((m) => m.toolUseId === block.id);
  if (bad) {
    return {
      block,
      rejection: rejected(
        `InputValidationError: the input of ${block.name} could not be parsed: ${bad.problem}. The tool did not run; send the call again with a valid JSON object.`,
        "invalid_input",
      ),
    };
  }
  const tool = tools.get(block.name);
  if (!tool) {
    const available = [...tools.keys()].join(", ");
    return {
      block,
      rejection: rejected(
        `No such tool available: ${block.name}. Available tools: ${available}.`,
        "unknown_tool",
      ),
    };
  }
  return { block, tool };
}

/** What a turn's tool batches came to: the results the model gets, and whether the run goes on. */
export class ToolTurnResults {
  private readonly results = new Map<string, ToolResultBlock>();
  /** A permission decision asked to interrupt the run. */
  private interrupted = false;
  /** A call that succeeded ends the run once its batch is done (structured output was accepted). */
  private terminal = false;
  /** The run's result text a terminal call gave (ExitPlanMode's plan in print mode). */
  private resultText: string | undefined;
  /** The first hook's `continue: false`. */
  private hookStop: { reason: string; hook: string } | undefined;

  add(outcome: ToolBatchOutcome): void {
    for (const settled of outcome.settled) {
      if (settled.kind !== "call") continue;
      const { block, outcome: result } = settled;
      this.interrupted ||= settled.interrupt;
      this.terminal ||= result.terminal === true && !result.isError;
      if (result.terminal && !result.isError && result.result !== undefined)
        this.resultText ??= result.result;
      this.results.set(block.id, toToolResult(block.id, result));
      this.hookStop ??= settled.stop;
    }
  }

  /**
   * The tools end the run: a terminal call (successfully), a hook's `continue: false` or a
   * permission decision that interrupts (recorded in `state` as the run's end).
   */
  endRun(state: RunState): boolean {
    if (this.terminal) {
      if (this.resultText !== undefined) state.resultIs(this.resultText);
      return true;
    }
    if (this.hookStop) {
      state.stoppedBy(this.hookStop, "stopped the run");
      return true;
    }
    if (this.interrupted) {
      state.fail("error_during_execution", "A permission decision interrupted the run.");
      return true;
    }
    return false;
  }

  /** The user message of the results, in the order the model asked for the calls. */
  message(toolUses: ToolUseBlock[]): ConversationMessage {
    return {
      role: "user",
      content: toolUses.map((block) => this.results.get(block.id)!) as UserContentBlock[],
    };
  }
}
