import os from "node:os";
import path from "node:path";
import { resolveCairnHome } from "../permissions/home.js";
import type { PermissionMode, PermissionRule } from "../permissions/types.js";
import { keysOf, parseWith, readJsonObject } from "./files.js";
import { foreignFiles, loadForeignRules } from "./foreign.js";
import { type ConfiguredHooks, cursorHookFiles, loadCursorHooks } from "./hooks.js";
import { rulesOf } from "./rules-of.js";
import { CAIRN_CONFIG_KEYS, type CairnConfigFile, cairnConfigSchema, PROJECT_CONFIG_KEYS } from "./schema.js";
import { ALL_SETTING_SOURCES, type SettingSource } from "./setting-sources.js";

/**
 * The one config loader of every front door (docs/config.md has every key and the precedence):
 *
 * - `$CAIRN_HOME/config.json` (default `~/.cairn/config.json`), the user's: `model`, `permissions.*`,
 *   `hooks`, `trustedWorkspaces`.
 * - `<workspace>/.cairn/config.json`, the project's: it comes with the repository, so whoever wrote the
 *   repository wrote it; it may only restrict (`permissions.deny`, `permissions.ask`).
 * - the other agents' files (foreign.ts, hooks.ts): their permission rules, on the same principle,
 *   and their hooks (a project's run only in a trusted workspace: src/hooks/).
 *
 * A malformed file or rule is an error naming the file (silently dropping a deny rule is not an
 * option); a key that does nothing is a warning naming file and key, for the front door to show once.
 */

export const CONFIG_FILE_NAME = "config.json";
export const PROJECT_CONFIG_DIR = ".cairn";

export type LoadedConfig = {
  /** Every rule, deny/ask/allow as each file may set them; each names its file as `source`. */
  rules: PermissionRule[];
  /** `permissions.defaultMode` of the user file. */
  defaultMode?: PermissionMode;
  /** `permissions.additionalDirectories` of the user file, absolute. */
  additionalDirectories: string[];
  /** `model` of the user file: what `default`/`auto` and an unnamed model mean. */
  model?: string;
  /** `mcpServers` of the user file, as written (src/mcp/ parses it). */
  mcpServers?: unknown;
  /** `mcpApprovals` of the user file, with absolute directories. */
  mcpApprovals: Record<string, string[]>;
  /** The user file's path (named in messages about its contents). */
  userFile: string;
  /** Every file's command hooks, user files first (docs/hooks.md). */
  hooks: ConfiguredHooks[];
  /** `trustedWorkspaces` of the user file, absolute: workspaces whose own hooks may run. */
  trustedWorkspaces: string[];
  /** `contextWindow` of the user file: the window of models the catalog does not know (docs/context.md). */
  contextWindow?: number;
  /** `compactThreshold` of the user file (docs/context.md). */
  compactThreshold?: number;
  /**
   * `sandbox.network` of the user file (both lists) and of the project file (`deniedDomains` only: it
   * may only restrict), each pattern with where it was written (`<file>: sandbox.network.…`); the
   * sandbox checks them when it applies them.
   */
  sandboxDomains: { allowed: ConfiguredDomain[]; denied: ConfiguredDomain[] };
  /** `telemetry` of the user file (src/telemetry/settings.ts). */
  telemetry?: NonNullable<CairnConfigFile["telemetry"]>;
  /** `proxy` and `noProxy` of the user file (src/util/network-proxy.ts). */
  proxy?: { proxy?: string; noProxy?: string };
  /** `searxngUrl` of the user file (src/tools/web-search.ts). */
  searxngUrl?: string;
  /** `webSearch` of the user file: the WebSearch backend (src/run/web-search-backend.ts). */
  webSearch?: "provider" | "searxng" | "off";
  /** What was not applied and why, one line each. */
  warnings: string[];
  /** The files read, in order, and which of them exist (only those the enabled sources load). */
  files: { file: string; found: boolean }[];
  /**
   * The enabled `settingSources` (docs/agents.md, "Which files load"): what else the run loads
   * (instruction files, MCP files, commands, skills, agents) follows them too.
   */
  sources: readonly SettingSource[];
};

export type ConfiguredDomain = { pattern: string; source: string };

export type LoadConfigOptions = {
  /** The workspace (project config is `<cwd>/.cairn/config.json`). */
  cwd: string;
  /** Default: `resolveCairnHome(env)`. */
  cairnHome?: string;
  env: NodeJS.ProcessEnv;
  /** The user's home, where the other agents' user files are. Default: `os.homedir()`. */
  home?: string;
  /** Which files load (SDK `settingSources`, `--setting-sources`). Default: all of them. */
  sources?: readonly SettingSource[];
};

