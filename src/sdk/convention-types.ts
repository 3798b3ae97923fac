import type { HookJSONOutput, HookPermissionDecision } from "../engine/hooks.js";
import type {
  McpHttpServerConfig,
  McpSSEServerConfig,
  McpStdioServerConfig,
  Options,
  PermissionUpdate,
} from "./options.js";

/**
 * Public types of the convention that name shapes cairn already has, under the convention's names,
 * so typed programs compile unchanged (docs/sdk.md, "Exports").
 */

export type SyncHookJSONOutput = Exclude<HookJSONOutput, { async: true }>;
export type AsyncHookJSONOutput = Extract<HookJSONOutput, { async: true }>;

type WithContext<E extends string> = { hookEventName: E; additionalContext?: string };
export type PreToolUseHookSpecificOutput = {
  hookEventName: "PreToolUse";
  permissionDecision?: HookPermissionDecision;
  permissionDecisionReason?: string;
  updatedInput?: Record<string, unknown>;
  additionalContext?: string;
};
export type PostToolUseHookSpecificOutput = WithContext<"PostToolUse"> & {
  updatedMCPToolOutput?: unknown;
  updatedToolOutput?: unknown;
};
export type PostToolUseFailureHookSpecificOutput = WithContext<"PostToolUseFailure">;
export type UserPromptSubmitHookSpecificOutput = WithContext<"UserPromptSubmit"> & {
  sessionTitle?: string;
  suppressOriginalPrompt?: boolean;
};
export type SessionStartHookSpecificOutput = WithContext<"SessionStart"> & {
  initialUserMessage?: string;
  sessionTitle?: string;
};
export type StopHookSpecificOutput = WithContext<"Stop">;
export type SubagentStartHookSpecificOutput = WithContext<"SubagentStart">;
export type SubagentStopHookSpecificOutput = WithContext<"SubagentStop">;
export type NotificationHookSpecificOutput = WithContext<"Notification">;
export type PermissionDeniedHookSpecificOutput = { hookEventName: "PermissionDenied"; retry?: boolean };
export type PermissionRequestHookSpecificOutput = {
  hookEventName: "PermissionRequest";
  decision:
    | { behavior: "allow"; updatedInput?: Record<string, unknown>; updatedPermissions?: PermissionUpdate[] }
    | { behavior: "deny"; message?: string; interrupt?: boolean };
};

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
/** cairn's `sandbox` option (docs/security.md, "Sandbox"), in the convention's shape. */
export type SandboxSettings = NonNullable<Options["sandbox"]>;
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
  delete?(key: SessionKey): Promise<void>;
  listSubkeys?(key: { projectKey: string; sessionId: string }): Promise<string[]>;
};
export type SessionStoreFlush = "batched" | "eager";
