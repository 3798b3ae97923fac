/**
 * The messages `query()` yields: cairn's SDK contract.
 *
 * Names and shapes follow the public agent-SDK convention (the `SDKMessage` union of
 * `@anthropic-ai/claude-agent-sdk`), so a program written against that convention runs on cairn by
 * changing its import. Every message is a pure projection of the engine's events
 * (`src/sdk/project.ts`), except the `system`/`informational` notes about the query's own setup
 * (configuration warnings, session notes).
 *
 * What a consumer can rely on:
 *
 * - Messages are discriminated by `type`, and by `subtype` for `system` and `result`. Ignore types and
 *   subtypes you do not recognise: the set grows over time (clause SDK-11).
 * - Every yielded message carries `uuid` (unique per message) and `session_id` (the same for every
 *   message of a `query()` call, also across the turns of a streaming-input conversation). With
 *   `resume` / `continue` it is the resumed session's id; with `forkSession`, the fork's new id.
 * - Order of one turn (clause SDK-10): `system`/`init` first (in the first turn, followed by any
 *   `system`/`informational` notes); then, per model call, the
 *   `stream_event`s of each content block (only with `includePartialMessages`) followed by one
 *   `assistant` message as soon as that block is complete; then one `user` message per tool result
 *   (in completion order); more model calls and tool results; finally exactly one `result`.
 * - The `system`, `assistant`, `user` and `result` messages are the same with and without
 *   `includePartialMessages` (clause SDK-4); enabling it only adds `stream_event` messages.
 *
 * See docs/sdk.md for examples.
 */

import type { SessionPermissionMode } from "../permissions/types.js";
import type {
  SDKAuthStatusMessage,
  SDKBackgroundTasksChangedMessage,
  SDKCommandsChangedMessage,
  SDKControlRequestProgressMessage,
  SDKConversationResetMessage,
  SDKElicitationCompleteMessage,
  SDKFilesPersistedEvent,
  SDKLocalCommandOutputMessage,
  SDKMemoryRecallMessage,
  SDKMirrorErrorMessage,
  SDKModelRefusalFallbackMessage,
  SDKModelRefusalNoFallbackMessage,
  SDKNotificationMessage,
  SDKPermissionDeniedMessage,
  SDKPluginInstallMessage,
  SDKPromptSuggestionMessage,
  SDKSessionStateChangedMessage,
  SDKSessionWritesLostMessage,
  SDKTaskUpdatedMessage,
  SDKThinkingTokensMessage,
  SDKToolUseSummaryMessage,
  SDKWorkerShuttingDownMessage,
} from "./unemitted-messages.js";

// ---------------------------------------------------------------------------------------------------
// Anthropic-shaped building blocks (the Messages API's own field names)
// ---------------------------------------------------------------------------------------------------

/** A UUID string (`crypto.randomUUID()` format). */
export type UUID = `${string}-${string}-${string}-${string}-${string}`;

/** Why the model stopped (Anthropic `stop_reason`). */
export type SDKStopReason =
  | "end_turn"
  | "max_tokens"
  | "stop_sequence"
  | "tool_use"
  | "pause_turn"
  | "refusal"
  | "model_context_window_exceeded";

/** A passage of a server-side web search result that a text block cites. */
export type SDKWebSearchCitation = {
  type: "web_search_result_location";
  url: string;
  title: string | null;
  cited_text: string;
  encrypted_index: string;
};

/** Text the model wrote; `citations` when the provider's web search attached sources to it. */
export type SDKTextBlock = { type: "text"; text: string; citations?: SDKWebSearchCitation[] | null };

/** A search the provider ran on its side (Anthropic's server tool `web_search`; docs/tools.md). */
export type SDKServerToolUseBlock = {
  type: "server_tool_use";
  id: string;
  name: string;
  input: Record<string, unknown>;
  [extra: string]: unknown;
};

/** What that search found (or its error), as the provider sent it; `encrypted_content` is opaque. */
export type SDKWebSearchToolResultBlock = {
  type: "web_search_tool_result";
  tool_use_id: string;
  content:
    | {
        type: "web_search_result";
        url: string;
        title: string;
        encrypted_content: string;
        page_age?: string | null;
      }[]
    | { type: "web_search_tool_result_error"; error_code: string };
  [extra: string]: unknown;
};

