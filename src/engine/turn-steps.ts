import type { SandboxPolicy } from "../sandbox/policy.js";
import type { BackgroundShells } from "../tools/background-shells.js";
import type { Tool, ToolOutcome } from "../tools/types.js";
import type { EngineEvent, RunEndEvent } from "./events.js";
import type { HookDispatcher, HookRunRecord } from "./hooks.js";
import type { MessageAssembler } from "./message-assembler.js";
import type { ToolUseBlock } from "./messages.js";
import { callModel, type ModelCallResult } from "./model-call.js";
import type { MediaInput, ModelProvider, ModelRequest } from "./provider.js";
import type { RetryPolicy } from "./retry.js";
import { runToolBatch } from "./tool-batch.js";
import type { CanUseTool } from "./tool-runner.js";

/**
 * The two things a turn does that reach outside the process: the model call and each batch of tool
 * calls. The loop runs them only through this seam, so that a durable engine can wrap it: keep each
 * step's outcome and, after a crash, give back the outcomes of the steps that completed instead of
 * running them again. So a step's input and its outcome are plain data (JSON as they are); what it
 * runs with (the provider, the tools, the abort signal, callbacks) is its context, never its input.
 * Steps come in a fixed order within a run (model calls and tool batches by turn; a call that
 * failed over to a fallback or was retried after compaction is one more model step of that turn).
 *
 * Each step yields its events in batches, as `callModel` does (docs/performance.md), and returns its
 * outcome; the loop does the rest (history, accounting, the run's end) from the outcome alone.
 */
export interface TurnSteps {
  callModel(step: ModelStep, context: ModelStepContext): AsyncGenerator<EngineEvent[], ModelStepOutcome>;
  runTools(step: ToolBatchStep, context: ToolStepContext): AsyncGenerator<EngineEvent[], ToolBatchOutcome>;
}

/**
 * One model call. `request.messages` is the conversation itself (not a copy, which would cost a
 * copy per turn): a wrapper that keeps the input copies it before the loop appends to it.
 */
export type ModelStep = {
  turn: number;
  request: ModelRequest;
  /** Give up after this many overloaded answers: a fallback model is waiting. */
  overloadedLimit?: number;
};

export type ModelStepContext = {
  provider: ModelProvider;
  signal: AbortSignal;
  retryPolicy: RetryPolicy;
  /** Given each attempt's assembler as it starts (what an interrupted turn keeps of the answer). */
  onAttempt?: (assembler: MessageAssembler) => void;
};

/** The completed message, its request id and rate limits, and which tool inputs were malformed. */
export type ModelStepOutcome = ModelCallResult;

/** Tool calls that run together (read-only calls in parallel, any other call alone). */
export type ToolBatchStep = {
  turn: number;
  calls: ToolCallStep[];
};

/** One call: the model's tool_use block, and why it must not run when it must not (the tool is then not looked up). */
export type ToolCallStep = { block: ToolUseBlock; rejection?: ToolOutcome };

export type ToolStepContext = {
  /** The run's tools by name and alias. */
  tools: ReadonlyMap<string, Tool>;
  cwd: string;
  signal: AbortSignal;
  env: NodeJS.ProcessEnv;
  sandbox?: SandboxPolicy;
  backgroundShells?: BackgroundShells;
  /** The model in use (as the user named it) and what it can read (the tools' ToolContext). */
  model: string;
  mediaInput?: MediaInput;
  canUseTool?: CanUseTool;
  /** Nobody answers the run's questions (ToolContext.unattended). */
  unattended?: boolean;
  hooks?: HookDispatcher;
};

/**
 * What a batch settled, in the order it happened: each call as it finished, and each subagent run
 * (an Agent call's) as it ended, whose usage, cost and refused calls count as the run's own.
 */
export type ToolBatchOutcome = { settled: ToolSettlement[] };

export type ToolSettlement = ({ kind: "call" } & ToolCallOutcome) | { kind: "subagent"; end: RunEndEvent };

export type ToolCallOutcome = {
  block: ToolUseBlock;
  outcome: ToolOutcome;
  /** The input the call ran with (the model's, or a hook's or the permission callback's rewrite). */
  input: Record<string, unknown>;
  /** The permission callback asked to interrupt the run. */
  interrupt: boolean;
  hookRecords: HookRunRecord[];
  /** A hook's `continue: false`: the run ends after this turn's tools. */
  stop?: { reason: string; hook: string };
};

/** The steps as they are: the model call and the tool runner, called straight through. */
export const directSteps: TurnSteps = {
  // No generator of its own: a layer here would cost an async step per streamed batch.
  callModel: (step, context) =>
    callModel(context.provider, step.request, step.turn, context.signal, context.retryPolicy, {
      ...(step.overloadedLimit !== undefined ? { overloadedLimit: step.overloadedLimit } : {}),
      ...(context.onAttempt ? { onAttempt: context.onAttempt } : {}),
    }),
  runTools: runToolBatch,
};
