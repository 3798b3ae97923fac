/**
 * The port through which the engine runs hooks (docs/hooks.md). The shapes are the public agent-SDK
 * convention's: the input a hook receives (`HookInput`, one member per event) and the output it may
 * return (`HookJSONOutput`). The dispatcher that matches and runs SDK callbacks and command hooks
 * lives in src/hooks/; the engine only calls `HookDispatcher.run` at its points and applies the verdict.
 */
import type { ToolDeclaration } from "../tools/types.js";

/** Every event name of the convention (accepted as keys); `FIRED_HOOK_EVENTS` says which cairn fires. */
export const HOOK_EVENTS = [
  "PreToolUse",
  "PostToolUse",
  "PostToolUseFailure",
  "PostToolBatch",
  "Notification",
  "UserPromptSubmit",
  "UserPromptExpansion",
  "SessionStart",
  "SessionEnd",
  "Stop",
  "StopFailure",
  "SubagentStart",
  "SubagentStop",
  "PreCompact",
  "PostCompact",
  "PreModelSwitch",
  "PostModelSwitch",
  "PermissionRequest",
  "PermissionDenied",
  "Setup",
  "TeammateIdle",
  "TaskCreated",
  "TaskCompleted",
  "Elicitation",
  "ElicitationResult",
  "ConfigChange",
  "WorktreeCreate",
  "WorktreeRemove",
  "InstructionsLoaded",
  "CwdChanged",
  "FileChanged",
  "DirectoryAdded",
  "MessageDisplay",
  "PreSkillShellCommand",
] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];

/**
 * The events cairn has a hook point for. SubagentStart/SubagentStop and PreCompact/PostCompact fire
 * once subagents and compaction exist (their code calls `HookDispatcher.run`); hooks for any other
 * event are reported as never firing.
 */
export const FIRED_HOOK_EVENTS = [
  "PreToolUse",
  "PostToolUse",
  "PostToolUseFailure",
  "Notification",
  "UserPromptSubmit",
  "SessionStart",
  "SessionEnd",
  "Stop",
  "SubagentStart",
  "SubagentStop",
  "PreCompact",
  "PostCompact",
  "PermissionRequest",
  "PermissionDenied",
] as const satisfies readonly HookEvent[];
export type FiredHookEvent = (typeof FIRED_HOOK_EVENTS)[number];

export type BaseHookInput = {
  session_id: string;
  /** The session's transcript (`""` when the session is not persisted). */
  transcript_path: string;
  cwd: string;
  permission_mode?: string;
  agent_id?: string;
  agent_type?: string;
  /** Convention fields cairn does not set. */
  prompt_id?: string;
  effort?: { level: string };
};

type ToolFields = { tool_name: string; tool_input: unknown; tool_use_id: string };

/** The fields of each event besides the base ones: what the engine (or a door) passes to `run`. */
export type HookEventFields =
  | ({ hook_event_name: "PreToolUse" } & ToolFields)
  | ({ hook_event_name: "PostToolUse"; tool_response: unknown; duration_ms?: number } & ToolFields)
  | ({
      hook_event_name: "PostToolUseFailure";
      error: string;
      is_interrupt?: boolean;
      duration_ms?: number;
    } & ToolFields)
  | { hook_event_name: "Notification"; message: string; title?: string; notification_type: string }
  | { hook_event_name: "UserPromptSubmit"; prompt: string; source?: "user" | "sdk" | "system" }
  | {
      hook_event_name: "SessionStart";
      source: "startup" | "resume" | "clear" | "compact" | "fork";
      model?: string;
    }
  | { hook_event_name: "SessionEnd"; reason: "clear" | "resume" | "logout" | "prompt_input_exit" | "other" }
  | { hook_event_name: "Stop"; stop_hook_active: boolean; last_assistant_message?: string }
  | { hook_event_name: "SubagentStart"; agent_id: string; agent_type: string }
  | {
      hook_event_name: "SubagentStop";
      stop_hook_active: boolean;
      agent_id: string;
      agent_transcript_path: string;
      agent_type: string;
      last_assistant_message?: string;
    }
  | { hook_event_name: "PreCompact"; trigger: "manual" | "auto"; custom_instructions: string | null }
  | { hook_event_name: "PostCompact"; trigger: "manual" | "auto"; compact_summary: string }
  | {
      hook_event_name: "PermissionRequest";
      tool_name: string;
      tool_input: unknown;
      tool_use_id: string;
      /** Rules that would allow the call (`Bash(curl:*)`), as the gate suggests them. */
      permission_suggestions?: unknown[];
    }
  | ({ hook_event_name: "PermissionDenied"; reason: string } & ToolFields);