/** The model's visible reasoning. `signature` lets the block be sent back to the API unchanged. */
export type SDKThinkingBlock = { type: "thinking"; thinking: string; signature?: string };

/** Reasoning the provider returned encrypted. */
export type SDKRedactedThinkingBlock = { type: "redacted_thinking"; data: string };

/** A tool call. `input` is the parsed JSON object the tool receives. */
export type SDKToolUseBlock = { type: "tool_use"; id: string; name: string; input: Record<string, unknown> };

/** One content block of an assistant message. */
export type SDKAssistantContentBlock =
  | SDKTextBlock
  | SDKThinkingBlock
  | SDKRedactedThinkingBlock
  | SDKToolUseBlock
  | SDKServerToolUseBlock
  | SDKWebSearchToolResultBlock;

/** Where an image's or document's bytes are: inline base64, or a URL the provider fetches. */
export type SDKMediaSource =
  | { type: "base64"; media_type: string; data: string }
  | { type: "url"; url: string };

/** An image (png, jpeg, gif, webp), in prompts and tool results (docs/multimodal.md). */
export type SDKImageBlock = { type: "image"; source: SDKMediaSource };

/** A document (a PDF; or plain text as `{type: "text", media_type: "text/plain", data}`). */
export type SDKDocumentBlock = {
  type: "document";
  source: SDKMediaSource | { type: "text"; media_type: "text/plain"; data: string };
  title?: string;
};

/** The answer to one `tool_use`, as sent back to the model. */
export type SDKToolResultBlock = {
  type: "tool_result";
  /** The `id` of the `tool_use` block this answers. */
  tool_use_id: string;
  /** What the model reads: the tool's (possibly truncated) output or error text, and what it attached (Read of an image). */
  content: string | (SDKTextBlock | SDKImageBlock | SDKDocumentBlock)[];
  /** Present and true when the tool failed, was refused, or did not run. */
  is_error?: boolean;
};

/** One content block of a user message. */
export type SDKUserContentBlock = SDKTextBlock | SDKImageBlock | SDKDocumentBlock | SDKToolResultBlock;

/**
 * Token usage of one model call, Anthropic naming. `input_tokens` excludes cache reads and writes.
 * On `assistant` messages it is the usage reported so far for that call (not final: the output count
 * grows until `message_delta`); the final totals are on the `result`.
 */
export type SDKUsage = {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number | null;
  cache_read_input_tokens: number | null;
};

/** `SDKUsage` with every field a number (the `result`'s totals). Named as in the convention. */
export type NonNullableUsage = {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  /** Searches the provider ran on its side (docs/tools.md, "WebSearch"); present once there was one. */
  server_tool_use?: { web_search_requests: number; web_fetch_requests: number };
};

/**
 * An Anthropic-shaped assistant message (`BetaMessage` in the convention). In an `assistant`
 * message, `content` holds exactly one block; the blocks of one model call share `id`.
 */
export type SDKAPIAssistantMessage = {
  id: string;
  type: "message";
  role: "assistant";
  /** The model id the provider reported. */
  model: string;
  content: SDKAssistantContentBlock[];
  /**
   * Always `null` on cairn's `assistant` messages: each block is delivered as soon as it completes,
   * before the model says why it stopped (as in the convention). The `result` has the final value.
   */
  stop_reason: SDKStopReason | null;
  stop_sequence: string | null;
  usage: SDKUsage;
};

// ---------------------------------------------------------------------------------------------------
// Raw stream events (inside `stream_event`)
// ---------------------------------------------------------------------------------------------------

/** Token usage as it appears inside raw stream events (fields may be absent). */
export type SDKRawUsage = {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  server_tool_use?: { web_search_requests: number } | null;
};

