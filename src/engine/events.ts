import type { ToolOutcome } from "../tools/types.js";
import type { CompactTrigger } from "./compaction.js";
import type { HookRunRecord } from "./hooks.js";
import type {
  AssistantContentBlock,
  ConversationMessage,
  ModelStreamEvent,
  PromptBlock,
  StopReason,
  StreamedMessage,
  Usage,
} from "./messages.js";
import type { RateLimitReport } from "./provider.js";

/**
 * The engine's one event stream. Every front end (CLI formats, SDK messages, transcripts) is a pure
 * projection of these events; the engine knows nothing of output formats.
 *
 * Order within a run: `run_start`, then per turn: `model_call_start`, `stream`* (with
 * `assistant_block` right after each `content_block_stop`; `model_call_retry` between attempts when a
 * call is retried), `model_call_end`, then for each tool call
 * `tool_start` … `hook_result`* … `tool_end` (reads may interleave; ends arrive in completion order),
 * `turn_end`; `hook_result` events also come before the first model call (SessionStart,
 * UserPromptSubmit) and after a `turn_end` without tool calls (Stop);
 * finally exactly one `run_end`. A `compact_boundary` comes before a `model_call_start` whose request
 * was compacted (or alone, for `/compact`); `model_fallback` before the call the fallback model makes.
 * `subagent` events come between an Agent call's `tool_start` and its `tool_end`. An interrupted run
 * (its AbortSignal fired) sends `turn_interrupted` right before its `run_end`.
 */
export type EngineEvent =
  | RunStartEvent
  | ModelCallStartEvent
  | StreamEvent
  | AssistantBlockEvent
  | ModelCallEndEvent
  | ModelCallRetryEvent
  | ToolStartEvent
  | ToolEndEvent
  | TurnEndEvent
  | HookResultEvent
  | UserTurnEvent
  | TurnInterruptedEvent
  | CompactBoundaryEvent
  | CompactionStatusEvent
  | ModelFallbackEvent
  | SubagentEvent
  | RunEndEvent;

/**
 * A compaction starts (`phase: "start"`) or is over (`"end"`; `compacted: false` when there was
 * nothing to summarise or it failed). A successful one has its `compact_boundary` before the end.
 */
export type CompactionStatusEvent = {
  type: "compaction_status";
  turn: number;
  phase: "start" | "end";
  compacted?: boolean;
};

/**
 * An event of a subagent's run (docs/agents.md), started by the tool call `toolUseId` (the Agent
 * tool) and forwarded into the parent's stream while that call runs: its own `run_start` … `run_end`,
 * in order. The parent's `run_end` counts the subagent's usage and cost; the parent's conversation
 * holds only the Agent call's result.
 */
export type SubagentEvent = {
  type: "subagent";
  /** The parent's turn. */
  turn: number;
  toolUseId: string;
} & SubagentReport;

/** What a tool reports of the subagent it runs (`ToolContext.report`); the loop adds turn and call id. */
export type SubagentReport = {
  agentId: string;
  /** The agent's name (`subagent_type`). */
  agentType: string;
  /** The Agent call's `description`. */
  description: string;
  /** The subagent's own transcript (`""`: not persisted). */
  transcriptPath: string;
  event: EngineEvent;
};

/**
 * The history was compacted: older turns replaced by a model-written summary, recent turns kept
 * verbatim (docs/context.md). `messages` is the history from here on (what `--resume` loads).
 */
export type CompactBoundaryEvent = {
  type: "compact_boundary";
  turn: number;
  trigger: CompactTrigger;
  /** Estimated tokens of the request before and after. */
  preTokens: number;
  postTokens: number;
  /** Time the compaction took, the summary call included. */
  durationMs: number;
  summary: string;
  messages: ConversationMessage[];
  /** USD cost of the summary call; null when the price is unknown. */
  costUsd: number | null;
};

/** The primary model failed after its retries; `to` takes over for the rest of the run. */
export type ModelFallbackEvent = {
  type: "model_fallback";
  turn: number;
  /** Model names as reported (`anthropic/claude-…`). */
  from: string;
  to: string;
  /** The primary's error. */
  error: string;
};

export type RunStartEvent = {
  type: "run_start";
  sessionId: string;
  cwd: string;
  /** Model id as given (`anthropic/claude-sonnet-4-5`, `replay:demo.json`). */
  model: string;
  /** Human-readable model name ("Claude Sonnet 4.5"). */
  modelDisplayName: string;
  apiKeySource: "env" | "flag" | "none";
  permissionMode: string;
  tools: string[];
  /** The run's MCP servers (only when any is configured): `connected`, `failed`, `disabled`. */
  mcpServers?: { name: string; status: string }[];
  /** The run's slash commands (cairn's own and custom ones) and enabled skills, by name. */
  slashCommands?: string[];
  skills?: string[];
  /** The local plugins loaded. */
  plugins?: { name: string; path: string }[];
  /** The subagents the Agent tool offers (only when it is offered). */
  agents?: string[];
  /** The user's prompt for this run (a custom command's expansion when it invoked one). */
  prompt: string;
  /** The prompt as sent when it holds images or documents (`prompt` is its text). */
  promptContent?: PromptBlock[];
  startedAt: number;
  /**
   * The prompt's id, set by the session controller on the copy it records in the transcript (its
   * file checkpoints are kept under it: a resumed session can rewind them); the engine sets none.
   */
  userMessageId?: string;
};

