import { readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ConfigFileError, isObject, type JsonObject, parseWith } from "../config/files.js";
import { type ConfiguredHooks, claudeHooksSchema } from "../config/hooks.js";
import { rulesOf } from "../config/rules-of.js";
import type { PermissionRule } from "../permissions/types.js";

/**
 * The `settings` option: the flag tier of the convention's settings (a settings object, its JSON
 * text, or the path of a settings file), above the files `settingSources` loads and below the
 * query's own options, which win where both set something. What cairn applies from it:
 *
 * - `permissions.allow` / `deny` / `ask` (rules), `defaultMode`, `additionalDirectories`,
 *   `disableBypassPermissionsMode: "disable"`;
 * - `sandbox`, with the `sandbox` option merged over it (as the reference merges them);
 * - `hooks` (command hooks, in the settings files' format; the program gave them, so they run as a
 *   user's own hooks do), `model`, `fallbackModel`, `env` (added to the query's environment).
 *
 * Every other key is named in one warning; a key cairn reads but cannot take (a malformed rule, a
 * mode that does not exist) is an error.
 */
export type FlagSettings = {
  /** Where the settings came from, for messages and rule sources. */
  source: string;
  rules: PermissionRule[];
  hooks?: ConfiguredHooks;
  defaultMode?: unknown;
  additionalDirectories: string[];
  bypassDisabled: boolean;
  sandbox?: Record<string, unknown>;
  model?: string;
  fallbackModel?: string;
  env?: Record<string, string>;
  /** Keys not applied, for one warning. */
  ignored: string[];
};

const APPLIED_PERMISSIONS = new Set([
  "allow",
  "deny",
  "ask",
  "defaultMode",
  "additionalDirectories",
  "disableBypassPermissionsMode",
]);
const APPLIED = new Set(["$schema", "permissions", "sandbox", "hooks", "model", "fallbackModel", "env"]);

/** Why a settings option cannot be used: the option's path (`settings.permissions.deny`) and the reason. */
export class SettingsOptionError extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(message);
    this.name = "SettingsOptionError";
  }
}

/** Reads and checks the option. Throws `SettingsOptionError`. */
export function readSettingsOption(value: string | Record<string, unknown>, cwd: string): FlagSettings {
  const { content, source, dir } = settingsContent(value, cwd);
  const flag: FlagSettings = {
    source,
    rules: [],
    additionalDirectories: [],
    bypassDisabled: false,
    ignored: [],
  };
  const fail = (key: string, problem: string): never => {
    throw new SettingsOptionError(`settings.${key}`, `${key} ${problem}`);
  };
  const permissions = content.permissions;
  if (permissions !== undefined) {
    if (!isObject(permissions)) fail("permissions", "must be an object");
    const given = permissions as JsonObject;
    for (const behavior of ["allow", "deny", "ask"] as const) {
      const list = given[behavior];
      if (list !== undefined && !(Array.isArray(list) && list.every((rule) => typeof rule === "string")))
        fail(`permissions.${behavior}`, "must be an array of rule strings");
    }
    try {
      flag.rules = rulesOf(source, source, given as Record<string, string[]>, ["deny", "ask", "allow"]);
    } catch (error) {
      if (error instanceof ConfigFileError)
        fail("permissions", `has a rule cairn cannot read: ${error.message}`);
      throw error;
    }
    if (given.defaultMode !== undefined) flag.defaultMode = given.defaultMode;
    const dirs = given.additionalDirectories;
    if (dirs !== undefined) {
      if (!Array.isArray(dirs) || !dirs.every((dir) => typeof dir === "string"))
        fail("permissions.additionalDirectories", "must be an array of directories");
      flag.additionalDirectories = dirs as string[];
    }
    const bypass = given.disableBypassPermissionsMode;
    if (bypass !== undefined && bypass !== "disable")
      fail("permissions.disableBypassPermissionsMode", 'must be "disable"');
    flag.bypassDisabled = bypass === "disable";
    for (const key of Object.keys(given))
      if (!APPLIED_PERMISSIONS.has(key)) flag.ignored.push(`permissions.${key}`);
  }
  if (content.sandbox !== undefined) {
    if (!isObject(content.sandbox)) fail("sandbox", "must be an object");
    flag.sandbox = content.sandbox as Record<string, unknown>;
  }
  if (content.hooks !== undefined)
    flag.hooks = {
      file: source,
      level: "user",
      format: "claude",
      hooks: parseOr(() => parseWith(source, claudeHooksSchema(), content.hooks), "hooks"),
    };
  if (content.model !== undefined) {
    if (typeof content.model !== "string" || content.model === "") fail("model", "must be a model name");
    flag.model = content.model as string;
  }
  const fallback = content.fallbackModel;
  if (fallback !== undefined) {
    const names = typeof fallback === "string" ? [fallback] : fallback;
    if (!Array.isArray(names) || !names.every((name) => typeof name === "string" && name !== ""))
      fail("fallbackModel", "must be a model name or a list of them");
    flag.fallbackModel = (names as string[]).join(",");
  }
  if (content.env !== undefined) {
    const env = content.env;
    if (!isObject(env) || !Object.values(env).every((entry) => typeof entry === "string"))
      fail("env", "must map names to strings");
    flag.env = env as Record<string, string>;
  }
  for (const key of Object.keys(content)) if (!APPLIED.has(key)) flag.ignored.push(key);
  // Relative directories are the settings file's (the query's cwd for an object).
  const home = os.homedir();
  flag.additionalDirectories = flag.additionalDirectories.map((entry) =>
    path.resolve(
      dir,
      entry === "~" ? home : entry.startsWith("~/") ? path.join(home, entry.slice(2)) : entry,
    ),
  );
  return flag;
}