/** Appends `text` to a text block. Concatenating every `text_delta` rebuilds the text (SDK-9). */
export type SDKTextDelta = { type: "text_delta"; text: string };
/** Appends to a thinking block. */
export type SDKThinkingDelta = { type: "thinking_delta"; thinking: string };
/** The signature of a thinking block (sent once, after its thinking deltas). */
export type SDKSignatureDelta = { type: "signature_delta"; signature: string };
/** A piece of a tool call's input JSON; the pieces of one block concatenate to the full JSON text. */
export type SDKInputJSONDelta = { type: "input_json_delta"; partial_json: string };
/** A citation attached to a text block (a server-side web search's source). */
export type SDKCitationsDelta = { type: "citations_delta"; citation: SDKWebSearchCitation };

/** The `delta` of a `content_block_delta` event. */
export type SDKRawContentBlockDelta =
  | SDKTextDelta
  | SDKThinkingDelta
  | SDKSignatureDelta
  | SDKInputJSONDelta
  | SDKCitationsDelta;

/** A model call starts: the message envelope, with empty `content`. */
export type SDKRawMessageStartEvent = {
  type: "message_start";
  message: Omit<SDKAPIAssistantMessage, "usage"> & { usage: SDKRawUsage };
};
/** A content block starts: text and thinking start empty, `tool_use` starts with `input: {}`. */
export type SDKRawContentBlockStartEvent = {
  type: "content_block_start";
  index: number;
  content_block: SDKAssistantContentBlock;
};
/** Incremental content for the block at `index`. */
export type SDKRawContentBlockDeltaEvent = {
  type: "content_block_delta";
  index: number;
  delta: SDKRawContentBlockDelta;
};
/** The block at `index` is complete (its `assistant` message follows). */
export type SDKRawContentBlockStopEvent = { type: "content_block_stop"; index: number };
/** Why the model stopped, and the call's cumulative output usage. */
export type SDKRawMessageDeltaEvent = {
  type: "message_delta";
  delta: { stop_reason: SDKStopReason | null; stop_sequence?: string | null };
  usage: Partial<SDKRawUsage> & { output_tokens: number };
};
/** The model call is over. */
export type SDKRawMessageStopEvent = { type: "message_stop" };

/**
 * A raw Anthropic Messages API streaming event (`BetaRawMessageStreamEvent` in the convention), as the
 * model sent it. Every provider cairn supports is translated into exactly these events at the
 * provider edge, so consumers see the same events whatever the model.
 *
 * The original contract types this field as `Record<string, unknown>` (SDK-7); this union is
 * assignable to that, and lets TypeScript narrow `event.type` and `event.delta.type` as the
 * documented examples do.
 */
export type SDKRawMessageStreamEvent =
  | SDKRawMessageStartEvent
  | SDKRawContentBlockStartEvent
  | SDKRawContentBlockDeltaEvent
  | SDKRawContentBlockStopEvent
  | SDKRawMessageDeltaEvent
  | SDKRawMessageStopEvent;

// ---------------------------------------------------------------------------------------------------
// The messages
// ---------------------------------------------------------------------------------------------------

/**
 * How the model's credential was supplied. The convention's values, plus cairn's `"option"` (the
 * `apiKey` option of `query()`). For a key from the environment the value is the variable's name
 * (`"ANTHROPIC_API_KEY"`, `"OPENAI_API_KEY"`, …); `"none"` for models that need no key (`replay:`,
 * local models).
 */
export type ApiKeySource =
  | "ANTHROPIC_API_KEY"
  | "apiKeyHelper"
  | "/login managed key"
  | "none"
  | "user"
  | "project"
  | "org"
  | "temporary"
  | "oauth"
  | "option"
  | (string & {});

/**
 * How tool calls are approved. Rules (`allowedTools`, `disallowedTools`, the config files) are
 * evaluated first — deny, then ask, then allow — and the mode decides what no rule names. "Ask" goes
 * to `canUseTool`; without it, "ask" means deny. See docs/sdk.md, "Permissions", and
 * docs/security.md.
 *
 * - `default`: reads inside the workspace and built-in read-only shell commands run; file edits,
 *   other commands, paths outside the workspace and unknown tools ask.
 * - `acceptEdits`: `default`, plus file edits (Write, Edit) inside the workspace run.
 * - `bypassPermissions`: everything runs except what a deny or ask rule names (protected paths such
 *   as `.git/hooks` still need an explicit allow rule).
 * - `plan`: read-only. Reads and read-only commands run; every edit and every other command is
 *   denied, whatever the allow rules and `canUseTool` say.
 * - `dontAsk`: `default` without asking: what rules and mode do not allow is denied, and
 *   `canUseTool` is never called.
 * - `auto`: cairn has no classifier; the rules and the built-in read-only list decide what they can,
 *   and `canUseTool` is asked about the rest — the same as `default`.
 */
