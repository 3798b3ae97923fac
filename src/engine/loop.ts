import type { SandboxPolicy } from "../sandbox/policy.js";
import type { Tool, ToolOutcome } from "../tools/types.js";
import { nowMs } from "../util/clock.js";
import { eachEvent } from "./batches.js";
import { type CompactionHooks, type CompactTrigger, compactHistory, fitToolResults } from "./compaction.js";
import { type ContextLimits, ContextMeter } from "./context-meter.js";
import type {
  EngineEvent,
  HookResultEvent,
  PermissionDenial,
  RunEndEvent,
  RunSubtype,
  SubagentEvent,
} from "./events.js";
import type { HookDispatcher, HookEventFields, HookRunRecord, HookVerdict } from "./hooks.js";
import { AnswerInFlight, keepInterruptedTurn } from "./interruption.js";
import type { MessageAssembler } from "./message-assembler.js";
import {
  type AssistantContentBlock,
  addCost,
  addUsage,
  type ConversationMessage,
  emptyUsage,
  type PromptBlock,
  type ToolResultBlock,
  type ToolUseBlock,
  type Usage,
  type UserContentBlock,
} from "./messages.js";
import { callModel, type ModelCallResult } from "./model-call.js";
import {
  type EffortLevel,
  type ModelProvider,
  mediaRefusal,
  ProviderError,
  type ThinkingSetting,
  type ToolSpec,
} from "./provider.js";
import { ReportQueue } from "./report-queue.js";
import { DEFAULT_RETRY_POLICY, OVERLOADED_ANSWERS_BEFORE_FALLBACK, type RetryPolicy } from "./retry.js";
import { toToolResult } from "./tool-result.js";
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
  /**
   * The prompt as blocks when it holds images or documents (its text parts are `prompt`, which hooks,
   * `/compact` and the events see); the user message sent is these blocks.
   */
  promptContent?: PromptBlock[];
  /**
   * This run compacts the conversation instead of sending the prompt (the user's `/compact`, which
   * the run assembly recognises: the engine never reads prompt text for commands).
   */
  compact?: { instructions: string | null };
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
  /** The MCP servers of the run and how they stand (reported in `run_start`). */
  mcpServers?: { name: string; status: string }[];
  /** The slash commands and skills of the run, by name (reported in `run_start`). */
  slashCommands?: string[];
  skills?: string[];
  plugins?: { name: string; path: string }[];
  /** The subagents the run's Agent tool offers (reported in `run_start`). */
  agents?: string[];
  /** What one call's usage cost in USD; undefined when the price is unknown (injected: the engine knows no price table). */
  priceUsage?: (usage: Partial<Usage>) => number | undefined;
  /** The hooks to run (docs/hooks.md); none: no hook points. */
  hooks?: HookDispatcher;
  /** Fire SessionStart before the first model call: this run starts (or resumes) a session. */
  sessionStart?: "startup" | "resume";
  /** The model's context window and when to compact (the run assembly reads them from the catalog). */
  context?: ContextLimits;
  /** Called around every compaction (hooks: PreCompact / PostCompact). */
  compactionHooks?: CompactionHooks;
  /** The run stops with `error_max_budget_usd` once its cost passes this many USD (unknown prices: not enforced). */
  maxBudgetUsd?: number;
  /** Takes over for the rest of the run when the primary model is overloaded or unavailable after its retries. */
  fallback?: LoopModel;
  thinking?: ThinkingSetting;
  effort?: EffortLevel;
  /**
   * This loop is a subagent's (docs/agents.md): SubagentStart hooks fire instead of UserPromptSubmit
   * (their context joins the prompt), SubagentStop instead of Stop.
   */
  subagent?: { agentId: string; agentType: string; transcriptPath: string };
};

/** A model the loop can call: provider, names, price. */
export type LoopModel = {
  provider: ModelProvider;
  model: string;
  providerModel: string;
  priceUsage?: (usage: Partial<Usage>) => number | undefined;
};

