import type { SandboxPolicy } from "../sandbox/policy.js";
import type { BackgroundShells } from "../tools/background-shells.js";
import type { Tool } from "../tools/types.js";
import { eachEvent } from "./batches.js";
import type { CompactionHooks } from "./compaction.js";
import type { ContextLimits } from "./context-meter.js";
import type { EngineEvent, RunEndEvent } from "./events.js";
import type { HookDispatcher } from "./hooks.js";
import { keepInterruptedTurn } from "./interruption.js";
import { compact, makeRoom } from "./loop-compaction.js";
import { addPrompt, openingHooks, stopHooks, userMessage } from "./loop-hooks.js";
import { LoopRun } from "./loop-run.js";
import { type SteeringPrompt, steer } from "./loop-steering.js";
import type { ConversationMessage, PromptBlock, ToolUseBlock, Usage } from "./messages.js";
import { modelTurn } from "./model-turn.js";
import type { EffortLevel, ModelProvider, ServerWebSearch, ThinkingSetting } from "./provider.js";
import type { RetryPolicy } from "./retry.js";
import { toToolResult } from "./tool-result.js";
import { type CanUseTool, rejected } from "./tool-runner.js";
import { ToolTurnResults, toolBatches } from "./tool-turn.js";
import type { TurnSteps } from "./turn-steps.js";

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
  /** Nobody answers the run's questions (ToolContext.unattended). */
  unattended?: boolean;
  /** Environment for tool child processes. */
  env: NodeJS.ProcessEnv;
  /** The OS sandbox for shell commands (ToolContext.sandbox). */
  sandbox?: SandboxPolicy;
  /** The session's background shells (ToolContext.backgroundShells). */
  backgroundShells?: BackgroundShells;
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
  sessionStart?: "startup" | "resume" | "clear";
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
   * The provider's own web search may stand in for the WebSearch tool, with these settings
   * (src/engine/server-tools.ts); absent: WebSearch, when offered, is always cairn's own tool.
   */
  webSearch?: ServerWebSearch;
  /**
   * This loop is a subagent's (docs/agents.md): SubagentStart hooks fire instead of UserPromptSubmit
   * (their context joins the prompt), SubagentStop instead of Stop.
   */
  subagent?: { agentId: string; agentType: string; transcriptPath: string };
  /**
   * How the turn's model call and tool batches run (`src/engine/turn-steps.ts`); default: straight
   * through. A durable engine wraps them to keep each step's outcome.
   */
  steps?: TurnSteps;
  /**
   * The prompts the user sent while this run was going (`whenBusy: "steer"`), taken each time the
   * run is about to call the model again; they join the conversation there (src/engine/loop-steering.ts).
   */
  steering?: () => SteeringPrompt[];
};

/** A model the loop can call: provider, names, price. */
export type LoopModel = {
  provider: ModelProvider;
  model: string;
  providerModel: string;
  priceUsage?: (usage: Partial<Usage>) => number | undefined;
};

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
 *
 * A run: the opening hooks, then the prompt (or the user's `/compact`), then turns until the model
 * ends its turn and the Stop hooks let it; a turn makes room in the context, calls the model, and
 * runs the tools it asked for batch by batch. What the run accumulates is its `RunState`; the model
 * call and the tool batches are its `TurnSteps`.
 */
export async function* runAgentLoopBatches(options: LoopOptions): AsyncGenerator<EngineEvent[], RunEndEvent> {
  const run = new LoopRun(options);
  const { history, signal, state } = run;
  yield [runStart(options, state.startedAt)];
  try {
    const context = yield* openingHooks(run);
    if (context && options.compact) {
      const done = yield* compact(run, "manual", options.compact.instructions, 0);
      state.say(done ? "The conversation was compacted." : "There is nothing to compact yet.");
    } else if (context) {
      addPrompt(history, userMessage(options.promptContent ?? options.prompt, context));
      state.prompted = true;
      while (true) {
        if (signal.aborted) throw abortError();
        if (state.outOfTurnsOrBudget(options.maxTurns, options.maxBudgetUsd)) break;
        state.turn += 1;
        yield* makeRoom(run);
        const { message, malformed } = yield* modelTurn(run);
        const toolUses = message.content.filter((block): block is ToolUseBlock => block?.type === "tool_use");
        if (toolUses.length === 0 && message.stop_reason === "pause_turn") {
          // The provider paused a long turn of its own (server-side searches): the conversation,
          // which ends with the paused answer, is sent again as it is and the model goes on.
          yield [{ type: "turn_end", turn: state.turn, stopReason: message.stop_reason }];
          continue;
        }
        if (toolUses.length === 0) {
          yield [{ type: "turn_end", turn: state.turn, stopReason: message.stop_reason }];
          // What the user sent meanwhile is answered before the run ends (and before the Stop hooks).
          const steered = yield* steer(run);
          if (steered === "added") continue;
          if (steered === "stopped") break;
          const more = yield* stopHooks(run, message);
          if (!more) break;
          history.push(more);
          yield [{ type: "user_turn", turn: state.turn, message: more, source: "stop_hook" }];
          continue;
        }
        state.stopContinuations = 0;
        const results = new ToolTurnResults();
        for (const calls of toolBatches(toolUses, run.tools, malformed)) {
          const outcome = yield* run.steps.runTools({ turn: state.turn, calls }, run.toolContext());
          state.settleTools(outcome);
          results.add(outcome);
        }
        history.push(results.message(toolUses));
        yield [{ type: "turn_end", turn: state.turn, stopReason: message.stop_reason }];
        if (signal.aborted) throw abortError();
        if (results.endRun(state) || state.failingInARow()) break;
        if ((yield* steer(run)) === "stopped") break;
      }
    }
  } catch (error) {
    state.threw(error, signal.aborted);
    closeDanglingToolUses(history);
    if (signal.aborted && state.prompted) yield [keepInterruptedTurn(history, state.inFlight, state.turn)];
  }
  const end = state.end(signal.aborted);
  yield [end];
  return end;
}

function runStart(options: LoopOptions, startedAt: number): EngineEvent {
  return {
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
  };
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