export type PermissionMode = SessionPermissionMode;

/** The first message of every turn: the session as the engine configured it. */
export type SDKSystemMessage = {
  type: "system";
  subtype: "init";
  /** Names of the subagents the Agent tool offers (docs/agents.md; `[]` when it is not offered). */
  agents?: string[];
  /** See `ApiKeySource`. */
  apiKeySource: ApiKeySource;
  /** API beta headers in use (none). */
  betas?: string[];
  /**
   * The engine's version. The field keeps the convention's name so programs that log it still work;
   * with cairn it holds cairn's version.
   */
  claude_code_version: string;
  /** Absolute working directory of the session; relative tool paths resolve against it. */
  cwd: string;
  /** Names of the tools the model is offered this turn (authoritative). */
  tools: string[];
  /** MCP servers and their status (MCP arrives in a later issue: always `[]` for now). */
  mcp_servers: { name: string; status: string; source?: string }[];
  /**
   * The model as named in `options.model` / `setModel()` (`"anthropic/claude-sonnet-5-5"`, a bare
   * `"claude-…"` id, `"replay:demo.json"`) with an alias resolved to the full id (`"haiku"` →
   * `"claude-haiku-5-5"`), or as picked by the default resolution — so it can be passed back to either.
   */
  model: string;
  /**
   * The permission mode at the start of this turn, as given (`options.permissionMode`,
   * `setPermissionMode()`), else the user config's `defaultMode`, else `"default"`.
   */
  permissionMode: PermissionMode;
  /** Slash commands available (cairn has none: `[]`). */
  slash_commands: string[];
  /** Output style in use (always `"default"`). */
  output_style: string;
  /** Skills available (none yet: `[]`). */
  skills: string[];
  /** Plugins loaded (none: `[]`). */
  plugins: { name: string; path: string; version?: string }[];
  uuid: UUID;
  session_id: string;
};

/**
 * A raw streaming event, only with `includePartialMessages: true` (SDK-5, SDK-7). Completed blocks
 * still arrive as `assistant` messages and tool results as `user` messages (SDK-6).
 *
 * Structured output (`outputFormat`) is never streamed as text deltas: the value arrives in
 * `result.structured_output` (SDK-12). Meanwhile a consumer sees the `StructuredOutput` tool call
 * like any other: its input streams as `input_json_delta`s, then come its `assistant` and `user`
 * messages.
 */
export type SDKPartialAssistantMessage = {
  type: "stream_event";
  /** The raw event (see `SDKRawMessageStreamEvent`). Also fine to treat as `Record<string, unknown>`. */
  event: SDKRawMessageStreamEvent;
  /**
   * The Agent tool_use whose subagent produced this event; `null` on the main thread. A subagent's
   * stream events come only with `forwardSubagentText`.
   */
  parent_tool_use_id: string | null;
  uuid: UUID;
  session_id: string;
};

/**
 * Why an assistant message is an API error stand-in: when a model call fails for good, an `assistant`
 * message with the error text ("API Error: ...") and this category comes before the error `result`.
 */
export type SDKAssistantMessageError =
  | "authentication_failed"
  | "oauth_org_not_allowed"
  | "account_on_hold"
  | "verification_required"
  | "cloud_credential_error"
  | "billing_error"
  | "rate_limit"
  | "overloaded"
  | "invalid_request"
  | "model_not_found"
  | "server_error"
  | "unknown"
  | "max_output_tokens";

