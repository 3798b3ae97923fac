import os from "node:os";
import path from "node:path";
import { isObject, type JsonObject, readJsonObject } from "../config/files.js";
import { foreignFiles } from "../config/foreign.js";
import { CONFIG_FILE_NAME, loadConfig, PROJECT_CONFIG_DIR } from "../config/load.js";
import { CAIRN_CONFIG_KEYS, PROJECT_CONFIG_KEYS } from "../config/schema.js";
import { ALL_SETTING_SOURCES, type SettingSource } from "../config/setting-sources.js";
import { sdkEnvironment } from "./options.js";
import type {
  DeniedModelsMatch,
  ProvenanceEntry,
  ResolvedSettings,
  ResolveSettingsOptions,
  Settings,
} from "./settings-types.js";

/**
 * The convention's settings helpers over cairn's config loader (docs/sdk.md, "Settings"): what a
 * `query()` with these `cwd` and `settingSources` would apply, without running one.
 */

/** A settings file and the (dotted) keys cairn applies from it. */
type SettingsFile = { file: string; source: SettingSource; applies: readonly string[] };

const RULE_KEYS = ["permissions.allow", "permissions.deny", "permissions.ask"];
const RESTRICTING_KEYS = ["permissions.deny", "permissions.ask"];

/** cairn's files and the other agents' settings files, in load order, as the sources enable them. */
function settingsFiles(
  cwd: string,
  userFile: string,
  sources: readonly SettingSource[],
  env: NodeJS.ProcessEnv,
): SettingsFile[] {
  const files: SettingsFile[] = [
    { file: userFile, source: "user", applies: CAIRN_CONFIG_KEYS.filter((key) => key !== "$schema") },
    {
      file: path.join(cwd, PROJECT_CONFIG_DIR, CONFIG_FILE_NAME),
      source: "project",
      applies: PROJECT_CONFIG_KEYS.filter((key) => key !== "$schema"),
    },
    ...foreignFiles(cwd, os.homedir(), env).map((entry) => ({
      file: entry.file,
      source: entry.source,
      applies: [
        ...(entry.level === "user" ? RULE_KEYS : RESTRICTING_KEYS),
        ...(entry.agent === "claude" ? ["hooks"] : []),
      ],
    })),
  ];
  return files.filter((entry) => sources.includes(entry.source));
}

/**
 * The effective settings of `cwd` as cairn applies them, with each top-level key's provenance and
 * every settings file that exists. Rules and hooks add up over the files (a project's hooks run only
 * in a trusted workspace: docs/hooks.md); every other key comes from cairn's user file. A malformed
 * file rejects with `ConfigFileError`, as a query would.
 */
export async function resolveSettings(options: ResolveSettingsOptions = {}): Promise<ResolvedSettings> {
  const notApplied = (
    ["managedSettings", "serverManagedSettings", "registryPolicyFingerprint"] as const
  ).filter((key) => options[key] !== undefined);
  if (notApplied.length > 0)
    process.emitWarning(
      `resolveSettings(): ${notApplied.join(", ")} not applied: cairn has no policy settings tier`,
      { code: "CAIRN_NO_POLICY_TIER" },
    );
  const cwd = path.resolve(options.cwd ?? process.cwd());
  const sources = options.settingSources ?? ALL_SETTING_SOURCES;
  // Validates every file the way a query does: a malformed one is an error, not a silent gap.
  const env = sdkEnvironment(undefined);
  const { userFile } = await loadConfig({ cwd, env, sources });
  const files = settingsFiles(cwd, userFile, sources, env);
  const contents = await Promise.all(files.map((entry) => readJsonObject(entry.file)));
  const resolved: ResolvedSettings = { effective: {}, provenance: {}, sources: [] };
  files.forEach((entry, index) => {
    const content = contents[index];
    if (content === undefined) return;
    resolved.sources.push({ source: entry.source, settings: content as Settings, path: entry.file });
    if (mergeInto(resolved.effective, content, entry.applies))
      for (const key of new Set(entry.applies.map((dotted) => dotted.split(".")[0]!)))
        if (content[key] !== undefined)
          resolved.provenance[key] = { source: entry.source, path: entry.file } satisfies ProvenanceEntry;
  });
  return resolved;
}

/** Adds what `applies` names of `content` to `effective`; lists and hooks add up. True when anything was added. */
function mergeInto(effective: Settings, content: JsonObject, applies: readonly string[]): boolean {
  let added = false;
  for (const dotted of applies) {
    const [key, sub] = dotted.split(".") as [string, string | undefined];
    const container = sub === undefined ? content : content[key];
    const value = isObject(container) ? container[sub ?? key] : undefined;
    if (value === undefined) continue;
    added = true;
    if (sub !== undefined) {
      effective.permissions ??= {};
      const permissions = effective.permissions;
      permissions[sub] = Array.isArray(value)
        ? [...new Set([...((permissions[sub] as string[] | undefined) ?? []), ...value])]
        : value;
    } else if (key === "hooks" && isObject(value)) {
      effective.hooks ??= {};
      const hooks = effective.hooks;
      for (const [event, matchers] of Object.entries(value))
        hooks[event] = [...(hooks[event] ?? []), ...(matchers as NonNullable<Settings["hooks"]>[string])];
    } else effective[key] = value;
  }
  return added;
}

const ESCALATING_MODES = new Set(["bypassPermissions", "auto", "acceptEdits"]);

/**
 * `resolved.effective` without `permissions.defaultMode` when that mode escalates (`bypassPermissions`,
 * `auto`, `acceptEdits`) and the file that set it last came with the repository (`project`). cairn's
 * own loader never takes a mode from a project file; this applies the same rule to any resolved
 * settings a program holds.
 */
export function filterEscalatingDefaultMode(resolved: ResolvedSettings): Settings {
  const setter = resolved.sources.findLast((entry) => entry.settings.permissions?.defaultMode !== undefined);
  const mode = resolved.effective.permissions?.defaultMode;
  if (setter?.source !== "project" || mode === undefined || !ESCALATING_MODES.has(mode))
    return resolved.effective;
  const { defaultMode: _dropped, ...permissions } = resolved.effective.permissions ?? {};
  return { ...resolved.effective, permissions };
}

/**
 * Which of `models` a `deniedModels` list names: an entry matches the model id equal to it (ignoring
 * case and surrounding space). It compares names only: an alias is not resolved, so `false`
 * promises nothing. Nothing throws: an entry or model that is not a string is skipped (a model:
 * `false`) with a warning. cairn's config has no `deniedModels`: nothing enforces the list.
 */
export async function matchDeniedModels(
  models: readonly string[],
  deniedModels: readonly string[] | undefined,
): Promise<DeniedModelsMatch> {
  const warnings: string[] = [];
  if (!Array.isArray(models)) return { denied: [], warnings: ["models is not a list: nothing matched"] };
  if (deniedModels !== undefined && !Array.isArray(deniedModels))
    warnings.push("deniedModels is not a list: ignored");
  const entries = (Array.isArray(deniedModels) ? deniedModels : []).flatMap((entry, index) => {
    if (typeof entry === "string" && entry.trim() !== "") return [entry.trim().toLowerCase()];
    warnings.push(`deniedModels[${index}] is not a model name: ignored`);
    return [];
  });
  const denied = models.map((model, index) => {
    if (typeof model !== "string") {
      warnings.push(`models[${index}] is not a string: not denied`);
      return false;
    }
    return entries.includes(model.trim().toLowerCase());
  });
  return { denied, warnings };
}
