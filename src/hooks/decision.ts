import type { FiredHookEvent, HookRunRecord } from "../engine/hooks.js";
import { isRecord } from "./matching.js";
import type { OutputDialect, RawHookResult } from "./types.js";

/** What one hook decided, read from its output (docs/hooks.md, "Decisions"). */
export type HookDecision = {
  permission?: { decision: "allow" | "deny" | "ask"; reason: string };
  updatedInput?: Record<string, unknown>;
  block?: string;
  additionalContext?: string;
  stop?: string;
  permissionRequest?:
    | { behavior: "allow"; updatedInput?: Record<string, unknown> }
    | { behavior: "deny"; message: string; interrupt?: boolean };
  retry?: boolean;
  systemMessage?: string;
  suppressOutput?: boolean;
};

/**
 * Events where a failed hook counts as a refusal: a PreToolUse hook was meant to judge the call, so
 * its failure never lets the call through; a PermissionRequest hook's failure leaves the question
 * unanswered (denied where nobody can be asked). Everywhere else a failure is reported and ignored.
 */
const FAIL_CLOSED: ReadonlySet<FiredHookEvent> = new Set(["PreToolUse"]);

/** Reads one hook's result as its decision; `failClosed` handlers and events refuse on failure. */
export function decide(
  event: FiredHookEvent,
  result: RawHookResult,
  dialect: OutputDialect,
  failClosed: boolean,
): HookDecision {
  switch (result.kind) {
    case "answered":
      return dialect === "cursor"
        ? cursorDecision(event, result.output)
        : conventionDecision(event, result.output, result.stdout);
    case "blocked":
      return refusal(event, result.reason);
    case "failed":
      return failClosed || FAIL_CLOSED.has(event) ? refusal(event, `the hook failed: ${result.error}`) : {};
    case "cancelled":
      return {};
  }
}

/** A block, in the shape the event understands (a deny for tool calls and permission requests). */
function refusal(event: FiredHookEvent, reason: string): HookDecision {
  if (event === "PreToolUse") return { permission: { decision: "deny", reason } };
  if (event === "PermissionRequest") return { permissionRequest: { behavior: "deny", message: reason } };
  return { block: reason };
}

/** The convention's `HookJSONOutput` (SDK callbacks, Claude-format command hooks). */
function conventionDecision(event: FiredHookEvent, output: unknown, stdout: string): HookDecision {
  if (!isRecord(output)) {
    // Plain text on stdout: context for the model where the convention says so.
    const text = stdout.trim();
    return text && (event === "UserPromptSubmit" || event === "SessionStart")
      ? { additionalContext: text }
      : {};
  }
  if (output.async === true) return {};
  const out: HookDecision = {};
  const specific = isRecord(output.hookSpecificOutput) ? output.hookSpecificOutput : {};
  const reason = str(output.reason);
  if (output.continue === false) out.stop = str(output.stopReason) ?? "";
  if (typeof output.systemMessage === "string") out.systemMessage = output.systemMessage;
  if (output.suppressOutput === true) out.suppressOutput = true;
  if (typeof specific.additionalContext === "string") out.additionalContext = specific.additionalContext;
  if (event === "PreToolUse") {
    const given = specific.permissionDecision;
    // `decision: approve/block` is the convention's older spelling of allow/deny.
    const decision =
      given === "allow" || given === "deny" || given === "ask"
        ? given
        : output.decision === "block"
          ? "deny"
          : output.decision === "approve"
            ? "allow"
            : undefined;
    if (decision)
      out.permission = { decision, reason: str(specific.permissionDecisionReason) ?? reason ?? "" };
    if (isRecord(specific.updatedInput)) out.updatedInput = specific.updatedInput;
    return out;
  }
  if (event === "PermissionRequest" && isRecord(specific.decision)) {
    const answer = specific.decision;
    if (answer.behavior === "allow") {
      out.permissionRequest = {
        behavior: "allow",
        ...(isRecord(answer.updatedInput) ? { updatedInput: answer.updatedInput } : {}),
      };
    } else if (answer.behavior === "deny") {
      out.permissionRequest = {
        behavior: "deny",
        message: str(answer.message) ?? "",
        ...(answer.interrupt === true ? { interrupt: true } : {}),
      };
    }
    return out;
  }
  if (event === "PermissionDenied" && specific.retry === true) out.retry = true;
  if (output.decision === "block") out.block = reason ?? "";
  return out;
}

/**
 * Cursor's hook output: `permission` (allow/deny/ask), `user_message` (shown to the user),
 * `agent_message` (told to the model), `continue: false` (a refused prompt), `followup_message`
 * (a stop hook's next turn). Claude-style keys in the same object are read too.
 */
function cursorDecision(event: FiredHookEvent, output: unknown): HookDecision {
  if (!isRecord(output)) return {};
  const out = conventionDecision(event, output, "");
  const userMessage = str(output.user_message) ?? str(output.userMessage);
  const agentMessage = str(output.agent_message) ?? str(output.agentMessage);
  if (userMessage) out.systemMessage = userMessage;
  const permission = output.permission;
  if (event === "PreToolUse" && (permission === "allow" || permission === "deny" || permission === "ask"))
    out.permission = { decision: permission, reason: agentMessage ?? userMessage ?? "" };
  if (event === "UserPromptSubmit" && output.continue === false) {
    delete out.stop;
    out.block = userMessage ?? agentMessage ?? "";
  }
  if (event === "Stop" && str(output.followup_message)) out.block = str(output.followup_message);
  if (agentMessage && (event === "PostToolUse" || event === "SessionStart"))
    out.additionalContext = agentMessage;
  return out;
}

function str(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** The record of one hook run, for the event stream (SDK hook messages, transcript, stderr). */
export function recordOf(
  base: Pick<HookRunRecord, "hookId" | "hookName" | "event">,
  result: RawHookResult,
  decision: HookDecision,
): HookRunRecord {
  const kind =
    result.kind === "answered" || result.kind === "blocked"
      ? "success"
      : result.kind === "failed"
        ? "error"
        : "cancelled";
  const verdict = decisionWord(decision);
  const reason =
    decision.permission?.reason ??
    decision.block ??
    decision.stop ??
    (decision.permissionRequest?.behavior === "deny" ? decision.permissionRequest.message : undefined);
  const quiet = decision.suppressOutput === true;
  return {
    ...base,
    outcome: kind,
    output: result.kind === "answered" && result.output !== undefined ? JSON.stringify(result.output) : "",
    stdout: quiet ? "" : result.stdout,
    stderr: quiet ? "" : result.stderr,
    ...("exitCode" in result && result.exitCode !== undefined ? { exitCode: result.exitCode } : {}),
    ...(verdict ? { decision: verdict } : {}),
    ...(reason ? { reason } : {}),
    ...(result.kind === "failed" ? { error: result.error } : {}),
    ...(decision.systemMessage ? { systemMessage: decision.systemMessage } : {}),
  };
}

function decisionWord(decision: HookDecision): string | undefined {
  if (decision.stop !== undefined) return "stop";
  if (decision.permission) return decision.permission.decision;
  if (decision.permissionRequest) return decision.permissionRequest.behavior;
  if (decision.block !== undefined) return "block";
  return undefined;
}
