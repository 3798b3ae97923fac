import { existsSync } from "node:fs";
import path from "node:path";
import { readJsonObject } from "../config/files.js";
import type { SettingSource } from "../config/setting-sources.js";
import { readCappedText } from "../util/read-capped.js";
import { McpConfigError, type McpServerEntry, parseMcpServers, type SdkServerConfig } from "./config.js";

/**
 * Where MCP servers come from (docs/mcp.md), lowest precedence first; a later server of the same
 * name replaces an earlier one:
 * - user files: `mcpServers` of `~/.cairn/config.json` (given by the config loader), `~/.cursor/mcp.json`;
 * - project files: `<workspace>/.mcp.json`, `<workspace>/.cursor/mcp.json` — code from the repository,
 *   started only when approved;
 * - `--mcp-config <file or JSON>` (each repeat adds), SDK `mcpServers`.
 * With `strict` (`--strict-mcp-config`, `strictMcpConfig`) only the last group counts.
 */
export type McpSourceOptions = {
  cwd: string;
  home: string;
  env: NodeJS.ProcessEnv;
  /** `mcpServers` of cairn's user config, already read. */
  userConfigServers?: unknown;
  userConfigFile?: string;
  /** Servers from flags or options, already parsed. */
  explicit: McpServerEntry[];
  strict: boolean;
  /** The enabled `settingSources`: user files load with `user`, the workspace's with `project` (default: both). */
  sources?: readonly SettingSource[];
};

export async function collectMcpServers(options: McpSourceOptions): Promise<McpServerEntry[]> {
  if (options.strict) return dedupe(options.explicit);
  const cursorHome = options.env.CURSOR_CONFIG_DIR?.trim() || path.join(options.home, ".cursor");
  const files = [
    { file: path.join(cursorHome, "mcp.json"), level: "user" as const },
    { file: path.join(options.cwd, ".mcp.json"), level: "project" as const },
    { file: path.join(options.cwd, ".cursor", "mcp.json"), level: "project" as const },
  ].filter(({ level }) => options.sources?.includes(level) ?? true);
  const contents = await Promise.all(files.map(({ file }) => readJsonObject(file)));
  const fromFiles = files.flatMap(({ file, level }, index) =>
    contents[index] ? parseMcpServers(contents[index], { level, origin: file }) : [],
  );
  const fromUserConfig =
    options.userConfigServers === undefined
      ? []
      : parseMcpServers(
          { mcpServers: options.userConfigServers },
          { level: "user", origin: options.userConfigFile ?? "user config" },
        );
  return dedupe([...fromUserConfig, ...fromFiles, ...options.explicit]);
}

/** `--mcp-config` values: a file name or inline JSON, each `{"mcpServers": {…}}`. */
export function parseMcpConfigFlags(values: readonly string[], cwd: string): McpServerEntry[] {
  return values.flatMap((value) => {
    const inline = value.trimStart().startsWith("{");
    const origin = inline ? "--mcp-config" : path.resolve(cwd, value);
    let text = value;
    if (!inline) {
      if (!existsSync(origin)) throw new McpConfigError(`--mcp-config: ${origin} does not exist`);
      try {
        text = readCappedText(origin);
      } catch (error) {
        throw new McpConfigError(`--mcp-config: ${origin} cannot be read (${(error as Error).message})`);
      }
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw new McpConfigError(`${origin}: is not valid JSON (${(error as Error).message})`);
    }
    return parseMcpServers(parsed, { level: "flag", origin });
  });
}

function dedupe(entries: McpServerEntry[]): McpServerEntry[] {
  const byName = new Map<string, McpServerEntry>();
  for (const entry of entries) byName.set(entry.name, entry);
  return [...byName.values()];
}

/** `options.mcpServers` of the SDK: in-process servers as they are, the rest parsed like a file's. */
export function entriesFromOptions(servers: Record<string, unknown> | undefined): McpServerEntry[] {
  const source = { level: "sdk" as const, origin: "options.mcpServers" };
  return Object.entries(servers ?? {}).flatMap(([name, config]) => {
    const sdk = config as Partial<SdkServerConfig>;
    if (sdk?.type === "sdk" && sdk.instance) return [{ name, config: sdk as SdkServerConfig, source }];
    return parseMcpServers({ mcpServers: { [name]: config } }, source);
  });
}