/** A Stop hook may send the agent back to work this many times in a row; then the stop stands. */
export const MAX_STOP_HOOK_CONTINUATIONS = 8;
/** After this many identical failing calls in a row the run ends instead of looping. */
const MAX_IDENTICAL_FAILURES = 3;
const DEFAULT_MAX_TOKENS = 16_384;
/** Automatic compaction keeps this share of the room for input as verbatim recent turns (at least the last turn). */
const KEEP_RECENT_SHARE = 0.25;

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
  const started = nowMs();
  const { signal, history } = options;
  const toolsByName = new Map(
    options.tools.flatMap((tool) =>
      [tool.name, ...(tool.aliases ?? [])].map((name) => [name, tool] as const),
    ),
  );
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
  let apiError: RunEndEvent["apiError"];
  let lastFailure = { key: "", count: 0 };
  const maxTokens = options.maxTokens ?? DEFAULT_MAX_TOKENS;
  const meter = new ContextMeter(options.context ?? {}, maxTokens, options.system, toolSpecs);
  let active: LoopModel = options;
  const retryPolicy = options.retryPolicy ?? DEFAULT_RETRY_POLICY;
  /** What the model call under way has streamed: an interrupted turn keeps it. */
  const inFlight = new AnswerInFlight();

  /** Adds one call's usage to the run's totals; returns its cost (undefined: unknown). */
  const account = (callUsage: Usage): number | undefined => {
    usage = addUsage(usage, callUsage);
    const callCost = active.priceUsage?.(callUsage);
    totalCost = addCost(totalCost, callCost);
    modelCost[active.providerModel] = addCost(modelCost[active.providerModel] ?? 0, callCost);
    modelUsage[active.providerModel] = addUsage(modelUsage[active.providerModel] ?? emptyUsage(), callUsage);
    return callCost;
  };

  /** A subagent's run ends: its usage, cost and refused calls count as the run's own. */
  const accountSubagent = (report: SubagentEvent) => {
    const end = report.event;
    if (end.type !== "run_end") return;
    usage = addUsage(usage, end.usage);
    totalCost = addCost(totalCost, end.totalCostUsd ?? undefined);
    for (const [model, used] of Object.entries(end.modelUsage)) {
      modelUsage[model] = addUsage(modelUsage[model] ?? emptyUsage(), used);
      modelCost[model] = addCost(modelCost[model] ?? 0, end.modelCostUsd[model] ?? undefined);
    }
    apiMs += end.durationApiMs;
    denials.push(...end.permissionDenials);
  };

  /** Compacts the history in place; false when there was nothing to summarise. */
  async function* compact(
    trigger: CompactTrigger,
    instructions: string | null,
    keepTokens: number,
  ): AsyncGenerator<EngineEvent[], boolean> {
    // A compaction that throws ends the run; its status is then closed by the run's end.
    yield [{ type: "compaction_status", turn, phase: "start" }];
    const compacted = yield* compactOnce(trigger, instructions, keepTokens);
    yield [{ type: "compaction_status", turn, phase: "end", compacted }];
    return compacted;
  }

  async function* compactOnce(
    trigger: CompactTrigger,
    instructions: string | null,
    keepTokens: number,
  ): AsyncGenerator<EngineEvent[], boolean> {
    const outcome = yield* compactHistory(history, {
      trigger,
      instructions,
      keepTokens,
      provider: active.provider,
      providerModel: active.providerModel,
      system: options.system,
      tools: toolSpecs,
      maxTokens,
      turn,
      signal,
      retryPolicy,
      meter,
      ...(options.compactionHooks ? { hooks: options.compactionHooks } : {}),
    });
    if (!outcome) return false;
    apiMs += outcome.durationMs;
    const costUsd = account(outcome.usage) ?? null;
    history.splice(0, history.length, ...outcome.messages);
    yield [
      {
        type: "compact_boundary",
        turn,
        trigger,
        preTokens: outcome.preTokens,
        postTokens: outcome.postTokens,
        durationMs: outcome.durationMs,
        summary: outcome.summary,
        messages: outcome.messages,
        costUsd,
      },
    ];
    return true;
  }

  /** Makes room before a request: compaction past the threshold, then cut tool results that still do not fit. */
  async function* makeRoom(): AsyncGenerator<EngineEvent[], void> {
    if (meter.estimate(history) > meter.compactAt) {
      yield* compact("auto", null, Math.floor(meter.room * KEEP_RECENT_SHARE));
    }
    fitToolResults(history, meter.room, meter);
  }

  /**
   * One model call: a context overflow is met with one compaction (keeping only the last turn) and
   * one retry; a primary that stays unavailable after its retries, or answers overloaded three times,
   * hands over to the fallback model.
   */
  async function* requestModel(): AsyncGenerator<EngineEvent[], ModelCallResult> {
    let recovered = false;
    while (true) {
      // A model without vision is told so before anything is sent, naming the model.
      const refusal = mediaRefusal(active.model, active.provider.mediaInput, history);
      if (refusal) throw new Error(refusal);
      try {
        const sent = history.length;
        const result = yield* callModel(
          active.provider,
          {
            model: active.providerModel,
            system: options.system,
            messages: history,
            tools: toolSpecs,
            maxTokens,
            ...(options.thinking ? { thinking: options.thinking } : {}),
            ...(options.effort ? { effort: options.effort } : {}),
          },
          turn,
          signal,
          retryPolicy,
          {
            // An overloaded primary hands over after a few answers, not after all its retries.
            ...(options.fallback && active !== options.fallback
              ? { overloadedLimit: OVERLOADED_ANSWERS_BEFORE_FALLBACK }
              : {}),
            onAttempt: inFlight.follow,
          },
        );
        inFlight.settle();
        meter.record(sent, result.message.usage);
        return result;
      } catch (error) {
        if (signal.aborted || !(error instanceof ProviderError)) throw error;
        if (error.contextOverflow && !recovered) {
          recovered = true;
          const compacted = yield* compact("auto", null, 0);
          // The estimate fell short of the server's count: leave the request half the room.
          const cuts = fitToolResults(history, Math.floor(meter.room / 2), meter);
          if (compacted || cuts > 0) continue;
        }
        if (error.contextOverflow) {
          throw new Error(
            `${error.message} (the request did not fit the model's context window of ${meter.window} tokens, also after compaction; set the window with --context-window if it is wrong)`,
          );
        }
        const fallback = options.fallback;
        if (fallback && active !== fallback && isUnavailable(error)) {
          yield [
            { type: "model_fallback", turn, from: active.model, to: fallback.model, error: error.message },
          ];
          active = fallback;
          continue;
        }
        throw error;
      }
    }
  }

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
      ...(options.mcpServers ? { mcpServers: options.mcpServers } : {}),
      ...(options.slashCommands ? { slashCommands: options.slashCommands } : {}),
      ...(options.skills ? { skills: options.skills } : {}),
      ...(options.plugins ? { plugins: options.plugins } : {}),
      ...(options.agents ? { agents: options.agents } : {}),
      prompt: options.prompt,
      ...(options.promptContent ? { promptContent: options.promptContent } : {}),
      startedAt,
    },
  ];
  const manual = options.compact;
  const hooks = options.hooks;
  /** Runs one event's hooks outside a tool call, yielding what ran. */
  async function* runHooks(fields: HookEventFields): AsyncGenerator<EngineEvent[], HookVerdict | undefined> {
    if (!hooks?.has(fields.hook_event_name)) return undefined;
    const verdict = await hooks.run(fields, { signal });
    if (verdict.records.length > 0) yield hookEvents(turn, verdict.records);
    return verdict;
  }
  /** A hook's `continue: false` or a refused prompt ends the run here. */
  const stoppedBy = (what: { reason: string; hook: string }, how: string) => {
    subtype = "error_during_execution";
    errors.push(`The hook ${what.hook} ${how}${what.reason ? `: ${what.reason}` : "."}`);
  };
  let stopped = false;
  let stopContinuations = 0;
  /** The prompt joined the history (an interruption then leaves its note after it). */
  let prompted = false;

  try {
    const context: string[] = [];
    if (options.sessionStart) {
      const verdict = yield* runHooks({
        hook_event_name: "SessionStart",
        source: options.sessionStart,
        model: options.model,
      });
      context.push(...(verdict?.additionalContext ?? []));
      if (verdict?.stop) {
        stoppedBy(verdict.stop, "stopped the run");
        stopped = true;
      }
    }
    if (!stopped) {
      const sub = options.subagent;
      const verdict = yield* runHooks(
        sub
          ? { hook_event_name: "SubagentStart", agent_id: sub.agentId, agent_type: sub.agentType }
          : { hook_event_name: "UserPromptSubmit", prompt: options.prompt },
      );
      context.push(...(verdict?.additionalContext ?? []));
      const refusal = verdict?.block ?? verdict?.stop;
      if (refusal) {
        // A refused prompt is not sent, and not kept in the conversation.
        stoppedBy(refusal, "blocked the prompt");
        stopped = true;
      }
    }
    if (!stopped && manual) {
      const done = yield* compact("manual", manual.instructions, 0);
      finalText = done ? "The conversation was compacted." : "There is nothing to compact yet.";
      textSegments.push(finalText);
    }
    if (!stopped && !manual) {
      addPrompt(history, userMessage(options.promptContent ?? options.prompt, context));
      prompted = true;
    }
    while (!stopped && !manual) {
      if (signal.aborted) throw abortError();
      if (options.maxTurns !== undefined && turn >= options.maxTurns) {
        subtype = "error_max_turns";
        errors.push(`Reached the maximum number of turns (${options.maxTurns}).`);
        break;
      }
      if (options.maxBudgetUsd !== undefined && totalCost !== undefined && totalCost > options.maxBudgetUsd) {
        subtype = "error_max_budget_usd";
        errors.push(
          `Reached the maximum budget of $${options.maxBudgetUsd} (the run cost $${totalCost.toFixed(4)}).`,
        );
        break;
      }
      turn += 1;
      yield* makeRoom();
      const callStarted = nowMs();
      yield [{ type: "model_call_start", turn, startedAt: Date.now() }];
      let call: ModelCallResult;
      try {
        call = yield* requestModel();
      } finally {
        apiMs += nowMs() - callStarted;
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
      const callCost = account(message.usage);
      yield [
        {
          type: "model_call_end",
          turn,
          message,
          ...(requestId ? { requestId } : {}),
          ...(call.rateLimit ? { rateLimit: call.rateLimit } : {}),
          durationMs: Math.round(nowMs() - callStarted),
          costUsd: callCost ?? null,
        },
      ];
      history.push({ role: "assistant", content: message.content.filter(Boolean) });

      const toolUses = message.content.filter((block): block is ToolUseBlock => block?.type === "tool_use");
      if (toolUses.length === 0) {
        yield [{ type: "turn_end", turn, stopReason: message.stop_reason }];
        const sub = options.subagent;
        const stopFields = {
          stop_hook_active: stopContinuations > 0,
          last_assistant_message: textOf(message.content),
        };
        const verdict = yield* runHooks(
          sub
            ? {
                hook_event_name: "SubagentStop",
                ...stopFields,
                agent_id: sub.agentId,
                agent_type: sub.agentType,
                agent_transcript_path: sub.transcriptPath,
              }
            : { hook_event_name: "Stop", ...stopFields },
        );
        if (verdict?.stop) stoppedBy(verdict.stop, "stopped the run");
        else if (verdict?.block && stopContinuations < MAX_STOP_HOOK_CONTINUATIONS) {
          // The hook wants more work: its reason is the next user turn.
          stopContinuations += 1;
          const next = userMessage(verdict.block.reason, verdict.additionalContext);
          history.push(next);
          yield [{ type: "user_turn", turn, message: next }];
          continue;
        }
        break;
      }
      stopContinuations = 0;

      const calls = prepareCalls(toolUses, toolsByName, assembler);
      const results = new Map<string, ToolResultBlock>();
      let interrupted = false;
      let terminal = false;
      let hookStop: { reason: string; hook: string } | undefined;
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
        // What the batch's subagents report while their calls run (docs/agents.md).
        const reports = new ReportQueue<SubagentEvent>();
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
                model: active.model,
                ...(active.provider.mediaInput ? { mediaInput: active.provider.mediaInput } : {}),
                report: (report) =>
                  reports.push({ type: "subagent", turn, toolUseId: call.block.id, ...report }),
              },
              options.canUseTool,
              hooks,
            ).then((done) => ({ call, ...done })),
          ]),
        );
        while (pending.size > 0 || reports.size > 0) {
          const done = pending.size > 0 ? await Promise.race([...pending.values(), reports.ready()]) : null;
          if (done === null || done === ReportQueue.READY) {
            const taken = reports.take();
            for (const report of taken) accountSubagent(report.value);
            yield taken.map((report) => report.value);
            for (const report of taken) report.ack();
            continue;
          }
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
          if (done.hookRecords.length > 0) yield hookEvents(turn, done.hookRecords, call.block.id);
          hookStop ??= done.stop;
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
      if (hookStop) {
        stoppedBy(hookStop, "stopped the run");
        break;
      }
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
    if (!signal.aborted && error instanceof ProviderError) apiError = { status: error.status ?? null };
    closeDanglingToolUses(history);
    if (signal.aborted && prompted) yield [keepInterruptedTurn(history, inFlight, turn)];
  }

  const durationMs = Math.max(1, Math.round(nowMs() - started));
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
    ...(apiError ? { apiError } : {}),
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