/**
 * A model call failed with a retryable error (HTTP 408/409/429/5xx, a reset, a cut or idle stream)
 * and will be retried after `retry_delay_ms`. Arrives between the failed attempt and the retry. Stream
 * events the failed attempt already delivered are not repeated by a retry that says the same, so a
 * consumer appending `text_delta`s still rebuilds the text exactly once (SDK-9). A retry that says
 * something else streams after what was already delivered, which cannot be taken back: this message
 * marks the point, and the `assistant` message and `result` hold the new answer alone.
 */
export type SDKAPIRetryMessage = {
  type: "system";
  subtype: "api_retry";
  /** The retry about to happen: 1 for the first retry. */
  attempt: number;
  /** Retries allowed for this call. */
  max_retries: number;
  /** Wait before the retry, milliseconds. */
  retry_delay_ms: number;
  /** The HTTP status of the failure; `null` for a connection problem or a cut or idle stream. */
  error_status: number | null;
  /** The failure's category (from the status). */
  error: SDKAssistantMessageError;
  /** cairn's addition: the failure's message. */
  error_message: string;
  uuid: UUID;
  session_id: string;
};

/**
 * One completed content block of the model's reply — text, thinking, or a complete tool call —
 * delivered as soon as the block ends (SDK-3, SDK-10). A reply with three blocks yields three
 * `assistant` messages sharing `message.id`.
 */
export type SDKAssistantMessage = {
  type: "assistant";
  /** Anthropic-shaped; `content` holds the one completed block. */
  message: SDKAPIAssistantMessage;
  /**
   * The Agent tool_use whose subagent wrote this block; `null` on the main thread. A subagent's tool
   * calls always come; its text and thinking only with `forwardSubagentText`.
   */
  parent_tool_use_id: string | null;
  error?: SDKAssistantMessageError;
  uuid: UUID;
  session_id: string;
} & SDKSubagentOrigin;

/**
 * Which subagent a message comes from, on a subagent's `assistant` and `user` messages (absent on
 * the main thread's), as the convention's CLI marks them: its agent id (the `task_id` of its task
 * messages), its type and the task's description.
 */
export type SDKSubagentOrigin = {
  agent_id?: string;
  subagent_type?: string;
  task_description?: string;
};

/**
 * A user message. cairn yields one per tool result (SDK-6), with `message.content` holding exactly
 * one `tool_result` block and `tool_use_result` holding the tool's structured output.
 *
 * The same type is the **input** of streaming-input mode (`prompt` as an `AsyncIterable`): there
 * `message.content` is the user's text (a string or text blocks), and `uuid`/`session_id` may be
 * omitted. On messages cairn yields, `uuid` and `session_id` are always set.
 */
export type SDKUserMessage = {
  type: "user";
  message: { role: "user"; content: string | SDKUserContentBlock[] };
  /** The Agent tool_use whose subagent's tool call this answers; `null` on the main thread. */
  parent_tool_use_id: string | null;
  /** True for messages the engine made up rather than a human (not used yet). */
  isSynthetic?: boolean;
  /**
   * On tool results: what the tool reported, for programs (not the model). The tool's structured
   * record when it has one (e.g. `Bash`: `{ exitCode, stdout, stderr, … }`, `Read`:
   * `{ content, totalLines, … }`; see docs/sdk.md), else the same text the model read. On a failed,
   * refused or invalid call: the error text.
   */
  tool_use_result?: unknown;
  /** Accepted on input for compatibility; ignored. */
  priority?: "now" | "next" | "later";
  timestamp?: string;
  /** On input: names the message for `Query.rewindFiles()` (file checkpoints). */
  uuid?: UUID;
  session_id?: string;
} & SDKSubagentOrigin;

/**
 * A tool call the permission check refused: a deny rule, the mode (`plan`), an "ask" with no
 * `canUseTool` (or `dontAsk`), or `canUseTool` answering `deny` (or `null`, or throwing). The call did
 * not run; its `tool_result` says why.
 */
export type SDKPermissionDenial = {
  tool_name: string;
  tool_use_id: string;
  tool_input: Record<string, unknown>;
};