export type ModelCallStartEvent = { type: "model_call_start"; turn: number; startedAt: number };

/** One raw Anthropic-shaped stream event from the model, as it arrived. */
export type StreamEvent = { type: "stream"; turn: number; event: ModelStreamEvent; receivedAt: number };

/** A content block that has finished streaming (text, thinking, or tool_use with parsed input). */
export type AssistantBlockEvent = {
  type: "assistant_block";
  turn: number;
  block: AssistantContentBlock;
  /** The model message this block belongs to (id, model, usage so far). */
  messageId: string;
  model: string;
  usage: Usage;
  /** The block's position in that message (the stream's content block `index`). */
  index: number;
  /**
   * The block's own id: the `uuid` of the SDK `assistant` message that shows it, kept in the
   * transcript beside the block, so `resumeSessionAt` can name it.
   */
  uuid: string;
};

/** A model call finished: the complete message, its usage (counted once), timing and request id. */
export type ModelCallEndEvent = {
  type: "model_call_end";
  turn: number;
  message: StreamedMessage;
  requestId?: string;
  /** The provider's rate-limit report for this call, when it sent one. */
  rateLimit?: RateLimitReport;
  durationMs: number;
  /** USD cost of this call from the price table; null when the model's price is unknown. */
  costUsd: number | null;
};

/**
 * A model call failed with a retryable error and is about to be retried after `delayMs`. Output of
 * the failed attempt is not repeated: the retried attempt's stream events that only reproduce what
 * was already emitted are dropped (see src/engine/retry-dedupe.ts); the transcript and the result
 * hold only the successful attempt.
 */
export type ModelCallRetryEvent = {
  type: "model_call_retry";
  turn: number;
  /** The attempt about to start (2 for the first retry). */
  attempt: number;
  maxRetries: number;
  delayMs: number;
  errorStatus: number | null;
  error: string;
};

export type ToolStartEvent = {
  type: "tool_start";
  turn: number;
  toolUseId: string;
  name: string;
  input: Record<string, unknown>;
  startedAt: number;
};

/** Exactly one per tool_use, also when the tool was invalid, unknown, denied or aborted. */
export type ToolEndEvent = {
  type: "tool_end";
  turn: number;
  toolUseId: string;
  name: string;
  input: Record<string, unknown>;
  outcome: ToolOutcome;
  endedAt: number;
};

/**
 * A hook ran (docs/hooks.md): one per hook, after it finished, before the event it judged goes on
 * (a tool call's hooks come between its `tool_start` and `tool_end`).
 */
export type HookResultEvent = {
  type: "hook_result";
  turn: number;
  /** The tool call it was about, for tool events. */
  toolUseId?: string;
  record: HookRunRecord;
};

/**
 * The engine added a user turn to the conversation: a Stop hook's reason to keep working, or
 * (`source: "steer"`) a prompt the user sent while the run was going, joined to the run at its next
 * model call (src/engine/loop-steering.ts).
 */
export type UserTurnEvent = {
  type: "user_turn";
  turn: number;
  message: Extract<ConversationMessage, { role: "user" }>;
  source?: "stop_hook" | "steer";
};

/**
 * The run was interrupted (its AbortSignal fired) after its prompt joined the conversation: what the
 * conversation keeps of the interrupted turn, as the reference does (src/engine/interruption.ts).
 * `answer` is the part of the model's answer already streamed, appended as an assistant message:
 * its text, with the whole thinking blocks before that text (no tool call: none of them ran). `note`
 * is the user text that tells the model the user interrupted — `[Request interrupted by user]`, or
 * `[Request interrupted by user for tool use]` when tool calls had run — appended to the last user
 * message (or as one). The transcript records both, so a resumed session sees the same history.
 */
export type TurnInterruptedEvent = {
  type: "turn_interrupted";
  turn: number;
  answer?: AssistantContentBlock[];
  note: string;
};

export type TurnEndEvent = { type: "turn_end"; turn: number; stopReason: StopReason | null };

export type RunSubtype = "success" | "error_max_turns" | "error_max_budget_usd" | "error_during_execution";

export type PermissionDenial = {
  tool_name: string;
  tool_use_id: string;
  tool_input: Record<string, unknown>;
};

export type RunEndEvent = {
  type: "run_end";
  sessionId: string;
  subtype: RunSubtype;
  isError: boolean;
  /** True when the run ended because its AbortSignal fired. */
  aborted: boolean;
  /** Every assistant text segment of the run, concatenated with no separator. */
  result: string;
  /** The assistant text after the last tool call (what `text` output prints). */
  finalText: string;
  durationMs: number;
  /** Time spent in model calls; never more than durationMs. */
  durationApiMs: number;
  numTurns: number;
  usage: Usage;
  /** Usage per provider model id. */
  modelUsage: Record<string, Usage>;
  /** Sum of the calls' costs in USD; null when any call's price is unknown (never a made-up 0). */
  totalCostUsd: number | null;
  /** Cost per provider model id (same keys as modelUsage); null when unknown. */
  modelCostUsd: Record<string, number | null>;
  /** Request id of the last model call, when the provider sent one. */
  requestId?: string;
  errors: string[];
  /** Set when the run ended because a model call failed (after retries): the HTTP status, or null (no response). */
  apiError?: { status: number | null };
  permissionDenials: PermissionDenial[];
};
