import { chmod, mkdir, rename, writeFile } from "node:fs/promises";
import path from "node:path";
import { readJsonObject } from "../config/files.js";

/**
 * "Always allow" (permission-prompt.ts): the rules go into `permissions.allow` of the user config
 * (`$CAIRN_HOME/config.json`), the only file whose allow rules cairn applies (a project's files may
 * only deny and ask: docs/config.md). The file keeps every other key; a rule already there is not
 * added twice. Written whole to a sibling, then renamed over it (0600), so a reader never sees half.
 */
export async function saveAllowRules(userFile: string, rules: readonly string[]): Promise<void> {
  await updateUserConfig(userFile, (file) => {
    const permissions = { ...(file.permissions as Record<string, unknown> | undefined) };
    const allow = Array.isArray(permissions.allow) ? [...(permissions.allow as unknown[])] : [];
    for (const rule of rules) if (!allow.includes(rule)) allow.push(rule);
    permissions.allow = allow;
    return { ...file, permissions };
  });
}

/** The user config changed by `change` (every other key kept), written whole and renamed over it (0600). */
export async function updateUserConfig(
  userFile: string,
  change: (file: Record<string, unknown>) => Record<string, unknown>,
): Promise<void> {
  const file = (await readJsonObject(userFile)) ?? {};
  await mkdir(path.dirname(userFile), { recursive: true });
  const temporary = `${userFile}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(change(file), null, 2)}\n`, { mode: 0o600 });
  await chmod(temporary, 0o600);
  await rename(temporary, userFile);
}

/** A suggested update's rules as written in settings: `Bash(npm test:*)`, `WebFetch`. */
export function ruleTexts(
  updates: readonly { rules: { toolName: string; ruleContent?: string }[] }[],
): string[] {
  return updates.flatMap((update) =>
    update.rules.map((rule) => (rule.ruleContent ? `${rule.toolName}(${rule.ruleContent})` : rule.toolName)),
  );
}