/** Usage of one model over the whole `query()` turn, camelCase as in the convention. */
export type ModelUsage = {
  inputTokens: number;
  outputTokens: number;
  cacheReadInputTokens: number;
  cacheCreationInputTokens: number;
  webSearchRequests: number;
  /** Cost in US dollars from cairn's price table; `NaN` when the model's price is unknown. */
  costUSD: number;
  /** From cairn's model catalog; 0 for models it does not know. */
  contextWindow: number;
  /** From cairn's model catalog; 0 for models it does not know. */
  maxOutputTokens: number;
};

/** Fields shared by both result variants. */
type SDKResultBase = {
  type: "result";
  /** Wall time of the turn, milliseconds. */
  duration_ms: number;
  /** Time spent in model calls, milliseconds (never more than `duration_ms`). */
  duration_api_ms: number;
  /** Model calls made in this turn. */
  num_turns: number;
  /** Why the last model call stopped (`null` when none completed). */
  stop_reason: string | null;
  /**
   * Cost of the turn in US dollars, from cairn's price table (docs/providers.md). `NaN` when any
   * model call's price is unknown (local and compatible servers, replay, models not in the table):
   * cairn never reports a made-up 0, and NaN keeps the convention's `number` type so programs that
   * format it (`toFixed`) still run (they print "NaN"; `JSON.stringify` writes `null`). Test with
   * `Number.isNaN`. Read it the convention's way (latest value, do not sum).
   */
  total_cost_usd: number;
  /** Token totals of the turn's model calls. */
  usage: NonNullableUsage;
  /** Per provider model id: token totals of the turn. */
  modelUsage: Record<string, ModelUsage>;
  /** Tool calls the permission check refused (a rule, the mode, or `canUseTool`), in order. */
  permission_denials: SDKPermissionDenial[];
  uuid: UUID;
  session_id: string;
};

/** The turn finished normally: `result` is the final answer. */
export type SDKResultSuccess = SDKResultBase & {
  subtype: "success";
  /** False on cairn (the convention sets it when a turn ended on an API error; cairn uses an error subtype). */
  is_error: boolean;
  /** The final answer: the assistant's text after its last tool call. */
  result: string;
  /** With `outputFormat`: the validated JSON value. Absent without `outputFormat`. */
  structured_output?: unknown;
};

/**
 * The turn ended on an error. `errors` says why, e.g. a provider failure after retries
 * (`error_during_execution`), an abort or `interrupt()` (`error_during_execution`, "The run was
 * interrupted."), the `maxTurns` limit (`error_max_turns`), or, with `outputFormat`, no valid output
 * in three attempts (`error_max_structured_output_retries`). The iterator then finishes normally.
 * `error_max_budget_usd`: the query's `maxBudgetUsd` was passed (the cost so far is in the result).
 */
export type SDKResultError = SDKResultBase & {
  subtype:
    | "error_during_execution"
    | "error_max_turns"
    | "error_max_budget_usd"
    | "error_max_structured_output_retries";
  is_error: boolean;
  errors: string[];
};

/** The last message of a turn: exactly one per turn (per user message in streaming-input mode). */
export type SDKResultMessage = SDKResultSuccess | SDKResultError;

/**
 * A note about the query that is neither a model message nor a result. cairn produces it right after
 * the first `system`/`init` of a query (level `"warning"`) for configuration warnings (`tag:
 * "config"`, e.g. a key in the project's `.cairn/config.json` that was ignored because a project
 * config may only restrict) and session notes (`tag: "session"`, e.g. `continue` found no earlier
 * session, or a resumed transcript had a torn last line). Programs that do not know the subtype skip
 * it (SDK-11).
 */
export type SDKInformationalMessage = {
  type: "system";
  subtype: "informational";
  content: string;
  level: "info" | "notice" | "suggestion" | "warning";
  tool_use_id?: string;
  prevent_continuation?: boolean;
  tag?: string;
  uuid: UUID;
  session_id: string;
};

/**
 * Hook messages, with `includeHookEvents` (docs/hooks.md): for every hook that ran, `hook_started`,
 * then `hook_progress` when it printed anything, then `hook_response` with its outcome. They are sent
 * when the hook has finished, before what it judged goes on (a tool call's come before its result).
 */
