import type { ModelUsage, SDKMessage } from "./messages.js";
import type { AgentInfo, ModelInfo, SlashCommand } from "./query.js";
import type { SDKActiveGoalMessage } from "./unemitted-messages.js";

/**
 * Shapes of the convention's `Query` control answers that cairn fills in (docs/sdk.md, "The `Query`
 * object"). Optional fields cairn has no value for are left out.
 */

/** `accountInfo()`: cairn has no account (keys come from the environment); `apiProvider` for Anthropic models. */
export type AccountInfo = {
  email?: string;
  organization?: string;
  subscriptionType?: string;
  tokenSource?: string;
  apiKeySource?: string;
  apiProvider?:
    | "firstParty"
    | "bedrock"
    | "vertex"
    | "foundry"
    | "anthropicAws"
    | "anthropicGoogleCloud"
    | "mantle"
    | "gateway";
};

/** `initializationResult()`: what the convention's CLI answers to `initialize`. */
export type SDKControlInitializeResponse = {
  commands: SlashCommand[];
  agents: AgentInfo[];
  output_style: string;
  available_output_styles: string[];
  models: ModelInfo[];
  account: AccountInfo;
  hooks_applied?: boolean;
  hook_on_failure_supported?: boolean;
  mcp_servers_applied?: boolean;
  claude_code_version?: string;
};

/** `getContextUsage()`: an estimate of the conversation's size against the model's context window. */
export type SDKControlGetContextUsageResponse = {
  categories: { name: string; tokens: number }[];
  totalTokens: number;
  maxTokens: number;
  percentage: number;
  model: string;
};

/** `readFile()`: a file of the workspace (`null` when it cannot be read). */
export type SDKControlReadFileResponse = {
  contents: string;
  absPath: string;
  truncated?: boolean;
  encoding?: "utf-8" | "base64";
};

/** `rewindFiles()` (file checkpoints: src/sessions/checkpoints.ts). */
export type { RewindFilesResult } from "../sessions/checkpoints.js";

export type SDKControlReloadPluginsResponse = { plugins: unknown[]; errors?: unknown[] };
export type SDKControlReloadSkillsResponse = { skills: SlashCommand[] };

export type SDKControlReloadOutputStylesResponse = { available_output_styles: string[] };

/** `readMcpResource()`: the resource's contents, as its MCP server answered. */
export type SDKControlMcpReadResourceResponse = {
  contents: {
    uri: string;
    mimeType?: string;
    text?: string;
    blob?: string;
    _meta?: Record<string, unknown>;
  }[];
};

/** One category of `SDKContextUsage` (the convention's detailed context report; cairn's is `getContextUsage()`'s). */
export type SDKContextUsageCategory = {
  name: string;
  tokens: number;
  kind: "used" | "free" | "buffer" | "deferred";
};
export type SDKContextUsage = {
  model: string;
  total_tokens: number;
  raw_max_tokens: number;
  percentage: number;
  over_limit?: { tokens_over: number; kind: "hard_limit" | "compaction_window" };
  categories: SDKContextUsageCategory[];
  mcp_tools: { name: string; server_name: string; tokens: number }[];
  memory_files: { path: string; type: string; tokens: number }[];
  agents: { agent_type: string; source: string; tokens: number }[];
  skills?: { name: string; source: string; plugin_name?: string; tokens: number }[];
};

type SessionUsage = {
  total_cost_usd: number;
  total_api_duration_ms: number;
  total_duration_ms: number;
  total_lines_added: number;
  total_lines_removed: number;
  model_usage: Record<string, ModelUsage>;
};
type ExtraUsage = {
  is_enabled: boolean;
  monthly_limit: number | null;
  used_credits: number | null;
  utilization: number | null;
  currency?: string | null;
} | null;
type UsageWindow = { utilization: number | null; resets_at: string | null } | null;
type UsageBehaviors = {
  request_count: number;
  session_count: number;
  behaviors: { key: string; pct: number; count: number }[];
  recommendations?: { key: string; pct: number; title: string; detail?: string }[];
  fix?: { keys: string[]; messages: string[] };
  agents: { name: string; pct: number }[];
  skills: { name: string; pct: number }[];
  plugins: { name: string; pct: number }[];
  mcp_servers: { name: string; pct: number }[];
};

