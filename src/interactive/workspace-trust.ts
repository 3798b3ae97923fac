import { homedir } from "node:os";
import path from "node:path";
import { loadConfig } from "../config/load.js";
import { collectMcpServers } from "../mcp/sources.js";
import type { SessionSetup } from "../session/session.js";
import { updateUserConfig } from "./save-rule.js";

/** What the workspace brings that needs the user's trust, before anything of it runs. */
export type TrustNeeded = { cwd: string; userFile: string; hookFiles: string[]; mcpServers: string[] };

/**
 * Whether to ask: the workspace's own hook files (its `.claude/settings*.json`, `.cursor/hooks.json`)
 * when it is not trusted (`--trust`, `trustedWorkspaces`), and its MCP servers (`.mcp.json`,
 * `.cursor/mcp.json`) not approved (`--approve-mcps`, `mcpApprovals`). Undefined when nothing needs it.
 */
export async function trustNeeded(setup: SessionSetup): Promise<TrustNeeded | undefined> {
  const { cwd } = setup;
  const spec = setup.assembly(() => {});
  const config = await loadConfig({
    cwd,
    env: setup.env,
    ...(setup.settingSources ? { sources: [...setup.settingSources] } : {}),
  });
  const trusted = spec.hooks?.trust === true || inside(cwd, config.trustedWorkspaces);
  const hookFiles = trusted
    ? []
    : config.hooks.filter((one) => one.level === "project").map((one) => one.file);
  const approved = new Set(config.mcpApprovals[cwd] ?? []);
  const mcpServers =
    spec.mcp?.approveProject === true
      ? []
      : (
          await collectMcpServers({
            cwd,
            home: homedir(),
            env: setup.env,
            userConfigServers: config.mcpServers,
            userConfigFile: config.userFile,
            explicit: [],
            strict: spec.mcp?.strict === true,
            ...(setup.settingSources ? { sources: [...setup.settingSources] } : {}),
          })
        )
          .filter((entry) => entry.source.level === "project" && !approved.has(entry.name))
          .map((entry) => entry.name);
  if (hookFiles.length === 0 && mcpServers.length === 0) return undefined;
  return { cwd, userFile: config.userFile, hookFiles, mcpServers };
}

/** The question's title: what would run. */
export function trustQuestion(needed: TrustNeeded): string {
  const parts = [
    ...(needed.hookFiles.length > 0
      ? [`hooks (${needed.hookFiles.map((file) => path.relative(needed.cwd, file)).join(", ")})`]
      : []),
    ...(needed.mcpServers.length > 0 ? [`MCP servers (${needed.mcpServers.join(", ")})`] : []),
  ];
  return `This workspace brings ${parts.join(" and ")}: commands that run on your machine. Trust it?`;
}

/** Remembered in the user config: the workspace in `trustedWorkspaces`, its servers in `mcpApprovals`. */
export async function rememberTrust(needed: TrustNeeded): Promise<void> {
  await updateUserConfig(needed.userFile, (file) => {
    const next = { ...file };
    if (needed.hookFiles.length > 0) {
      const list = Array.isArray(file.trustedWorkspaces) ? [...(file.trustedWorkspaces as unknown[])] : [];
      if (!list.includes(needed.cwd)) list.push(needed.cwd);
      next.trustedWorkspaces = list;
    }
    if (needed.mcpServers.length > 0) {
      const approvals = { ...(file.mcpApprovals as Record<string, string[]> | undefined) };
      approvals[needed.cwd] = [...new Set([...(approvals[needed.cwd] ?? []), ...needed.mcpServers])].sort();
      next.mcpApprovals = approvals;
    }
    return next;
  });
}

function inside(dir: string, roots: readonly string[]): boolean {
  return roots.some((root) => {
    const relative = path.relative(root, dir);
    return relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative));
  });
}