export async function loadConfig(options: LoadConfigOptions): Promise<LoadedConfig> {
  const { env } = options;
  const home = options.home ?? os.homedir();
  const cwd = path.resolve(options.cwd);
  const sources = [...(options.sources ?? ALL_SETTING_SOURCES)];
  const userFile = path.join(options.cairnHome ?? resolveCairnHome(env, home), CONFIG_FILE_NAME);
  const projectFile = path.join(cwd, PROJECT_CONFIG_DIR, CONFIG_FILE_NAME);
  const others = foreignFiles(cwd, home, env).filter((entry) => sources.includes(entry.source));
  const cursorHooks = cursorHookFiles(cwd, home, env).filter((entry) => sources.includes(entry.level));
  const readIf = (source: SettingSource, file: string) =>
    sources.includes(source) ? readJsonObject(file) : Promise.resolve(undefined);
  const [user, project, foreign, cursor] = await Promise.all([
    readIf("user", userFile),
    readIf("project", projectFile),
    loadForeignRules(others),
    loadCursorHooks(cursorHooks),
  ]);
  const loaded: LoadedConfig = {
    rules: [],
    additionalDirectories: [],
    mcpApprovals: {},
    userFile,
    hooks: [],
    trustedWorkspaces: [],
    sandboxDomains: { allowed: [], denied: [] },
    warnings: [],
    sources,
    files: [
      ...(sources.includes("user") ? [{ file: userFile, found: user !== undefined }] : []),
      ...(sources.includes("project") ? [{ file: projectFile, found: project !== undefined }] : []),
      ...others.map(({ file }) => ({ file, found: foreign.found.includes(file) })),
      ...cursorHooks.map(({ file }) => ({ file, found: cursor.found.includes(file) })),
    ],
  };
  if (user) {
    const config = parseWith(userFile, cairnConfigSchema(), user);
    loaded.rules.push(
      ...rulesOf(userFile, `user config ${userFile}`, config.permissions, ["deny", "ask", "allow"]),
    );
    if (config.permissions?.defaultMode)
      loaded.defaultMode = config.permissions.defaultMode as PermissionMode;
    const fromUserFile = (dir: string) => path.resolve(path.dirname(userFile), expandTilde(dir, home));
    loaded.additionalDirectories = (config.permissions?.additionalDirectories ?? []).map(fromUserFile);
    loaded.trustedWorkspaces = (config.trustedWorkspaces ?? []).map(fromUserFile);
    if (config.hooks)
      loaded.hooks.push({ file: userFile, level: "user", format: "claude", hooks: config.hooks });
    if (config.model !== undefined) loaded.model = config.model;
    if (config.mcpServers !== undefined) loaded.mcpServers = config.mcpServers;
    for (const [dir, names] of Object.entries(config.mcpApprovals ?? {}))
      loaded.mcpApprovals[path.resolve(expandTilde(dir, home))] = names;
    if (config.contextWindow !== undefined) loaded.contextWindow = config.contextWindow;
    if (config.compactThreshold !== undefined) loaded.compactThreshold = config.compactThreshold;
    const network = config.sandbox?.network;
    loaded.sandboxDomains.allowed.push(...domainsOf(userFile, "allowedDomains", network?.allowedDomains));
    loaded.sandboxDomains.denied.push(...domainsOf(userFile, "deniedDomains", network?.deniedDomains));
    if (config.proxy !== undefined || config.noProxy !== undefined)
      loaded.proxy = {
        ...(config.proxy !== undefined ? { proxy: config.proxy } : {}),
        ...(config.noProxy !== undefined ? { noProxy: config.noProxy } : {}),
      };
    if (config.searxngUrl !== undefined) loaded.searxngUrl = config.searxngUrl;
    if (config.webSearch !== undefined) loaded.webSearch = config.webSearch;
    if (config.telemetry !== undefined) loaded.telemetry = config.telemetry;
    for (const key of keysOf(user, NESTED_KEYS))
      if (!CAIRN_CONFIG_KEYS.includes(key)) loaded.warnings.push(`${userFile}: unknown key ${key} ignored`);
  }
  if (project) {
    const config = parseWith(projectFile, cairnConfigSchema().loose(), project);
    loaded.rules.push(
      ...rulesOf(projectFile, `project config ${projectFile}`, config.permissions, ["deny", "ask"]),
    );
    const denied = config.sandbox?.network?.deniedDomains;
    loaded.sandboxDomains.denied.push(...domainsOf(projectFile, "deniedDomains", denied));
    for (const key of keysOf(project, NESTED_KEYS)) {
      if (PROJECT_CONFIG_KEYS.includes(key)) continue;
      const why = CAIRN_CONFIG_KEYS.includes(key)
        ? "a project config may only restrict: permissions.deny, permissions.ask and sandbox.network.deniedDomains"
        : "unknown key";
      loaded.warnings.push(`${projectFile}: ${key} ignored (${why})`);
    }
  }
  loaded.rules.push(...foreign.rules);
  // User files' hooks first, then the project's, each source in the order its files were read.
  const allHooks = [...foreign.hooks, ...cursor.hooks];
  loaded.hooks.push(...allHooks.filter((entry) => entry.level === "user"));
  loaded.hooks.push(...allHooks.filter((entry) => entry.level === "project"));
  loaded.warnings.push(...foreign.warnings);
  return loaded;
}

/** The objects whose keys are listed one level down (`sandbox.network` two: `sandbox.network.x`). */
const NESTED_KEYS = ["permissions", "sandbox", "sandbox.network", "telemetry"];

function domainsOf(file: string, key: string, patterns: readonly string[] | undefined): ConfiguredDomain[] {
  return (patterns ?? []).map((pattern, index) => ({
    pattern,
    source: `${file}: sandbox.network.${key}.${index}`,
  }));
}

function expandTilde(dir: string, home: string): string {
  if (dir === "~") return home;
  return dir.startsWith("~/") ? path.join(home, dir.slice(2)) : dir;
}
