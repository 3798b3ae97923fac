import os from "node:os";
import type { LoadedConfig } from "../config/load.js";
import type { SandboxPolicy } from "../sandbox/policy.js";
import type { McpServerEntry } from "./config.js";
import { McpHub, type McpHubOptions } from "./hub.js";
import { collectMcpServers } from "./sources.js";

export type StartMcpOptions = {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Servers from flags or options (`--mcp-config`, `options.mcpServers`). */
  explicit: McpServerEntry[];
  /** Only `explicit` (`--strict-mcp-config`, `strictMcpConfig`). */
  strict: boolean;
  /** Every project server may start (`--approve-mcps`); else only those the user config approves here. */
  approveProject: boolean;
  sandbox?: SandboxPolicy;
  onLog?: McpHubOptions["onLog"];
  /** Start only the servers this keeps (`cairn mcp list-tools <server>`). */
  select?: (entries: McpServerEntry[]) => McpServerEntry[];
};

/** The servers of the config files and flags/options, connected: what a run (or `cairn mcp`) gets. */
export async function startMcpServers(config: LoadedConfig, options: StartMcpOptions): Promise<McpHub> {
  const entries = await collectMcpServers({
    cwd: options.cwd,
    home: os.homedir(),
    env: options.env,
    userConfigServers: config.mcpServers,
    userConfigFile: config.userFile,
    explicit: options.explicit,
    strict: options.strict,
    sources: config.sources,
  });
  const approvedHere = new Set(config.mcpApprovals[options.cwd] ?? []);
  return McpHub.start(options.select ? options.select(entries) : entries, {
    cwd: options.cwd,
    env: options.env,
    approved: (entry) => options.approveProject || approvedHere.has(entry.name),
    ...(options.sandbox ? { sandbox: options.sandbox } : {}),
    ...(options.onLog ? { onLog: options.onLog } : {}),
  });
}
