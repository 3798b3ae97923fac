import type { HookInput } from "../engine/hooks.js";

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Thrown for a matcher that is not a valid regular expression (a config error / InvalidOptionsError). */
export class HookMatcherError extends Error {
  override name = "HookMatcherError";
}

/**
 * What a matcher is tested against, per event: the tool name for tool events, the source for
 * SessionStart, the reason for SessionEnd, the notification type, the compaction trigger, the agent
 * type for subagents. Events without a target (UserPromptSubmit, Stop) ignore matchers.
 */
export function matchTarget(input: HookInput): string | undefined {
  switch (input.hook_event_name) {
    case "PreToolUse":
    case "PostToolUse":
    case "PostToolUseFailure":
    case "PermissionRequest":
    case "PermissionDenied":
      return input.tool_name;
    case "SessionStart":
      return input.source;
    case "SessionEnd":
      return input.reason;
    case "Notification":
      return input.notification_type;
    case "PreCompact":
    case "PostCompact":
      return input.trigger;
    case "SubagentStart":
    case "SubagentStop":
      return input.agent_type;
    default:
      return undefined;
  }
}

/**
 * A matcher as the convention reads it: omitted, `""` or `"*"` match everything; anything else is a
 * regular expression the whole target must match (`"Write|Edit"`, `"mcp__github__.*"`).
 */
export function compileMatcher(matcher: string | undefined, where: string): (input: HookInput) => boolean {
  if (matcher === undefined || matcher === "" || matcher === "*") return () => true;
  let pattern: RegExp;
  try {
    pattern = new RegExp(`^(?:${matcher})$`);
  } catch (error) {
    throw new HookMatcherError(
      `${where}: matcher ${JSON.stringify(matcher)} is not a valid regular expression (${(error as Error).message})`,
    );
  }
  return (input) => {
    const target = matchTarget(input);
    return target === undefined || pattern.test(target);
  };
}