/**
 * The convention's events cairn has no hook point for (never fired; hooks for them are reported as
 * such): declared so programs that handle them type-check (`input.hook_event_name === "Setup"`).
 */
type UnfiredHookEventFields =
  | { hook_event_name: "PostToolBatch"; tool_calls: PostToolBatchToolCall[] }
  | {
      hook_event_name: "UserPromptExpansion";
      expansion_type: "slash_command" | "mcp_prompt";
      command_name: string;
      command_args: string;
      command_source?: string;
      prompt: string;
    }
  | { hook_event_name: "StopFailure"; error: string; error_details?: string; last_assistant_message?: string }
  | {
      hook_event_name: "PreModelSwitch";
      from_model: string;
      to_model: string;
      requested_model: string | null;
      source: string;
    }
  | {
      hook_event_name: "PostModelSwitch";
      from_model: string;
      to_model: string;
      requested_model: string | null;
      source: string;
    }
  | { hook_event_name: "Setup"; trigger: "init" | "maintenance" }
  | { hook_event_name: "TeammateIdle"; teammate_name: string; team_name: string }
  | {
      hook_event_name: "TaskCreated" | "TaskCompleted";
      task_id: string;
      task_subject: string;
      task_description?: string;
      teammate_name?: string;
      team_name?: string;
    }
  | {
      hook_event_name: "Elicitation";
      mcp_server_name: string;
      message: string;
      mode?: "form" | "url";
      url?: string;
      elicitation_id?: string;
      requested_schema?: Record<string, unknown>;
    }
  | {
      hook_event_name: "ElicitationResult";
      mcp_server_name: string;
      elicitation_id?: string;
      mode?: "form" | "url";
      action: "accept" | "decline" | "cancel";
      content?: Record<string, unknown>;
    }
  | {
      hook_event_name: "ConfigChange";
      source: "user_settings" | "project_settings" | "local_settings" | "policy_settings" | "skills";
      file_path?: string;
    }
  | { hook_event_name: "WorktreeCreate"; name: string }
  | { hook_event_name: "WorktreeRemove"; worktree_path: string }
  | {
      hook_event_name: "InstructionsLoaded";
      file_path: string;
      memory_type: "User" | "Project" | "Local" | "Managed";
      load_reason: "session_start" | "nested_traversal" | "path_glob_match" | "include" | "compact";
      globs?: string[];
      trigger_file_path?: string;
      parent_file_path?: string;
    }
  | { hook_event_name: "CwdChanged"; old_cwd: string; new_cwd: string }
  | { hook_event_name: "FileChanged"; file_path: string; event: "change" | "add" | "unlink" }
  | { hook_event_name: "DirectoryAdded"; directory: string; source: "slash_command" | "register_repo_root" }
  | {
      hook_event_name: "MessageDisplay";
      turn_id: string;
      message_id: string;
      index: number;
      final: boolean;
      delta: string;
    }
  | {
      hook_event_name: "PreSkillShellCommand";
      tool_name: string;
      tool_input: { command: string };
      tool_use_id: string;
      command_name: string;
      command_source?: string;
      invoked_by: "user" | "claude" | "other";
    };

export type PostToolBatchToolCall = {
  tool_name: string;
  tool_input: unknown;
  tool_use_id: string;
  tool_response?: unknown;
};

type WithBase<T> = T extends unknown ? BaseHookInput & T : never;
/**
 * What a hook receives: the base fields and its event's own (discriminated by `hook_event_name`);
 * the union has every event of the convention, also those cairn never fires.
 */