export type SDKHookStartedMessage = {
  type: "system";
  subtype: "hook_started";
  hook_id: string;
  /** The hook and where it came from: `command ./guard.sh (/ws/.claude/settings.json)`, `SDK callback hooks.PreToolUse[0].hooks[0]`. */
  hook_name: string;
  hook_event: string;
  uuid: UUID;
  session_id: string;
};

export type SDKHookProgressMessage = {
  type: "system";
  subtype: "hook_progress";
  hook_id: string;
  hook_name: string;
  hook_event: string;
  stdout: string;
  stderr: string;
  output: string;
  uuid: UUID;
  session_id: string;
};

export type SDKHookResponseMessage = {
  type: "system";
  subtype: "hook_response";
  hook_id: string;
  hook_name: string;
  hook_event: string;
  /** The hook's output as JSON text (`""` when it gave none). */
  output: string;
  stdout: string;
  stderr: string;
  exit_code?: number;
  /** `error`: it timed out, crashed, threw or printed invalid JSON (`error` says which and how it was treated). */
  outcome: "success" | "error" | "cancelled";
  /** cairn: what the hook decided (`allow`, `deny`, `ask`, `block`, `stop`), and why. */
  decision?: string;
  reason?: string;
  /** cairn: why the hook failed. */
  error?: string;
  uuid: UUID;
  session_id: string;
};

/**
 * The conversation was compacted (docs/context.md): older turns replaced by a summary the model
 * wrote, recent turns kept verbatim. `trigger`: `auto` (the next request would not have fitted, or the
 * server said so), `manual` (the prompt `/compact`). Tokens are estimates.
 */
export type SDKCompactBoundaryMessage = {
  type: "system";
  subtype: "compact_boundary";
  compact_metadata: {
    trigger: "manual" | "auto";
    pre_tokens: number;
    post_tokens?: number;
    duration_ms?: number;
  };
  uuid: UUID;
  session_id: string;
};

// ---------------------------------------------------------------------------------------------------
// Declared for compatibility, not produced yet (SDK-11: consumers must accept other system subtypes)
// ---------------------------------------------------------------------------------------------------

/**
 * The session's status changed: `compacting` while the conversation is being compacted, then `null`
 * with `compact_result` (`failed` also when there was nothing to compact); after `setPermissionMode()`,
 * `null` with the new `permissionMode`.
 */
export type SDKStatusMessage = {
  type: "system";
  subtype: "status";
  status: "compacting" | "requesting" | null;
  permissionMode?: PermissionMode;
  compact_result?: "success" | "failed";
  compact_error?: string;
  uuid: UUID;
  session_id: string;
};

/** What a subagent used so far (`task_progress`) or in all (`task_notification`). */
export type SDKTaskUsage = { total_tokens: number; tool_uses: number; duration_ms: number };

/** A subagent started (docs/agents.md): `task_id` is its agent id, `tool_use_id` the Agent call's. */
export type SDKTaskStartedMessage = {
  type: "system";
  subtype: "task_started";
  task_id: string;
  tool_use_id?: string;
  /** The Agent call's `description`. */
  description: string;
  /** The agent's name. */
  subagent_type?: string;
  task_type?: string;
  /** The task it was given. */
  prompt?: string;
  uuid: UUID;
  session_id: string;
};

/** A subagent's tool call finished: what it used so far, and the tool's name. */
export type SDKTaskProgressMessage = {
  type: "system";
  subtype: "task_progress";
  task_id: string;
  tool_use_id?: string;
  description: string;
  subagent_type?: string;
  usage: SDKTaskUsage;
  last_tool_name?: string;
  summary?: string;
  uuid: UUID;
  session_id: string;
};

/**
 * A subagent ended: `completed`, `failed` (its errors in `summary`) or `stopped` (interrupted).
 * `summary` is its answer; `output_file` its transcript (`""` when the session is not persisted).
 */
export type SDKTaskNotificationMessage = {
  type: "system";
  subtype: "task_notification";
  task_id: string;
  tool_use_id?: string;
  status: "completed" | "failed" | "stopped";
  output_file: string;
  summary: string;
  usage?: SDKTaskUsage;
  uuid: UUID;
  session_id: string;
};

