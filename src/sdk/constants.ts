import { builtinTools } from "../tools/index.js";

/**
 * Constants of the public agent-SDK convention, with cairn's values where they differ (the convention's
 * own values are in docs/sdk.md, "Exports").
 */

/** Why a session ended (`SessionEnd` hooks' `reason`). cairn's SDK always reports `"other"`. */
export const EXIT_REASONS = ["clear", "resume", "logout", "prompt_input_exit", "other"] as const;
export type ExitReason = (typeof EXIT_REASONS)[number];

/**
 * The names of cairn's built-in tools, in the order they are offered to the model. As in the
 * convention the list is informational: `system`/`init.tools` says what a session really has (MCP
 * tools, `tools` / `disallowedTools`).
 */
export const BUILTIN_TOOL_NAMES: readonly string[] = Object.freeze(builtinTools().map((tool) => tool.name));

/** Old tool names of the convention and the names they became (as the reference defines them). */
export const LEGACY_TOOL_NAME_ALIASES: Readonly<Record<string, string>> = Object.freeze({
  Task: "Agent",
  KillShell: "TaskStop",
  KillBash: "TaskStop",
  ListPeers: "ListAgents",
  Brief: "SendUserMessage",
  ListMcpResources: "ListMcpResourcesTool",
  ReadMcpResource: "ReadMcpResourceTool",
  ReadMcpResourceDir: "ReadMcpResourceDirTool",
  ProposeGoal: "SetGoal",
});

/**
 * In a `systemPrompt` array: separates the cacheable prefix from the dynamic rest. cairn joins the
 * parts without it (its provider code places the cache breakpoints itself).
 */
export const SYSTEM_PROMPT_DYNAMIC_BOUNDARY = "__SYSTEM_PROMPT_DYNAMIC_BOUNDARY__";

/**
 * How the reference's usage-limit messages start, for programs that classify its errors. cairn's own
 * errors never start with these (a provider's 429 is `result.errors` text and `assistant.error:
 * "rate_limit"`).
 */
export const USAGE_LIMIT_ERROR_PREFIXES: readonly string[] = Object.freeze([
  "You've hit your",
  "You've reached your",
  "You're out of usage credits",
]);
export const USAGE_TRANSITION_PREFIXES: readonly string[] = Object.freeze([]);
export const USAGE_WARNING_PREFIXES: readonly string[] = Object.freeze(["You've used", "You're close to"]);
export const ORG_POLICY_LIMIT_PREFIXES: readonly string[] = Object.freeze([
  "This service is disabled for your org",
]);

/**
 * What the convention's SDK throws when a query is aborted. cairn ends an aborted turn with an error
 * `result` instead (docs/sdk.md, "Cancelling") and the iteration finishes normally, so `catch`
 * blocks that test `error instanceof AbortError` simply never run; the class is exported so such
 * programs load and type-check.
 */
export class AbortError extends Error {
  override name = "AbortError";
}