export type HookInput = WithBase<HookEventFields | UnfiredHookEventFields>;
export type PreToolUseHookInput = Extract<HookInput, { hook_event_name: "PreToolUse" }>;
export type PostToolUseHookInput = Extract<HookInput, { hook_event_name: "PostToolUse" }>;
export type PostToolUseFailureHookInput = Extract<HookInput, { hook_event_name: "PostToolUseFailure" }>;
export type NotificationHookInput = Extract<HookInput, { hook_event_name: "Notification" }>;
export type UserPromptSubmitHookInput = Extract<HookInput, { hook_event_name: "UserPromptSubmit" }>;
export type SessionStartHookInput = Extract<HookInput, { hook_event_name: "SessionStart" }>;
export type SessionEndHookInput = Extract<HookInput, { hook_event_name: "SessionEnd" }>;
export type StopHookInput = Extract<HookInput, { hook_event_name: "Stop" }>;
export type SubagentStartHookInput = Extract<HookInput, { hook_event_name: "SubagentStart" }>;
export type SubagentStopHookInput = Extract<HookInput, { hook_event_name: "SubagentStop" }>;
export type PreCompactHookInput = Extract<HookInput, { hook_event_name: "PreCompact" }>;
export type PostCompactHookInput = Extract<HookInput, { hook_event_name: "PostCompact" }>;
export type PermissionRequestHookInput = Extract<HookInput, { hook_event_name: "PermissionRequest" }>;
export type PermissionDeniedHookInput = Extract<HookInput, { hook_event_name: "PermissionDenied" }>;
export type PostToolBatchHookInput = Extract<HookInput, { hook_event_name: "PostToolBatch" }>;
export type UserPromptExpansionHookInput = Extract<HookInput, { hook_event_name: "UserPromptExpansion" }>;
export type StopFailureHookInput = Extract<HookInput, { hook_event_name: "StopFailure" }>;
export type PreModelSwitchHookInput = Extract<HookInput, { hook_event_name: "PreModelSwitch" }>;
export type PostModelSwitchHookInput = Extract<HookInput, { hook_event_name: "PostModelSwitch" }>;
export type SetupHookInput = Extract<HookInput, { hook_event_name: "Setup" }>;
export type TeammateIdleHookInput = Extract<HookInput, { hook_event_name: "TeammateIdle" }>;
export type TaskCreatedHookInput = Extract<HookInput, { hook_event_name: "TaskCreated" }>;
export type TaskCompletedHookInput = Extract<HookInput, { hook_event_name: "TaskCompleted" }>;
export type ElicitationHookInput = Extract<HookInput, { hook_event_name: "Elicitation" }>;
export type ElicitationResultHookInput = Extract<HookInput, { hook_event_name: "ElicitationResult" }>;
export type ConfigChangeHookInput = Extract<HookInput, { hook_event_name: "ConfigChange" }>;
export type WorktreeCreateHookInput = Extract<HookInput, { hook_event_name: "WorktreeCreate" }>;
export type WorktreeRemoveHookInput = Extract<HookInput, { hook_event_name: "WorktreeRemove" }>;
export type InstructionsLoadedHookInput = Extract<HookInput, { hook_event_name: "InstructionsLoaded" }>;
export type CwdChangedHookInput = Extract<HookInput, { hook_event_name: "CwdChanged" }>;
export type FileChangedHookInput = Extract<HookInput, { hook_event_name: "FileChanged" }>;
export type DirectoryAddedHookInput = Extract<HookInput, { hook_event_name: "DirectoryAdded" }>;
export type MessageDisplayHookInput = Extract<HookInput, { hook_event_name: "MessageDisplay" }>;
export type PreSkillShellCommandHookInput = Extract<HookInput, { hook_event_name: "PreSkillShellCommand" }>;

export type HookPermissionDecision = "allow" | "deny" | "ask" | "defer";

