import os from "node:os";
import path from "node:path";
import { readJsonObject } from "../config/files.js";
import { loadConfig } from "../config/load.js";
import { collectMcpServers } from "../mcp/sources.js";
import { UsageError } from "../util/exit-codes.js";
import { chmod, mkdir, rename, writeFile } from "../util/fs-async.js";

/**
 * `cairn mcp enable|disable <server>`, the reference CLI's subcommands: approve (or withdraw the
 * approval of) a project MCP server of this workspace (`.mcp.json`, `.cursor/mcp.json`) in the user
 * config's `mcpApprovals`, so later runs here start it without `--approve-mcps`. Servers of the
 * user's own files need no approval and are changed in their file.
 */
export async function setMcpApproval(
  name: string,
  enable: boolean,
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<number> {
  const config = await loadConfig({ cwd, env });
  const entries = await collectMcpServers({
    cwd,
    home: os.homedir(),
    env,
    userConfigServers: config.mcpServers,
    userConfigFile: config.userFile,
    explicit: [],
    strict: false,
  });
  const entry = entries.find((candidate) => candidate.name === name);
  if (!entry)
    throw new UsageError(`no MCP server named ${name} here; cairn mcp list shows the configured ones`);
  if (entry.source.level !== "project")
    throw new UsageError(
      `MCP server ${name} is configured in ${entry.source.origin}, a user file: it needs no approval; edit that file to remove it`,
    );
  // The file as it is (unknown keys kept), with this workspace's list changed.
  const file = (await readJsonObject(config.userFile)) ?? {};
  const approvals = { ...(file.mcpApprovals as Record<string, string[]> | undefined) };
  const names = new Set(approvals[cwd] ?? []);
  if (enable) names.add(name);
  else names.delete(name);
  if (names.size > 0) approvals[cwd] = [...names].sort();
  else delete approvals[cwd];
  await writeAtomically(
    config.userFile,
    `${JSON.stringify({ ...file, mcpApprovals: approvals }, null, 2)}\n`,
  );
  process.stdout.write(
    enable
      ? `MCP server ${name} (${entry.source.origin}) is approved for ${cwd}: runs here start it.\n`
      : `MCP server ${name} is no longer approved for ${cwd}: runs here start it only with --approve-mcps.\n`,
  );
  return 0;
}

/** A reader never sees half a file: write a sibling, then rename over it (0600: the user's settings). */
async function writeAtomically(file: string, text: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, text, { mode: 0o600 });
  await chmod(temporary, 0o600);
  await rename(temporary, file);
}
