import { existsSync, statSync } from "node:fs";
import path from "node:path";
import { isObject, readJsonObject } from "../config/files.js";
import type { PluginDir } from "../config/setting-sources.js";
import { COMMAND_NAME } from "./markdown-files.js";

/**
 * Local plugins (SDK `plugins: [{type: "local", path}]`, `--plugin-dir`; docs/agents.md,
 * "Plugins"): a folder with `commands/`, `skills/` and `agents/` in the layout of `.claude/`, and
 * optionally `.claude-plugin/plugin.json` naming it. Its commands and skills are `<plugin>:<name>`.
 * What else a plugin may bring (hooks, MCP servers) is reported, not applied.
 */
export type PluginConfig = { type: "local"; path: string; skipMcpDiscovery?: boolean };

export type LoadedPlugin = PluginDir & { version?: string };

export async function loadPlugins(
  configs: readonly PluginConfig[],
  cwd: string,
): Promise<{ plugins: LoadedPlugin[]; warnings: string[] }> {
  const warnings: string[] = [];
  const plugins: LoadedPlugin[] = [];
  for (const config of configs) {
    const dir = path.resolve(cwd, config.path);
    if (!isDirectory(dir)) {
      warnings.push(`plugin ${config.path}: not loaded (not a directory)`);
      continue;
    }
    const manifestFile = path.join(dir, ".claude-plugin", "plugin.json");
    const manifest = await readJsonObject(manifestFile).catch((error: unknown) => {
      warnings.push(`plugin ${dir}: ${(error as Error).message}; its folder name is used`);
      return undefined;
    });
    const named = typeof manifest?.name === "string" ? manifest.name : path.basename(dir);
    if (!COMMAND_NAME.test(named)) {
      warnings.push(`plugin ${dir}: not loaded: the name "${named}" is not letters, digits, '.', '_', '-'`);
      continue;
    }
    if (plugins.some((plugin) => plugin.name === named)) {
      warnings.push(`plugin ${dir}: not loaded: a plugin named "${named}" is already loaded`);
      continue;
    }
    const unapplied = [
      ...(existsSync(path.join(dir, "hooks")) || isObject(manifest?.hooks) ? ["hooks"] : []),
      ...(!config.skipMcpDiscovery && (existsSync(path.join(dir, ".mcp.json")) || manifest?.mcpServers)
        ? ["MCP servers"]
        : []),
    ];
    if (unapplied.length > 0)
      warnings.push(
        `plugin ${named} (${dir}): not applied: ${unapplied.join(", ")} (cairn loads a plugin's commands, skills and agents)`,
      );
    plugins.push({
      name: named,
      path: dir,
      ...(typeof manifest?.version === "string" ? { version: manifest.version } : {}),
    });
  }
  return { plugins, warnings };
}

function isDirectory(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}