/** What a hook may return (the convention's `SyncHookJSONOutput`; `{ async: true }` is not waited for). */
export type HookJSONOutput =
  | { async: true; asyncTimeout?: number }
  | {
      continue?: boolean;
      suppressOutput?: boolean;
      stopReason?: string;
      decision?: "approve" | "block";
      systemMessage?: string;
      reason?: string;
      hookSpecificOutput?: {
        hookEventName: string;
        permissionDecision?: HookPermissionDecision;
        permissionDecisionReason?: string;
        updatedInput?: Record<string, unknown>;
        additionalContext?: string;
        decision?:
          | { behavior: "allow"; updatedInput?: Record<string, unknown> }
          | { behavior: "deny"; message?: string; interrupt?: boolean };
        retry?: boolean;
        [field: string]: unknown;
      };
    };

/** One hook that ran: what the SDK's `hook_started`/`hook_response` and the transcript report. */
export type HookRunRecord = {
  hookId: string;
  /** Names the hook and where it came from: `command ./check.sh (/ws/.claude/settings.json)`. */
  hookName: string;
  event: FiredHookEvent;
  outcome: "success" | "error" | "cancelled";
  /** The output as parsed (JSON), or `""`. */
  output: string;
  stdout: string;
  stderr: string;
  exitCode?: number;
  /** What it decided, when anything: `deny`, `allow`, `ask`, `block`, `stop`. */
  decision?: string;
  reason?: string;
  /** Why it failed (timeout, crash, invalid JSON) and how that was treated. */
  error?: string;
  systemMessage?: string;
};

/** The verdict of every hook of one event, combined (docs/hooks.md, "Decisions"). */
export type HookVerdict = {
  /** PreToolUse: deny beats ask beats allow; `hook` names the deciding hook. */
  permission?: { decision: "allow" | "deny" | "ask"; reason: string; hook: string };
  /** PreToolUse: the input to use instead (validated again, then checked by the gate). */
  updatedInput?: Record<string, unknown>;
  /** `decision: "block"` or exit code 2: prompt refused, stop refused, tool output flagged. */
  block?: { reason: string; hook: string };
  /** Text for the model, in hook order. */
  additionalContext: string[];
  /** `continue: false`: the run ends after this point. */
  stop?: { reason: string; hook: string };
  /** PermissionRequest: the answer instead of asking. */
  permissionRequest?:
    | { behavior: "allow"; updatedInput?: Record<string, unknown>; hook: string }
    | { behavior: "deny"; message: string; interrupt?: boolean; hook: string };
  /** PermissionDenied: the model may retry the call. */
  retry?: boolean;
  records: HookRunRecord[];
};

export type HookRunOptions = {
  signal: AbortSignal;
  /** The tool of a tool event, for matchers (by name, or by what it declares for Cursor's events). */
  tool?: ToolDeclaration;
};

export interface HookDispatcher {
  /** Whether any hook is registered for `event` (so no input is built for nothing). */
  has(event: FiredHookEvent): boolean;
  /**
   * Runs the matching hooks of the event in registration order and combines their outputs. Never
   * throws: a hook that fails is recorded and treated per docs/hooks.md ("Failure handling").
   */
  run(fields: HookEventFields, options: HookRunOptions): Promise<HookVerdict>;
}

export function emptyVerdict(): HookVerdict {
  return { additionalContext: [], records: [] };
}

/** A rule suggestion in the convention's update shape (`PermissionUpdate`). */
export type SuggestedUpdate = {
  type: "addRules";
  rules: { toolName: string; ruleContent?: string }[];
  behavior: "allow";
  destination: "session";
};

/** The gate's suggested rules (`"Bash(curl:*)"`) as the convention's `PermissionUpdate`s. */
export function suggestionUpdates(suggestions: readonly string[] | undefined): SuggestedUpdate[] {
  if (!suggestions || suggestions.length === 0) return [];
  return [
    {
      type: "addRules",
      rules: suggestions.map((text) => {
        const open = text.indexOf("(");
        return open === -1 || !text.endsWith(")")
          ? { toolName: text }
          : { toolName: text.slice(0, open), ruleContent: text.slice(open + 1, -1) };
      }),
      behavior: "allow",
      destination: "session",
    },
  ];
}

/** The one line that reports a failed hook and how it was treated (stderr, SDK informational). */
export function hookFailureText(record: HookRunRecord): string {
  const treated = record.decision ? `treated as ${record.decision}` : "ignored";
  return `${record.event} hook ${record.hookName} failed: ${record.error} (${treated})`;
}