/** The object the option gives, where it came from, and the directory its relative paths start at. */
function settingsContent(
  value: string | Record<string, unknown>,
  cwd: string,
): { content: JsonObject; source: string; dir: string } {
  if (typeof value !== "string") return { content: value, source: "SDK settings option", dir: cwd };
  const text = value.trim();
  if (text.startsWith("{"))
    return { content: parseJson(text, "the JSON text"), source: "SDK settings option", dir: cwd };
  const file = path.resolve(cwd, value);
  let raw: string;
  try {
    raw = readFileSync(file, "utf8");
  } catch (error) {
    throw new SettingsOptionError(
      "settings",
      `cannot read the settings file ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
    );
  }
  return {
    content: parseJson(raw, `the settings file ${file}`),
    source: `SDK settings file ${file}`,
    dir: path.dirname(file),
  };
}

function parseJson(text: string, what: string): JsonObject {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new SettingsOptionError("settings", `${what} is not valid JSON (${(error as Error).message})`);
  }
  if (!isObject(parsed)) throw new SettingsOptionError("settings", `${what} is not a JSON object`);
  return parsed;
}

function parseOr<T>(parse: () => T, key: string): T {
  try {
    return parse();
  } catch (error) {
    if (error instanceof ConfigFileError) throw new SettingsOptionError(`settings.${key}`, error.message);
    throw error;
  }
}

/** The deny lists both sides contribute to (the reference combines them rather than replacing). */
const COMBINED: Record<string, readonly string[]> = {
  filesystem: ["denyRead", "denyWrite"],
  network: ["deniedDomains"],
  credentials: ["files", "envVars"],
};

/**
 * The `sandbox` option over the settings' `sandbox`, as the reference merges them: a value the
 * option sets replaces the settings' at the same path (`filesystem`, `network` and `credentials`
 * merge key by key), except the deny lists, which are combined. When the option turns the sandbox
 * on and neither says `failIfUnavailable`, it is `true`: a program that asks for the sandbox does
 * not run without it.
 */
export function mergedSandbox(
  fromSettings: Record<string, unknown> | undefined,
  option: Record<string, unknown> | undefined,
): Record<string, unknown> | undefined {
  if (!option) return fromSettings;
  const merged: Record<string, unknown> = { ...fromSettings, ...option };
  for (const [key, lists] of Object.entries(COMBINED)) {
    const base = fromSettings?.[key];
    const over = option[key];
    if (!isObject(base) || !isObject(over)) continue;
    const section: JsonObject = { ...base, ...over };
    for (const list of lists)
      if (Array.isArray(base[list]) && Array.isArray(over[list]))
        section[list] = [...base[list], ...over[list]];
    merged[key] = section;
  }
  if (
    option.enabled === true &&
    option.failIfUnavailable === undefined &&
    fromSettings?.failIfUnavailable === undefined
  )
    merged.failIfUnavailable = true;
  return merged;
}
