import type { FiredHookEvent, HookInput, HookRunOptions } from "../engine/hooks.js";

/** Where a hook comes from; `project` hooks run only in a trusted workspace (docs/hooks.md, "Trust"). */
export type HookOrigin = "sdk" | "user" | "project";

/** What one hook produced, before it is read as a decision. */
export type RawHookResult =
  /** It ran and answered: a callback's return value, or a command's stdout at exit 0. */
  | { kind: "answered"; output: unknown; stdout: string; stderr: string; exitCode?: number }
  /** A command exited with 2: the event is blocked (denied), stderr is the reason. */
  | { kind: "blocked"; reason: string; stdout: string; stderr: string; exitCode: number }
  /** It timed out, crashed, threw, exited with another code or printed broken JSON. */
  | { kind: "failed"; error: string; stdout: string; stderr: string; exitCode?: number }
  /** The run was aborted while it ran. */
  | { kind: "cancelled"; stdout: string; stderr: string };

/** The output dialect of a hook: the convention's (SDK callbacks, Claude settings) or Cursor's. */
export type OutputDialect = "convention" | "cursor";

/** One registered hook, whatever its source. */
export type HookHandler = {
  /** Names it in messages: `command ./check.sh (/ws/.claude/settings.json)`, `SDK PreToolUse[0].hooks[1]`. */
  name: string;
  event: FiredHookEvent;
  origin: HookOrigin;
  dialect: OutputDialect;
  /** Whether it applies to this occurrence of its event (matchers). */
  matches(input: HookInput, options: HookRunOptions): boolean;
  timeoutMs: number;
  /** A failure counts as a block/deny (SDK `onFailure: "block"`), whatever the event's own policy. */
  failClosed: boolean;
  /** Runs it; never throws. `signal` ends with the run or the timeout. */
  invoke(input: HookInput, toolUseId: string | undefined, signal: AbortSignal): Promise<RawHookResult>;
};

/** The reference's default: a hook gets 60 seconds. */
export const DEFAULT_HOOK_TIMEOUT_MS = 60_000;
