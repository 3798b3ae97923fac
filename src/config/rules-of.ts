import { parseRule, RuleSyntaxError } from "../permissions/rules.js";
import type { PermissionRule, RuleBehavior } from "../permissions/types.js";
import { ConfigFileError } from "./files.js";

/** The rules a file's `permissions` lists hold, for the behaviors this file may set. */
export function rulesOf(
  file: string,
  source: string,
  permissions: Partial<Record<RuleBehavior, string[]>> | undefined,
  behaviors: readonly RuleBehavior[],
): PermissionRule[] {
  const rules: PermissionRule[] = [];
  for (const behavior of behaviors) {
    for (const text of permissions?.[behavior] ?? []) {
      try {
        rules.push(parseRule(text, behavior, source));
      } catch (error) {
        if (error instanceof RuleSyntaxError)
          throw new ConfigFileError(file, `permissions.${behavior}: ${error.message}`);
        throw error;
      }
    }
  }
  return rules;
}
