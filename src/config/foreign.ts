import { existsSync } from "node:fs";
import path from "node:path";
import * as z from "zod";
import type { PermissionRule, RuleBehavior } from "../permissions/types.js";
import { once } from "../util/once.js";
import { type JsonObject, keysOf, parseWith, readJsonObject } from "./files.js";
import { type ConfiguredHooks, claudeHooksSchema } from "./hooks.js";
import { rulesOf } from "./rules-of.js";
import { dirsFromRepositoryRoot, type SettingSource } from "./setting-sources.js";

/**
 * The permission rules of the other agents' config files, which a user migrating to cairn already has.
 * The same rule syntax and the same principle as cairn's own files apply: a user-level file may allow,
 * deny and ask; a project-level file (it comes with the repository) may only deny and ask. Every other
 * key that would change behaviour is reported once as not applied; keys that only shape an interactive
 * interface are listed in docs/config.md as read and deliberately not applied.
 */

export type ForeignFile = {
  file: string;
  /** Who wrote it: `user` files may allow, `project` files may only restrict. */
  level: "user" | "project";
  agent: "claude" | "cursor";
  /** The `settingSources` entry that loads it. */
  source: SettingSource;
};

const foreignSchema = once(() =>
  z.looseObject({
    permissions: z
      .looseObject(
        {
          allow: z.array(z.string(), { error: "must be an array of strings" }).optional(),
          deny: z.array(z.string(), { error: "must be an array of strings" }).optional(),
          ask: z.array(z.string(), { error: "must be an array of strings" }).optional(),
        },
        { error: "must be an object" },
      )
      .optional(),
    hooks: claudeHooksSchema().optional(),
  }),
);

/** Interface-only keys of Cursor's CLI config: nothing in them applies to a headless run. */
const CURSOR_INTERFACE_KEYS = new Set([
  "version",
  "editor",
  "display",
  "statusLine",
  "notifications",
  "channel",
  "hasChangedDefaultModel",
  "maxMode",
  "privacyCache",
]);

/** Where the other agents keep their files, for this workspace and user (docs/config.md). */
export function foreignFiles(cwd: string, home: string, env: NodeJS.ProcessEnv): ForeignFile[] {
  const claudeHome = env.CLAUDE_CONFIG_DIR?.trim() || path.join(home, ".claude");
  const files: ForeignFile[] = [
    { file: path.join(claudeHome, "settings.json"), level: "user", agent: "claude", source: "user" },
    {
      file: path.join(cwd, ".claude", "settings.json"),
      level: "project",
      agent: "claude",
      source: "project",
    },
    // The user's own file in the workspace, but like the project's it may only restrict.
    {
      file: path.join(cwd, ".claude", "settings.local.json"),
      level: "project",
      agent: "claude",
      source: "local",
    },
    { file: cursorUserFile(home, env), level: "user", agent: "cursor", source: "user" },
  ];
  // Cursor merges every `.cursor/cli.json` from the repository's root down to the working directory.
  for (const dir of dirsFromRepositoryRoot(cwd))
    files.push({
      file: path.join(dir, ".cursor", "cli.json"),
      level: "project",
      agent: "cursor",
      source: "project",
    });
  return files;
}

function cursorUserFile(home: string, env: NodeJS.ProcessEnv): string {
  const configured = env.CURSOR_CONFIG_DIR?.trim();
  if (configured) return path.join(configured, "cli-config.json");
  const inHome = path.join(home, ".cursor", "cli-config.json");
  const xdg = env.XDG_CONFIG_HOME?.trim();
  if (xdg && !existsSync(inHome)) return path.join(xdg, "cursor", "cli-config.json");
  return inHome;
}

export type ForeignRules = {
  rules: PermissionRule[];
  /** Claude's `hooks`, per file (Cursor keeps its hooks in hooks.json: see hooks.ts). */
  hooks: ConfiguredHooks[];
  warnings: string[];
  found: string[];
};

export async function loadForeignRules(files: readonly ForeignFile[]): Promise<ForeignRules> {
  const contents = await Promise.all(files.map((entry) => readJsonObject(entry.file)));
  const out: ForeignRules = { rules: [], hooks: [], warnings: [], found: [] };
  files.forEach((entry, index) => {
    const content = contents[index];
    if (content === undefined) return;
    out.found.push(entry.file);
    const parsed = parseWith(entry.file, foreignSchema(), content);
    const behaviors: RuleBehavior[] = entry.level === "user" ? ["deny", "ask", "allow"] : ["deny", "ask"];
    const source = `${entry.level} ${entry.agent === "claude" ? "Claude" : "Cursor"} settings ${entry.file}`;
    out.rules.push(...rulesOf(entry.file, source, parsed.permissions, behaviors));
    if (entry.agent === "claude" && parsed.hooks)
      out.hooks.push({ file: entry.file, level: entry.level, format: "claude", hooks: parsed.hooks });
    const warning = notApplied(entry, content, behaviors);
    if (warning) out.warnings.push(warning);
  });
  return out;
}

/** One line naming every key of the file that cairn does not apply, or undefined. */
function notApplied(
  entry: ForeignFile,
  content: JsonObject,
  applied: readonly RuleBehavior[],
): string | undefined {
  const appliedKeys = new Set(applied.map((behavior) => `permissions.${behavior}`));
  const skipped = keysOf(content).filter((key) => {
    if (appliedKeys.has(key)) return false;
    // Claude's hooks are applied (docs/hooks.md), a project's once the workspace is trusted.
    if (entry.agent === "claude" && key === "hooks") return false;
    return !(entry.agent === "cursor" && CURSOR_INTERFACE_KEYS.has(key.split(".")[0]!));
  });
  if (skipped.length === 0) return undefined;
  const why =
    entry.level === "project"
      ? "cairn applies only permissions.deny and permissions.ask from a project's files"
      : "cairn applies only permissions.allow, deny and ask from this file";
  return `${entry.file}: not applied: ${skipped.join(", ")} (${why}; see docs/config.md)`;
}
