import type { EngineEvent, HookResultEvent, RunEndEvent } from "../engine/events.js";
import type { SuggestedUpdate } from "../engine/hooks.js";
import type { SessionPermissionMode } from "../permissions/types.js";
import type { ToolDisplay } from "../tools/types.js";

/**
 * What a session tells its door, in order: every event of the engine's runs (`EngineEvent`), plus
 * what belongs to the session rather than to one model call — notices, permission questions, mode
 * changes. A door projects these (SDK messages, ACP updates, print formats); none of them re-derives
 * session state from another door's output.
 */
export type SessionEvent = Exclude<EngineEvent, RunEndEvent> | SessionOwnEvent;

export type SessionOwnEvent = SessionNoticeEvent | PermissionRequestEvent | PermissionModeChangedEvent;

/**
 * Something the user should know that is not part of the answer: a config warning, a session that
 * could not be read whole, an MCP server that failed, a sandbox that is not there. Sent right after
 * the first `run_start` it can follow (so a door that announces the run first still shows it).
 */
export type SessionNoticeEvent = {
  type: "session_notice";
  tag: NoticeTag;
  content: string;
};

export type NoticeTag = "config" | "session" | "mcp" | "sandbox";

/**
 * A tool call the rules and the mode leave open: somebody must decide. Answered with
 * `Session.answer(request.id, …)`; the turn's abort ends it as a denial. Nothing about it lives in a
 * closure: a door (or a worker that persisted it) answers by id.
 */
export type PermissionRequestEvent = { type: "permission_request"; request: PermissionRequest };

export type PermissionRequest = {
  /** The request's id: what `answer()` names. */
  id: string;
  toolName: string;
  input: Record<string, unknown>;
  toolUseId: string;
  /** Why approval is needed, naming the rule or mode. */
  reason: string;
  /** The path the question is about, when there is one. */
  blockedPath?: string;
  /** Rules that would allow such calls from now on (the convention's `PermissionUpdate`s). */
  suggestions: SuggestedUpdate[];
  /** The subagent making the call; absent on the main thread. */
  agentId?: string;
  /** How to show the call (title, kind, files, the diff it would make). */
  display: ToolDisplay;
};

/**
 * The answer to a permission request, in the convention's `PermissionResult` shape: allow (maybe
 * with a rewritten input, and rules or a mode for the rest of the session), or deny with what the
 * model is told (`interrupt` also ends the turn).
 */
export type PermissionAnswer =
  | {
      behavior: "allow";
      updatedInput?: Record<string, unknown>;
      updatedPermissions?: readonly unknown[];
    }
  | { behavior: "deny"; message: string; interrupt?: boolean };

/** The permission mode changed while a turn ran (`setMode()`, or an answer's `setMode` update). */
export type PermissionModeChangedEvent = { type: "permission_mode_changed"; mode: SessionPermissionMode };

/** SessionEnd's hook records, as `Session.end()` yields them. */
export type SessionEndEvent = HookResultEvent;