/**
 * The convention's experimental usage report (a subscription's limits and habits). cairn's
 * `usage_EXPERIMENTAL_MAY_CHANGE_DO_NOT_RELY_ON_THIS_API_YET()` answers `{}`: it has no subscription.
 */
export type SDKControlGetUsageResponse = {
  session: SessionUsage;
  subscription_type: string | null;
  rate_limits_available: boolean;
  rate_limits: {
    five_hour?: UsageWindow;
    seven_day?: UsageWindow;
    seven_day_oauth_apps?: UsageWindow;
    seven_day_opus?: UsageWindow;
    seven_day_sonnet?: UsageWindow;
    model_scoped?: { display_name: string; utilization: number | null; resets_at: string | null }[];
    extra_usage?: ExtraUsage;
  } | null;
  behaviors: { day: UsageBehaviors; week: UsageBehaviors } | null;
};
/** The usage the convention's `assistant.usage_report` carries (cairn's `assistant` messages have none). */
export type SDKUsageReport = {
  session: SessionUsage;
  rate_limits: {
    limits:
      | {
          kind: string;
          group: string;
          percent: number;
          resets_at: string | null;
          scope?: {
            model?: { display_name: string } | null;
            surface?: { display_name: string } | null;
          } | null;
          severity: string;
          is_active: boolean;
        }[]
      | null;
    extra_usage?: ExtraUsage;
  } | null;
};

/** A settings file that could not be parsed. */
export type SDKSettingsParseError = { file?: string; path: string; message: string };
export type SDKPermissionRuleDescription = { prefix: string; emphasis?: string; suffix?: string };
/** One permission rule in effect, and where it came from (the convention's `list_permission_rules`). */
export type SDKPermissionRuleEntry = {
  behavior: "allow" | "deny" | "ask";
  source:
    | "userSettings"
    | "projectSettings"
    | "localSettings"
    | "flagSettings"
    | "policySettings"
    | "cliArg"
    | "command"
    | "session"
    | "mcpMount"
    | "toolsNarrowing"
    | "mcpServerPolicy"
    | "hostCredential";
  rule: string;
  description?: SDKPermissionRuleDescription;
  editability: "persistent" | "session" | "readonly";
  notInEffect?: boolean;
};
export type SDKPermissionWorkspaceDirectory = { path: string; source: string };
export type SDKControlPermissionRulesState = {
  rules: SDKPermissionRuleEntry[];
  workspaceDirectories: SDKPermissionWorkspaceDirectory[];
  originalCwd: string;
  managedOnly: boolean;
  errors?: SDKSettingsParseError[];
  withheld?: boolean;
};
export type SDKControlListPermissionRulesResponse = { state: SDKControlPermissionRulesState };

/**
 * The convention's control envelopes between its SDK and the CLI it spawns. cairn's `query()` runs
 * in-process and sends none; its agent-SDK CLI protocol (docs/protocols.md) speaks them on stdio.
 */
export type SDKControlRequest = {
  type: "control_request";
  request_id: string;
  /** `subtype` names the request (`initialize`, `interrupt`, `can_use_tool`, …); the rest is its payload. */
  request: { subtype: string; [field: string]: unknown };
};
type PendingRequests = {
  pending_permission_requests?: SDKControlRequest[];
  pending_user_dialog_requests?: SDKControlRequest[];
  pending_elicitation_requests?: SDKControlRequest[];
};
export type SDKControlResponse = {
  type: "control_response";
  response:
    | ({ subtype: "success"; request_id: string; response?: Record<string, unknown> } & PendingRequests)
    | ({ subtype: "error"; request_id: string; error: string } & PendingRequests);
};

/**
 * How the convention's SDK talks to its CLI (process, WebSocket, SSE). cairn has no transport: the
 * type is here for programs that implement one; `query()` never takes it.
 */
export interface Transport {
  write(data: string): void | Promise<void>;
  close(): void;
  isReady(): boolean;
  readMessages(): AsyncGenerator<
    | SDKMessage
    | SDKActiveGoalMessage
    | SDKControlResponse
    | SDKControlRequest
    | { type: "control_cancel_request"; request_id: string }
    | { type: "keep_alive" },
    void,
    unknown
  >;
  expectControlResponse?(requestId: string): void;
  markDelivered?(message: object): void;
  endInput(): void;
  waitForExit?(): Promise<void>;
  [Symbol.dispose]?(): void;
}
