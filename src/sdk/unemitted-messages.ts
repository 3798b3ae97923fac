import type { UUID } from "./messages.js";
import type { SlashCommand } from "./query.js";

/**
 * The convention's messages that cairn's `query()` never yields (docs/sdk.md, "Declared, not
 * produced yet"): they report things cairn does not have — background tasks, remote workers, MCP
 * elicitation, plugin installs, model refusals with fallback, transcript mirrors, notifications of an
 * interactive interface. They are in the `SDKMessage` union, with the convention's shapes, so a
 * program that handles them type-checks, and its `switch` over `type`/`subtype` means the same.
 * One exception: `session_state_changed`, which a program can ask for (below).
 */

type Envelope = { uuid: UUID; session_id: string };

/** Progress of a control request the host sent (the convention's CLI; cairn answers in-process). */
export type SDKControlRequestProgressMessage = Envelope & {
  type: "system";
  subtype: "control_request_progress";
  request_id: string;
  status: "started" | "api_retry";
  attempt?: number;
  max_retries?: number;
  retry_delay_ms?: number;
  error_status?: number | null;
};

/** The model refused and another model answered (cairn's `fallbackModel` is for overload, not refusals). */
export type SDKModelRefusalFallbackMessage = Envelope & {
  type: "system";
  subtype: "model_refusal_fallback";
  trigger: "refusal";
  direction: "retry" | "revert" | "sticky";
  scope?: "session" | "local";
  original_model: string;
  fallback_model: string;
  request_id: string | null;
  api_refusal_category?: string | null;
  api_refusal_explanation?: string | null;
  retracted_message_uuids?: string[];
  refused_user_message_uuid?: string | null;
  content: string;
};

export type SDKModelRefusalNoFallbackMessage = Envelope & {
  type: "system";
  subtype: "model_refusal_no_fallback";
  original_model: string;
  request_id: string | null;
  api_refusal_category?: string | null;
  api_refusal_explanation?: string | null;
  refused_user_message_uuid?: string | null;
  content: string;
};

/** Output of an interactive slash command run locally. */
export type SDKLocalCommandOutputMessage = Envelope & {
  type: "system";
  subtype: "local_command_output";
  content: string;
};

export type SDKPluginInstallMessage = Envelope & {
  type: "system";
  subtype: "plugin_install";
  status: "started" | "installed" | "failed" | "completed";
  name?: string;
  error?: string;
};

/** A login in progress (cairn has no login: keys come from the environment). */
export type SDKAuthStatusMessage = Envelope & {
  type: "auth_status";
  isAuthenticating: boolean;
  output: string[];
  error?: string;
};

/** A background task changed state (cairn runs no background tasks). */
export type SDKTaskUpdatedMessage = Envelope & {
  type: "system";
  subtype: "task_updated";
  task_id: string;
  run_id?: string;
  patch: {
    status?: "pending" | "running" | "completed" | "failed" | "killed" | "paused";
    description?: string;
    end_time?: number;
    total_paused_ms?: number;
    error?: string;
    is_backgrounded?: boolean;
  };
};

/** The set of background tasks now running (replaces the previous set). */
export type SDKBackgroundTasksChangedMessage = Envelope & {
  type: "system";
  subtype: "background_tasks_changed";
  tasks: {
    task_id: string;
    run_id?: string;
    task_type: string;
    subagent_type?: string;
    description: string;
    parent_task_id?: string;
    ambient?: boolean;
  }[];
};

export type SDKThinkingTokensMessage = Envelope & {
  type: "system";
  subtype: "thinking_tokens";
  estimated_tokens: number;
  estimated_tokens_delta: number;
  user_message_uuid?: string;
};

/**
 * `running` / `requires_action` / `idle`. cairn yields `running` before a turn's `system`/`init` and
 * `idle` after its `result` only when the program asks, with `CLAUDE_CODE_EMIT_SESSION_STATE_EVENTS=1`
 * in the query's environment (src/sdk/turn-frames.ts); otherwise the `result` ends a turn. Its
 * agent-SDK CLI protocol sends them to the SDK too, for its bookkeeping (docs/protocols.md).
 * `requires_action` is never sent.
 */
export type SDKSessionStateChangedMessage = Envelope & {
  type: "system";
  subtype: "session_state_changed";
  state: "idle" | "running" | "requires_action";
};

export type SDKWorkerShuttingDownMessage = Envelope & {
  type: "system";
  subtype: "worker_shutting_down";
  reason: string;
};

/** The slash commands changed (cairn's are fixed for a query: `supportedCommands()`). */
export type SDKCommandsChangedMessage = Envelope & {
  type: "system";
  subtype: "commands_changed";
  commands: SlashCommand[];
};

export type SDKNotificationMessage = Envelope & {
  type: "system";
  subtype: "notification";
  key: string;
  text: string;
  priority: "low" | "medium" | "high" | "immediate";
  color?: string;
  timeout_ms?: number;
};

