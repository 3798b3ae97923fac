import type { ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import type { HookJSONOutput } from "../engine/hooks.js";
import type { McpHttpServerConfig, McpSSEServerConfig, McpStdioServerConfig, Options } from "./options.js";

/**
 * Public types of the convention that name shapes cairn already has, under the convention's names,
 * so typed programs compile unchanged (docs/sdk.md, "Exports").
 */

export type SyncHookJSONOutput = Exclude<HookJSONOutput, { async: true }>;
export type AsyncHookJSONOutput = Extract<HookJSONOutput, { async: true }>;

export type PermissionDecisionClassification = "user_temporary" | "user_permanent" | "user_reject";

export type ThinkingAdaptive = Extract<NonNullable<Options["thinking"]>, { type: "adaptive" }>;
export type ThinkingEnabled = Extract<NonNullable<Options["thinking"]>, { type: "enabled" }>;
export type ThinkingDisabled = Extract<NonNullable<Options["thinking"]>, { type: "disabled" }>;
export type JsonSchemaOutputFormat = NonNullable<Options["outputFormat"]>;
export type OutputFormatType = JsonSchemaOutputFormat["type"];

/** An in-process server as the convention's CLI sees it (the instance stays in the program). */
export type McpSdkServerConfig = { type: "sdk"; name: string; timeout?: number };
export type McpServerConfigForProcessTransport =
  | McpStdioServerConfig
  | McpSSEServerConfig
  | McpHttpServerConfig
  | McpSdkServerConfig;

export type SdkBeta = "context-1m-2025-08-07" | (string & {});
export type SdkPluginConfig = { type: "local"; path: string; skipMcpDiscovery?: boolean };
export type SDKStatus = "compacting" | "requesting" | null;
export type FastModeState = "off" | "cooldown" | "on";
export type ConfigScope = "local" | "user" | "project";

/** Why a turn ended, in the convention's words (cairn's `result` does not carry it yet). */
export type TerminalReason =
  | "blocking_limit"
  | "prompt_too_long"
  | "model_error"
  | "api_error"
  | "aborted_streaming"
  | "aborted_tools"
  | "stop_hook_prevented"
  | "hook_stopped"
  | "max_turns"
  | "completed"
  | "budget_exhausted"
  | "structured_output_retry_exhausted";

/** `spawnClaudeCodeProcess` (accepted, never called: there is no process). */
export type SpawnOptions = {
  command: string;
  args: string[];
  cwd?: string;
  env: { [name: string]: string | undefined };
  signal: AbortSignal;
};
export type SpawnedProcess = {
  readonly killed: boolean;
  readonly exitCode: number | null;
  kill(signal: NodeJS.Signals): boolean;
};

/** The convention's session-store types (`sessionStore` is not supported: transcripts live in $CAIRN_HOME). */
export type SessionKey = { projectKey: string; sessionId: string; subpath?: string };
export type SessionStoreEntry = { type: string; uuid?: string; timestamp?: string; [key: string]: unknown };
export type SessionStore = {
  append(key: SessionKey, entries: SessionStoreEntry[]): Promise<void>;
  load(key: SessionKey): Promise<SessionStoreEntry[] | null>;
  listSessions?(projectKey: string): Promise<{ sessionId: string; mtime: number }[]>;
  listSessionSummaries?(projectKey: string): Promise<SessionSummaryEntry[]>;
  delete?(key: SessionKey): Promise<void>;
  listSubkeys?(key: { projectKey: string; sessionId: string }): Promise<string[]>;
};
export type SessionStoreFlush = "batched" | "eager";

/** The convention's `outputFormat` base: cairn's one format is `json_schema`. */
export type BaseOutputFormat = { type: OutputFormatType };

/** Why fast mode is off (cairn has no fast mode: its `system`/`init` never sets it). */
export type FastModeDisabledReason =
  | "free"
  | "preference"
  | "extra_usage_disabled"
  | "network_error"
  | "unknown"
  | "not_first_party"
  | "disabled_by_env"
  | "model_not_allowed"
  | "sdk_opt_in_required"
  | "pending";

/** The `toolConfig` option (accepted with a warning: cairn's AskUserQuestion has no preview format to choose). */
export type ToolConfig = { askUserQuestion?: { previewFormat?: "markdown" | "html" } };

/** What an MCP server may do with its tools, per tool (cairn's permission rules decide instead). */
export type McpServerToolPolicy = {
  name: string;
  permission_policy?: "always_allow" | "always_ask" | "always_deny";
  org_max_permission?: "allow" | "ask" | "blocked";
};
/** A claude.ai connector (status only; cairn has none). */
export type McpClaudeAIProxyServerConfig = {
  type: "claudeai-proxy";
  url: string;
  id: string;
  timeout?: number;
};
export type McpServerStatusConfig = McpServerConfigForProcessTransport | McpClaudeAIProxyServerConfig;
/** Which MCP server a tool of a hook's input came from. */
export type McpServerProvenance = { name: string; source: string };
/** A subagent's MCP servers: a name of the query's servers, or servers of its own. */
export type AgentMcpServerSpec = string | Record<string, McpServerConfigForProcessTransport>;

/**
 * The `onElicitation` option: an MCP server asks the user for input. Accepted with a warning; cairn's
 * MCP client does not offer elicitation (docs/mcp.md, "Not yet"), so the callback is never called.
 */
export type ElicitationRequest = {
  serverName: string;
  message: string;
  mode?: "form" | "url";
  url?: string;
  elicitationId?: string;
  requestedSchema?: Record<string, unknown>;
  title?: string;
  displayName?: string;
  description?: string;
};
export type ElicitationResult = ElicitResult;
export type OnElicitation = (
  request: ElicitationRequest,
  options: { signal: AbortSignal; requestId: string },
) => Promise<ElicitationResult | null>;

/** The `onUserDialog` option: accepted with a warning; cairn opens no dialogs, so it is never called. */
export type UserDialogRequest = { dialogKind: string; payload: Record<string, unknown>; toolUseID?: string };
export type UserDialogResult = { behavior: "completed"; result: unknown } | { behavior: "cancelled" };
export type OnUserDialog = (
  request: UserDialogRequest,
  options: { signal: AbortSignal; requestId: string },
) => Promise<UserDialogResult | null>;

/** A background task in the `Stop` hooks' input (cairn runs none: the field is never set). */
export type BackgroundTaskSummary = {
  id: string;
  type: string;
  status: string;
  description: string;
  command?: string;
  agent_type?: string;
  server?: string;
  tool?: string;
  name?: string;
};
/** A scheduled prompt in the `Stop` hooks' input (cairn schedules none). */
export type SessionCronSummary = { id: string; schedule: string; recurring: boolean; prompt: string };
/** A tool call left for the host to run (the convention's deferred tools; cairn runs every call). */
export type SDKDeferredToolUse = { id: string; name: string; input: Record<string, unknown> };

/** What `foldSessionSummary()` keeps per session: `data` is opaque to a store, kept verbatim. */
export type SessionSummaryEntry = { sessionId: string; mtime: number; data: Record<string, unknown> };
