import type { HookPermissionDecision } from "../engine/hooks.js";
import type { PermissionUpdate } from "./options.js";

/**
 * The convention's `hookSpecificOutput` shapes, one per hook event that has one (docs/hooks.md):
 * what a hook callback may answer besides the common fields. cairn applies the fields of the events
 * it fires (docs/hooks.md, "Events"); for the others the type is here so callbacks type-check.
 */

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

export type UserPromptExpansionHookSpecificOutput = WithContext<"UserPromptExpansion"> & {
  suppressOriginalPrompt?: boolean;
};
export type SetupHookSpecificOutput = WithContext<"Setup">;
export type PostToolBatchHookSpecificOutput = WithContext<"PostToolBatch">;
export type PreModelSwitchHookSpecificOutput = {
  hookEventName: "PreModelSwitch";
  permissionDecision?: "allow" | "deny" | "ask";
  permissionDecisionReason?: string;
};
export type PostModelSwitchHookSpecificOutput = WithContext<"PostModelSwitch">;
export type ElicitationHookSpecificOutput = {
  hookEventName: "Elicitation";
  action?: "accept" | "decline" | "cancel";
  content?: Record<string, unknown>;
};
export type ElicitationResultHookSpecificOutput = {
  hookEventName: "ElicitationResult";
  action?: "accept" | "decline" | "cancel";
  content?: Record<string, unknown>;
};
export type CwdChangedHookSpecificOutput = { hookEventName: "CwdChanged"; watchPaths?: string[] };
export type FileChangedHookSpecificOutput = { hookEventName: "FileChanged"; watchPaths?: string[] };
export type WorktreeCreateHookSpecificOutput = { hookEventName: "WorktreeCreate"; worktreePath: string };
export type MessageDisplayHookSpecificOutput = { hookEventName: "MessageDisplay"; displayContent?: string };
export type PreSkillShellCommandHookSpecificOutput = {
  hookEventName: "PreSkillShellCommand";
  permissionDecision?: HookPermissionDecision;
  permissionDecisionReason?: string;
  updatedInput?: Record<string, unknown>;
};