/**
 * A tool call is still running: a heartbeat every 5 seconds of its run (`CAIRN_TOOL_PROGRESS_SECONDS`
 * in the query's environment changes the interval), between its `assistant` tool_use and its result.
 */
export type SDKToolProgressMessage = {
  type: "tool_progress";
  tool_use_id: string;
  tool_name: string;
  parent_tool_use_id: string | null;
  elapsed_time_seconds: number;
  task_id?: string;
  uuid: UUID;
  session_id: string;
};

/**
 * A prompt echoed back to the program right after its turn's `system`/`init`, as the convention's
 * CLI does with `--replay-user-messages`: only when the program asks, with
 * `extraArgs: { "replay-user-messages": null }` (src/sdk/turn-frames.ts).
 */
export type SDKUserMessageReplay = Omit<SDKUserMessage, "uuid" | "session_id"> & {
  uuid: UUID;
  session_id: string;
  isReplay: true;
  file_attachments?: unknown[];
};

/**
 * What the provider said about the rate limits, from the Anthropic API's `anthropic-ratelimit-*`
 * response headers: `allowed`, `allowed_warning` (under 10% of a limit left) or `rejected` (nothing
 * left). `resetsAt` is in seconds since the epoch; `utilization` the share used, 0..1.
 */
export type SDKRateLimitInfo = {
  status: "allowed" | "allowed_warning" | "rejected";
  resetsAt?: number;
  rateLimitType?:
    | "five_hour"
    | "seven_day"
    | "seven_day_opus"
    | "seven_day_sonnet"
    | "seven_day_overage_included"
    | "overage";
  utilization?: number;
  /** cairn: which of the provider's limits this is about (`requests`, `tokens`, `input-tokens`, ...). */
  limit?: string;
};

/** The rate-limit state changed (a model call's response reported it). */
export type SDKRateLimitEvent = {
  type: "rate_limit_event";
  rate_limit_info: SDKRateLimitInfo;
  uuid: UUID;
  session_id: string;
};

/**
 * Everything `query()` can yield. cairn produces `system`/`init`, `system`/`api_retry`,
 * `system`/`informational`, the hook and compaction messages, `system`/`task_started` /
 * `task_progress` / `task_notification` (subagents), `stream_event`, `assistant`, `user` and
 * `result` today, and when the program asks for them (docs/sdk.md) `SDKUserMessageReplay` and
 * `system`/`session_state_changed`; the other members (`SDKRateLimitEvent` where the provider
 * reports no limits, and the convention's messages in unemitted-messages.ts) are declared so
 * programs written against the convention that handle them still type-check.
 */
export type SDKMessage =
  | SDKSystemMessage
  | SDKPartialAssistantMessage
  | SDKAssistantMessage
  | SDKUserMessage
  | SDKResultMessage
  | SDKStatusMessage
  | SDKCompactBoundaryMessage
  | SDKAPIRetryMessage
  | SDKInformationalMessage
  | SDKHookStartedMessage
  | SDKHookProgressMessage
  | SDKHookResponseMessage
  | SDKTaskStartedMessage
  | SDKTaskProgressMessage
  | SDKTaskNotificationMessage
  | SDKToolProgressMessage
  | SDKUserMessageReplay
  | SDKRateLimitEvent
  | SDKControlRequestProgressMessage
  | SDKModelRefusalFallbackMessage
  | SDKModelRefusalNoFallbackMessage
  | SDKLocalCommandOutputMessage
  | SDKPluginInstallMessage
  | SDKAuthStatusMessage
  | SDKTaskUpdatedMessage
  | SDKBackgroundTasksChangedMessage
  | SDKThinkingTokensMessage
  | SDKSessionStateChangedMessage
  | SDKWorkerShuttingDownMessage
  | SDKCommandsChangedMessage
  | SDKNotificationMessage
  | SDKFilesPersistedEvent
  | SDKToolUseSummaryMessage
  | SDKMemoryRecallMessage
  | SDKElicitationCompleteMessage
  | SDKPermissionDeniedMessage
  | SDKPromptSuggestionMessage
  | SDKMirrorErrorMessage
  | SDKConversationResetMessage
  | SDKSessionWritesLostMessage;
