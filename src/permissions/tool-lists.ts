import { parseRule } from "./rules.js";
import type { PermissionRule } from "./types.js";

/**
 * Rules from flags and SDK options: `allowedTools` are allow rules; `disallowedTools` deny rules
 * (bare names there also remove the tool from the model's tool list, which the run assembly does).
 */
export function rulesFromToolLists(
  lists: {
    allowedTools?: readonly string[];
    disallowedTools?: readonly string[];
    askTools?: readonly string[];
  },
  source: string,
): PermissionRule[] {
  return [
    ...(lists.disallowedTools ?? []).map((text) => parseRule(text, "deny", `${source} disallowedTools`)),
    ...(lists.askTools ?? []).map((text) => parseRule(text, "ask", `${source} ask`)),
    ...(lists.allowedTools ?? []).map((text) => parseRule(text, "allow", `${source} allowedTools`)),
  ];
}
