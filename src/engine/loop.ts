import { addCost, costUSD } from "../providers/cost.js";
import type { ModelProvider, ToolSpec } from "../providers/types.js";
import type { SandboxPolicy } from "../sandbox/policy.js";
import type { Tool, ToolOutcome } from "../tools/types.js";
import { eachEvent } from "./batches.js";
import type { EngineEvent, PermissionDenial, RunEndEvent, RunSubtype } from "./events.js";
import type { MessageAssembler } from "./message-assembler.js";
import {
  addUsage,
  type ConversationMessage,
  emptyUsage,
  type ToolResultBlock,
  type ToolUseBlock,
  type Usage,
  type UserContentBlock,
} from "./messages.js";
import { callModel, type ModelCallResult } from "./model-call.js";
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from "./retry.js";
import { type CanUseTool, type PreparedCall, rejected, runOneCall, scheduleBatches } from "./tool-runner.js";

export type LoopOptions = {
  sessionId: string;
  cwd: string;
  provider: ModelProvider;
  /** The model as the user named it (reported in events). */
  model: string;
  /** The id sent to the provider. */
  providerModel: string;
  system: string;
  tools: Tool[];
  /** Conversation so far; the loop appends this run's messages to it (callers persist or resume it). */
  history: ConversationMessage[];
  prompt: string;
  signal: AbortSignal;
  maxTurns?: number;
  maxTokens?: number;
  permissionMode?: string;
  canUseTool?: CanUseTool;
  /** Environment for tool child processes. */
  env?: NodeJS.ProcessEnv;
  /** The OS sandbox for shell commands (ToolContext.sandbox). */
  sandbox?: SandboxPolicy;
  retryPolicy?: RetryPolicy;
};

/** After this many identical failing calls in a row the run ends instead of looping. */
const MAX_IDENTICAL_FAILURES = 3;
const DEFAULT_MAX_TOKENS = 16_384;

/**
 * The agent loop: send the conversation, stream the reply, run the requested tools, append the
 * results, repeat until the model ends its turn, `maxTurns` is reached, or the signal aborts.
 * Yields one EngineEvent stream and ends with exactly one `run_end`.
 */
export function runAgentLoop(options: LoopOptions): AsyncGenerator<EngineEvent, RunEndEvent> {
  return eachEvent(runAgentLoopBatches(options));
}

/**
 * `runAgentLoop` in batches: the same events, grouped as they arrived (all the stream events of one
 * network chunk in one array; every other event alone). Front ends that handle a batch in one step
 * (the CLI) read this; it saves an async step per event in every layer (docs/performance.md).
 */
