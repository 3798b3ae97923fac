import { existsSync } from "node:fs";
import path from "node:path";
import { resolveCairnHome } from "../permissions/home.js";

/**
 * Which files a run loads, by the agent-SDK convention's `settingSources` (docs/agents.md, "Which
 * files load"):
 *
 * - `user`: the user's own files — `$CAIRN_HOME/config.json`, `~/.claude/settings.json`, Cursor's
 *   user files, the user-level instruction files, commands, skills and agents;
 * - `project`: the files that come with the repository — `.cairn/config.json`,
 *   `.claude/settings.json`, `.cursor/cli.json`, hook and MCP files, AGENTS.md / CLAUDE.md /
 *   `.cursor/rules`, and the project's commands, skills and agents;
 * - `local`: the user's own files inside the workspace, kept out of version control —
 *   `.claude/settings.local.json`, `CLAUDE.local.md`.
 *
 * Omitted means all three (the convention's default since its 0.2 line, and the CLI's); `[]` loads
 * no file at all.
 */
export type SettingSource = "user" | "project" | "local";

export const ALL_SETTING_SOURCES: readonly SettingSource[] = ["user", "project", "local"];

/** `--setting-sources user,project` (comma or space separated; empty: none). Throws on an unknown name. */
export function parseSettingSources(value: string): SettingSource[] {
  const names = value
    .split(/[\s,]+/)
    .map((name) => name.trim())
    .filter(Boolean);
  for (const name of names) {
    if (!(ALL_SETTING_SOURCES as readonly string[]).includes(name)) {
      throw new Error(`unknown setting source "${name}" (expected ${ALL_SETTING_SOURCES.join(", ")})`);
    }
  }
  return [...new Set(names)] as SettingSource[];
}

/** What kind of files a directory holds: `<base>/commands`, `<base>/skills`, `<base>/agents`. */
export type AgentFileKind = "commands" | "skills" | "agents";
/** Whose directory layout: `.cairn/…`, `.claude/…`, `.cursor/…`. */
export type AgentDirOwner = "cairn" | "claude" | "cursor";

export type SourceDir = {
  /** Absolute: e.g. `/repo/.claude/commands`, `~/.cairn/skills`. It may not exist. */
  dir: string;
  /** `project` directories come with the repository; `user` ones are the user's own. */
  level: "user" | "project";
  owner: AgentDirOwner;
  /** Set for a plugin's directory: its names are `<plugin>:<name>`. */
  plugin?: string;
};

/** A local plugin the program or CLI named (SDK `plugins`, `--plugin-dir`), already found. */
export type PluginDir = { name: string; path: string };

export type SourceDirOptions = {
  cwd: string;
  env: NodeJS.ProcessEnv;
  home: string;
  /** The enabled sources (`LoadedConfig.sources`). */
  sources: readonly SettingSource[];
  /** Whose layouts to list (default: cairn's and Claude's). */
  owners?: readonly AgentDirOwner[];
  /** Local plugins: their `commands/`, `skills/`, `agents/` come last, whatever the sources. */
  plugins?: readonly PluginDir[];
};

/**
 * The directories of `kind` files that the enabled sources load, highest precedence first: the
 * workspace and each ancestor up to the repository's root (the nearest directory holding `.git`),
 * nearest first, then the user's directories (`$CAIRN_HOME`, `$CLAUDE_CONFIG_DIR` or `~/.claude`,
 * `$CURSOR_CONFIG_DIR` or `~/.cursor`), then the local plugins' directories. Within one base,
 * `.cairn` comes before `.claude` before `.cursor`. A name defined twice is taken from the first
 * directory that defines it.
 *
 * The one answer to "which directories are enabled" for commands, skills and agent files.
 */
export function sourceDirs(kind: AgentFileKind, options: SourceDirOptions): SourceDir[] {
  const owners = options.owners ?? ["cairn", "claude"];
  const dirs: SourceDir[] = [];
  if (options.sources.includes("project")) {
    for (const base of dirsFromRepositoryRoot(options.cwd).reverse())
      for (const owner of owners)
        dirs.push({ dir: path.join(base, `.${owner}`, kind), level: "project", owner });
  }
  if (options.sources.includes("user")) {
    const homes: Record<AgentDirOwner, string> = {
      cairn: resolveCairnHome(options.env, options.home),
      claude: options.env.CLAUDE_CONFIG_DIR?.trim() || path.join(options.home, ".claude"),
      cursor: options.env.CURSOR_CONFIG_DIR?.trim() || path.join(options.home, ".cursor"),
    };
    for (const owner of owners) dirs.push({ dir: path.join(homes[owner], kind), level: "user", owner });
  }
  // A plugin is the program's or the user's explicit choice: its files count as the user's own.
  for (const plugin of options.plugins ?? [])
    dirs.push({ dir: path.join(plugin.path, kind), level: "user", owner: "claude", plugin: plugin.name });
  return dirs;
}

/** `cwd` and its ancestors up to the nearest one holding `.git`, root first (just `cwd` outside a repository). */
export function dirsFromRepositoryRoot(cwd: string): string[] {
  const dirs: string[] = [];
  for (let dir = path.resolve(cwd); ; dir = path.dirname(dir)) {
    dirs.unshift(dir);
    if (existsSync(path.join(dir, ".git"))) return dirs;
    if (path.dirname(dir) === dir) return [path.resolve(cwd)];
  }
}