/** Appends the prompt; after a `/compact` the history ends with the summary, which the prompt joins (one user message). */
function addPrompt(
  history: ConversationMessage[],
  prompt: Extract<ConversationMessage, { role: "user" }>,
): void {
  const last = history.at(-1);
  if (
    last?.role === "user" &&
    Array.isArray(last.content) &&
    last.content.every((block) => block.type === "text")
  ) {
    const added =
      typeof prompt.content === "string" ? [{ type: "text" as const, text: prompt.content }] : prompt.content;
    history[history.length - 1] = { role: "user", content: [...last.content, ...added] };
    return;
  }
  history.push(prompt);
}

function hookEvents(turn: number, records: HookRunRecord[], toolUseId?: string): HookResultEvent[] {
  return records.map((record) => ({
    type: "hook_result",
    turn,
    ...(toolUseId ? { toolUseId } : {}),
    record,
  }));
}

/** A user turn: the text, and what hooks added for the model as further text blocks. */
function userMessage(
  prompt: string | PromptBlock[],
  context: readonly string[],
): Extract<ConversationMessage, { role: "user" }> {
  if (context.length === 0) return { role: "user", content: prompt };
  const blocks: PromptBlock[] = typeof prompt === "string" ? [{ type: "text", text: prompt }] : prompt;
  return {
    role: "user",
    content: [...blocks, ...context.map((part) => ({ type: "text" as const, text: part }))],
  };
}

function textOf(content: readonly (AssistantContentBlock | undefined)[]): string {
  return content.map((block) => (block?.type === "text" ? block.text : "")).join("");
}

/** Overloaded, down, unreachable or without the model: what a fallback model can help with. */
function isUnavailable(error: ProviderError): boolean {
  const status = error.status;
  if (status === undefined) return error.retryable;
  return status === 404 || status === 429 || status === 529 || status >= 500;
}

function abortError(): Error {
  const error = new Error("The run was interrupted.");
  error.name = "AbortError";
  return error;
}

function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
