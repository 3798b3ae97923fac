import { readFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { resolveCairnHome } from "./home.js";
import { parseRule, RuleSyntaxError } from "./rules.js";
import { isPermissionMode, type PermissionMode, type PermissionRule, type RuleBehavior } from "./types.js";

/**
 * cairn's config files.
 *
 * - User level: `$CAIRN_HOME/config.json` (default `~/.cairn/config.json`). May set anything:
 *   `permissions.allow|deny|ask` (rules in either spelling), `permissions.defaultMode`,
 *   `permissions.additionalDirectories`, and the settings other parts of cairn read (model, provider
 *   URL and key, ...), returned as `settings`.
 * - Project level: `<workspace>/.cairn/config.json`. It comes with the repository, so whoever wrote
 *   the repository wrote it: it may only restrict. Only `permissions.deny` and `permissions.ask` are
 *   honoured; `permissions.allow`, `defaultMode` (bypass included), `additionalDirectories` and every
 *   other key (provider URLs, keys, models) are ignored with a warning.
 *
 * A malformed file or rule is an error naming the file: silently dropping a deny rule is not an option.
 *
 * ```json
 * {
 *   "permissions": {
 *     "allow": ["Bash(npm run test:*)", "Shell(git)", "Read(~/notes/**)"],
 *     "deny": ["Bash(rm:*)", "Read(.env*)", "Write(**\/*.key)"],
 *     "ask": ["Bash(git push:*)"],
 *     "defaultMode": "acceptEdits",
 *     "additionalDirectories": ["~/shared-fixtures"]
 *   }
 * }
 * ```
 */

export { resolveCairnHome };

export const CONFIG_FILE_NAME = "config.json";
export const PROJECT_CONFIG_DIR = ".cairn";

export class ConfigFileError extends Error {
  constructor(
    readonly file: string,
    reason: string,
  ) {
    super(`${file}: ${reason}`);
    this.name = "ConfigFileError";
  }
}

export type LoadedConfig = {
  /** User rules first, then project rules; each names its file as `source`. */
  rules: PermissionRule[];
  /** From the user file only. */
  defaultMode?: PermissionMode;
  /** From the user file only, absolute. */
  additionalDirectories: string[];
  /** Every other top-level key of the user file (model, provider settings, ...). */
  settings: Record<string, unknown>;
  /** What was ignored and why (project keys that would widen permissions, unknown keys). */
  warnings: string[];
  files: { user: string; project: string; userFound: boolean; projectFound: boolean };
};

export type LoadConfigOptions = {
  /** The workspace (project config is `<cwd>/.cairn/config.json`). */
  cwd: string;
  /** Default: `resolveCairnHome(env)`. */
  cairnHome?: string;
  env?: NodeJS.ProcessEnv;
  home?: string;
};

export async function loadConfig(options: LoadConfigOptions): Promise<LoadedConfig> {
  const home = options.home ?? os.homedir();
  const cairnHome = options.cairnHome ?? resolveCairnHome(options.env ?? process.env, home);
  const userFile = path.join(cairnHome, CONFIG_FILE_NAME);
  const projectFile = path.join(path.resolve(options.cwd), PROJECT_CONFIG_DIR, CONFIG_FILE_NAME);
  const [user, project] = await Promise.all([readJsonObject(userFile), readJsonObject(projectFile)]);
  const loaded: LoadedConfig = {
    rules: [],
    additionalDirectories: [],
    settings: {},
    warnings: [],
    files: {
      user: userFile,
      project: projectFile,
      userFound: user !== undefined,
      projectFound: project !== undefined,
    },
  };
  if (user) applyUser(user, userFile, home, loaded);
  if (project) applyProject(project, projectFile, loaded);
  return loaded;
}

async function readJsonObject(file: string): Promise<Record<string, unknown> | undefined> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw new ConfigFileError(file, `cannot be read (${(error as Error).message})`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ConfigFileError(file, `is not valid JSON (${(error as Error).message})`);
  }
  if (!isObject(value)) throw new ConfigFileError(file, "must contain a JSON object");
  return value;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function stringList(file: string, field: string, value: unknown): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.some((item) => typeof item !== "string"))
    throw new ConfigFileError(file, `${field} must be an array of strings`);
  return value as string[];
}

function rulesOf(
  file: string,
  source: string,
  permissions: Record<string, unknown>,
  behaviors: RuleBehavior[],
): PermissionRule[] {
  const rules: PermissionRule[] = [];
  for (const behavior of behaviors) {
    for (const text of stringList(file, `permissions.${behavior}`, permissions[behavior])) {
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

function permissionsOf(file: string, config: Record<string, unknown>): Record<string, unknown> {
  const permissions = config.permissions ?? {};
  if (!isObject(permissions)) throw new ConfigFileError(file, "permissions must be an object");
  return permissions;
}

const PERMISSION_KEYS = new Set(["allow", "deny", "ask", "defaultMode", "additionalDirectories"]);

function applyUser(config: Record<string, unknown>, file: string, home: string, loaded: LoadedConfig): void {
  const permissions = permissionsOf(file, config);
  loaded.rules.push(...rulesOf(file, `user config ${file}`, permissions, ["deny", "ask", "allow"]));
  const mode = permissions.defaultMode;
  if (mode !== undefined) {
    if (!isPermissionMode(mode))
      throw new ConfigFileError(
        file,
        `permissions.defaultMode must be one of default, acceptEdits, plan, bypassPermissions`,
      );
    loaded.defaultMode = mode;
  }
  loaded.additionalDirectories = stringList(
    file,
    "permissions.additionalDirectories",
    permissions.additionalDirectories,
  ).map((dir) =>
    path.resolve(
      path.dirname(file),
      dir === "~" ? home : dir.startsWith("~/") ? path.join(home, dir.slice(2)) : dir,
    ),
  );
  for (const key of Object.keys(permissions))
    if (!PERMISSION_KEYS.has(key)) loaded.warnings.push(`${file}: unknown key permissions.${key} ignored`);
  for (const [key, value] of Object.entries(config)) if (key !== "permissions") loaded.settings[key] = value;
}

function applyProject(config: Record<string, unknown>, file: string, loaded: LoadedConfig): void {
  const permissions = permissionsOf(file, config);
  loaded.rules.push(...rulesOf(file, `project config ${file}`, permissions, ["deny", "ask"]));
  const ignored = (what: string) =>
    loaded.warnings.push(
      `${file}: ${what} ignored (a project config may only restrict: permissions.deny and permissions.ask)`,
    );
  if (permissions.allow !== undefined) ignored("permissions.allow");
  if (permissions.defaultMode !== undefined) ignored("permissions.defaultMode");
  if (permissions.additionalDirectories !== undefined) ignored("permissions.additionalDirectories");
  for (const key of Object.keys(permissions)) if (!PERMISSION_KEYS.has(key)) ignored(`permissions.${key}`);
  for (const key of Object.keys(config)) if (key !== "permissions") ignored(key);
}

/**
 * Rules from flags and SDK options: `allowedTools` are allow rules; `disallowedTools` deny rules
 * (bare names there also remove the tool from the model's tool list, which the engine does).
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