/** Files uploaded to the provider's file store. */
export type SDKFilesPersistedEvent = Envelope & {
  type: "system";
  subtype: "files_persisted";
  files: { filename: string; file_id: string }[];
  failed: { filename: string; error: string }[];
  processed_at: string;
};

export type SDKToolUseSummaryMessage = Envelope & {
  type: "tool_use_summary";
  summary: string;
  preceding_tool_use_ids: string[];
};

export type SDKMemoryRecallMessage = Envelope & {
  type: "system";
  subtype: "memory_recall";
  mode: "select" | "synthesize";
  memories: { path: string; scope: "personal" | "team" | "organization"; content?: string }[];
};

/** An MCP server's URL elicitation finished (cairn declines elicitations: docs/mcp.md). */
export type SDKElicitationCompleteMessage = Envelope & {
  type: "system";
  subtype: "elicitation_complete";
  mcp_server_name: string;
  elicitation_id: string;
};

/**
 * A call denied without asking. cairn reports its denials in the `result`'s `permission_denials`
 * and in the tool's error result, not as a message of their own.
 */
export type SDKPermissionDeniedMessage = Envelope & {
  type: "system";
  subtype: "permission_denied";
  tool_name: string;
  tool_use_id: string;
  agent_id?: string;
  decision_reason_type?: string;
  decision_reason?: string;
  message: string;
};

/** A suggested next prompt (the `promptSuggestions` option, not supported). */
export type SDKPromptSuggestionMessage = Envelope & {
  type: "prompt_suggestion";
  suggestion: string;
};

/** Mirroring a transcript to a `sessionStore` failed (cairn does not mirror). */
export type SDKMirrorErrorMessage = Envelope & {
  type: "system";
  subtype: "mirror_error";
  error: string;
  key: { projectKey: string; sessionId: string; subpath?: string };
};

/** The conversation started over (an interactive `/clear`, leaving plan mode). */
export type SDKConversationResetMessage = Envelope & {
  type: "conversation_reset";
  new_conversation_id: UUID;
  trigger?: "clear" | "plan_mode_exit" | "fresh_session" | "onboarding";
  user_message_uuid?: string;
  timestamp?: string;
};

/** The disk was full and writes were lost (cairn does not yield it: a transcript it cannot create is a `SessionWriteError`). */
export type SDKSessionWritesLostMessage = Envelope & {
  type: "system";
  subtype: "session_writes_lost";
  error_code: "ENOSPC" | "EDQUOT";
  lost: ("transcript" | "global_config")[];
  transcript_session_ids?: string[];
};

/** Outside the convention's `SDKMessage` union, passed through by its SDK: a goal the session works toward. */
export type SDKActiveGoalMessage = Envelope & {
  type: "active_goal";
  value: {
    condition: string;
    iterations: number;
    set_at: number;
    tokens_at_start: number;
    last_reason?: string;
  } | null;
};

/** Where a user message came from (the convention's `origin`; cairn's come from the program: unset). */
export type SDKMessageOrigin =
  | { kind: "human" }
  | { kind: "channel"; server: string }
  | {
      kind: "peer";
      from: string;
      fromMode?: "bypass" | "prompting";
      name?: string;
      fromSession?: string;
      senderTaskId?: string;
      body?: string;
      verifiedPeerPid?: number;
    }
  | {
      kind: "task-notification";
      subkind?:
        | "scheduled-trigger"
        | "peer-send-message"
        | "projects-relay"
        | "session-inbox"
        | "external-event";
      fireReason?: string;
      runId?: string;
    }
  | { kind: "coordinator" }
  | { kind: "unclassified" }
  | { kind: "observer"; from: string; senderTaskId: string }
  | { kind: "auto-continuation" }
  | { kind: "observer-activity" };

/** A resource an MCP tool linked to in a task's result. */
export type SDKMcpResourceLink = {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  annotations?: Record<string, unknown>;
};

/** Why a turn failed before it started (the convention's CLI start-up; cairn rejects the first `next()`). */
export type SDKStartupFailureReason =
  | "org_pin_api_key_conflict"
  | "provider_not_allowed"
  | "org_verify_failed"
  | "org_pin_mismatch"
  | "managed_settings_invalid"
  | "remote_settings_required_unavailable"
  | "gateway_signin_required"
  | "gateway_access_denied"
  | "proxy_invalid"
  | "temp_dir_unusable"
  | "cwd_unavailable"
  | "shell_tool_missing"
  | "session_held_by_background"
  | "worktree_resume_refused"
  | "worktree_unverified"
  | "cli_version_too_old"
  | "bypass_root"
  | "org_config_required_unavailable"
  | "org_config_refused"
  | "sandbox_required_unavailable"
  | "initialize_not_first"
  | "config_file_invalid"
  | "managed_settings_not_delivered"
  | "initialize_fields_not_delivered"
  | "sideload_flags_disabled";