export async function* runAgentLoopBatches(options: LoopOptions): AsyncGenerator<EngineEvent[], RunEndEvent> {
  const startedAt = Date.now();
  const started = performance.now();
  const { signal, history } = options;
  const toolsByName = new Map(options.tools.map((tool) => [tool.name, tool]));
  const toolSpecs: ToolSpec[] = options.tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    input_schema: tool.jsonSchema,
  }));

  const textSegments: string[] = [];
  let finalText = "";
  let usage = emptyUsage();
  const modelUsage: Record<string, Usage> = {};
  const denials: PermissionDenial[] = [];
  const errors: string[] = [];
  let apiMs = 0;
  let totalCost: number | undefined = 0;
  const modelCost: Record<string, number | undefined> = {};
  let turn = 0;
  let requestId: string | undefined;
  let subtype: RunSubtype = "success";
  let lastFailure = { key: "", count: 0 };

  yield [
    {
      type: "run_start",
      sessionId: options.sessionId,
      cwd: options.cwd,
      model: options.model,
      modelDisplayName: options.provider.displayName,
      apiKeySource: options.provider.apiKeySource,
      permissionMode: options.permissionMode ?? "default",
      tools: options.tools.map((tool) => tool.name),
      prompt: options.prompt,
      startedAt,
    },
  ];
  history.push({ role: "user", content: options.prompt });

  try {
    while (true) {
      if (signal.aborted) throw abortError();
      if (options.maxTurns !== undefined && turn >= options.maxTurns) {
        subtype = "error_max_turns";
        errors.push(`Reached the maximum number of turns (${options.maxTurns}).`);
        break;
      }
      turn += 1;
      const callStarted = performance.now();
      yield [{ type: "model_call_start", turn, startedAt: Date.now() }];
      let call: ModelCallResult;
      try {
        call = yield* callModel(
          options.provider,
          {
            model: options.providerModel,
            system: options.system,
            messages: history,
            tools: toolSpecs,
            maxTokens: options.maxTokens ?? DEFAULT_MAX_TOKENS,
          },
          turn,
          signal,
          options.retryPolicy ?? DEFAULT_RETRY_POLICY,
        );
      } finally {
        apiMs += performance.now() - callStarted;
      }
      const { message, assembler } = call;
      requestId = call.requestId ?? requestId;
      for (const block of message.content) {
        if (block?.type === "text") {
          textSegments.push(block.text);
          finalText += block.text;
        } else if (block?.type === "tool_use") {
          finalText = "";
        }
      }
      usage = addUsage(usage, message.usage);
      const callCost = costUSD(options.model, message.usage);
      totalCost = addCost(totalCost, callCost);
      modelCost[options.providerModel] = addCost(modelCost[options.providerModel] ?? 0, callCost);
      modelUsage[options.providerModel] = addUsage(
        modelUsage[options.providerModel] ?? emptyUsage(),
        message.usage,
      );
      yield [
        {
          type: "model_call_end",
          turn,
          message,
          ...(requestId ? { requestId } : {}),
          durationMs: Math.round(performance.now() - callStarted),
          costUsd: callCost ?? null,
        },
      ];
      history.push({ role: "assistant", content: message.content.filter(Boolean) });

      const toolUses = message.content.filter((block): block is ToolUseBlock => block?.type === "tool_use");
      if (toolUses.length === 0) {
        yield [{ type: "turn_end", turn, stopReason: message.stop_reason }];
        break;
      }

      const calls = prepareCalls(toolUses, toolsByName, assembler);
      const results = new Map<string, ToolResultBlock>();
      let interrupted = false;
      let terminal = false;
      for (const batch of scheduleBatches(calls)) {
        for (const call of batch) {
          yield [
            {
              type: "tool_start",
              turn,
              toolUseId: call.block.id,
              name: call.block.name,
              input: call.block.input,
              startedAt: Date.now(),
            },
          ];
        }
        const pending = new Map(
          batch.map((call) => [
            call.block.id,
            runOneCall(
              call,
              {
                cwd: options.cwd,
                signal,
                toolUseId: call.block.id,
                env: options.env,
                sandbox: options.sandbox,
              },
              options.canUseTool,
            ).then((done) => ({ call, ...done })),
          ]),
        );
        while (pending.size > 0) {
          const done = await Promise.race(pending.values());
          pending.delete(done.call.block.id);
          const { call, outcome } = done;
          if (outcome.errorKind === "denied") {
            denials.push({
              tool_name: call.block.name,
              tool_use_id: call.block.id,
              tool_input: call.block.input,
            });
          }
          interrupted ||= done.interrupt;
          terminal ||= outcome.terminal === true && !outcome.isError;
          results.set(call.block.id, toToolResult(call.block.id, outcome));
          yield [
            {
              type: "tool_end",
              turn,
              toolUseId: call.block.id,
              name: call.block.name,
              input: done.input,
              outcome,
              endedAt: Date.now(),
            },
          ];
          lastFailure = trackFailure(lastFailure, call, outcome);
        }
      }
      history.push({
        role: "user",
        content: toolUses.map((block) => results.get(block.id)!) as UserContentBlock[],
      });
      yield [{ type: "turn_end", turn, stopReason: message.stop_reason }];
      if (signal.aborted) throw abortError();
      if (terminal) break;
      if (interrupted) {
        subtype = "error_during_execution";
        errors.push("A permission decision interrupted the run.");
        break;
      }
      if (lastFailure.count >= MAX_IDENTICAL_FAILURES) {
        subtype = "error_during_execution";
        errors.push(`The same tool call failed ${lastFailure.count} times in a row; the run was stopped.`);
        break;
      }
    }
  } catch (error) {
    subtype = "error_during_execution";
    errors.push(signal.aborted ? "The run was interrupted." : describeError(error));
    closeDanglingToolUses(history);
  }

  const durationMs = Math.max(1, Math.round(performance.now() - started));
  const end: RunEndEvent = {
    type: "run_end",
    sessionId: options.sessionId,
    subtype,
    isError: subtype !== "success",
    aborted: signal.aborted,
    result: textSegments.join(""),
    finalText,
    durationMs,
    durationApiMs: Math.min(durationMs, Math.round(apiMs)),
    numTurns: turn,
    usage,
    modelUsage,
    totalCostUsd: totalCost ?? null,
    modelCostUsd: Object.fromEntries(Object.entries(modelCost).map(([model, cost]) => [model, cost ?? null])),
    ...(requestId ? { requestId } : {}),
    errors,
    permissionDenials: denials,
  };
  yield [end];
  return end;
}

function prepareCalls(
  toolUses: ToolUseBlock[],
  toolsByName: Map<string, Tool>,
  assembler: MessageAssembler,
): PreparedCall[] {
  return toolUses.map((block) => {
    const malformed = assembler.malformed.find((m) => m.toolUseId === block.id);
    if (malformed) {
      return {
        block,
        rejection: rejected(
          `InputValidationError: the input of ${block.name} could not be parsed: ${malformed.problem}. The tool did not run; send the call again with a valid JSON object.`,
          "invalid_input",
        ),
      };
    }
    const tool = toolsByName.get(block.name);
    if (!tool) {
      const available = [...toolsByName.keys()].join(", ");
      return {
        block,
        rejection: rejected(
          `No such tool available: ${block.name}. Available tools: ${available}.`,
          "unknown_tool",
        ),
      };
    }
    return { block, tool };
  });
}

function toToolResult(toolUseId: string, outcome: ToolOutcome): ToolResultBlock {
  return {
    type: "tool_result",
    tool_use_id: toolUseId,
    content: outcome.content,
    ...(outcome.isError ? { is_error: true } : {}),
  };
}

function trackFailure(
  last: { key: string; count: number },
  call: PreparedCall,
  outcome: ToolOutcome,
): { key: string; count: number } {
  if (!outcome.isError || outcome.errorKind === "denied" || outcome.errorKind === "aborted")
    return { key: "", count: 0 };
  const key = `${call.block.name}\u0000${JSON.stringify(call.block.input)}\u0000${outcome.content}`;
  return key === last.key ? { key, count: last.count + 1 } : { key, count: 1 };
}

/**
 * After an abort or provider failure the history may end with an assistant message whose tool_uses
 * have no results; give each one so the conversation stays valid for a resume.
 */
function closeDanglingToolUses(history: ConversationMessage[]): void {
  const last = history.at(-1);
  if (last?.role !== "assistant") return;
  const uses = last.content.filter((block): block is ToolUseBlock => block.type === "tool_use");
  if (uses.length === 0) return;
  history.push({
    role: "user",
    content: uses.map((block) =>
      toToolResult(block.id, rejected("The tool call was interrupted.", "aborted")),
    ),
  });
}

function abortError(): Error {
  const error = new Error("The run was interrupted.");
  error.name = "AbortError";
  return error;
}

function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
