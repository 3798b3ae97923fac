import { resolve } from "node:path";
import { loadConfig } from "../config/load.js";
import type { McpServerState } from "../mcp/hub.js";
import { parseMcpConfigFlags } from "../mcp/sources.js";
import { startMcpServers } from "../mcp/start.js";
import { configuredSandboxDomains } from "../run/sandbox-domains.js";
import { resolveSandboxPolicy, SANDBOX_MODES, type SandboxMode } from "../sandbox/policy.js";
import { UsageError } from "../util/exit-codes.js";
import { writeError } from "./errors.js";

const USAGE =
  "cairn mcp list [--json] | cairn mcp list-tools <server> [--json] | cairn mcp enable|disable <server>; options: --workspace <dir>, --mcp-config <config>, --strict-mcp-config, --approve-mcps, --sandbox auto|enabled|disabled";

/**
 * `cairn mcp list` (servers, where each is configured, status, tool count) and `cairn mcp list-tools
 * <server>` (names, read-only hints, descriptions): the servers a run in this directory would get,
 * started and asked, with no model call. Project servers start only with `--approve-mcps` or an
 * approval in the user config, exactly as in a run.
 */
export async function runMcp(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const [command, ...rest] = args;
  if (command === "enable" || command === "disable") return approval(command, rest, env);
  if (command !== "list" && command !== "list-tools") throw new UsageError(USAGE);
  const options = {
    json: false,
    cwd: process.cwd(),
    configs: [] as string[],
    strict: false,
    approve: false,
    sandbox: undefined as SandboxMode | undefined,
  };
  let server: string | undefined;
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!;
    if (arg === "--json") options.json = true;
    else if (arg === "--strict-mcp-config") options.strict = true;
    else if (arg === "--approve-mcps") options.approve = true;
    else if (arg === "--sandbox" && SANDBOX_MODES.includes(rest[i + 1] as SandboxMode))
      options.sandbox = rest[++i] as SandboxMode;
    else if ((arg === "--workspace" || arg === "--mcp-config") && rest[i + 1] !== undefined) {
      if (arg === "--workspace") options.cwd = resolve(rest[++i]!);
      else options.configs.push(rest[++i]!);
    } else if (command === "list-tools" && server === undefined && !arg.startsWith("-")) server = arg;
    else throw new UsageError(USAGE);
  }
  if (command === "list-tools" && server === undefined) throw new UsageError(USAGE);

  const config = await loadConfig({ cwd: options.cwd, env });
  // The project's servers start under the sandbox, as in a run (where bubblewrap runs).
  const domains = configuredSandboxDomains(config);
  const { policy, warning } = await resolveSandboxPolicy(
    {
      ...(options.sandbox ? { mode: options.sandbox } : {}),
      allowedDomains: domains.allowed,
      deniedDomains: domains.denied,
    },
    { roots: [options.cwd, ...config.additionalDirectories], env },
  );
  if (warning) writeError(warning);
  let named = true;
  const hub = await startMcpServers(config, {
    cwd: options.cwd,
    env,
    explicit: parseMcpConfigFlags(options.configs, options.cwd),
    strict: options.strict,
    approveProject: options.approve,
    sandbox: policy,
    select: (entries) => {
      if (server === undefined) return entries;
      const chosen = entries.filter((entry) => entry.name === server);
      named = chosen.length > 0;
      return chosen;
    },
  });
  if (!named) {
    await hub.close();
    await policy.proxy?.close();
    throw new UsageError(`no MCP server named ${server}; cairn mcp list shows the configured ones`);
  }
  try {
    const states = hub.states();
    process.stdout.write(
      server === undefined ? listing(states, options.json) : toolListing(states[0]!, options.json),
    );
    return states.some((state) => state.status === "failed") ? 1 : 0;
  } finally {
    await hub.close();
    await policy.proxy?.close(); // the network proxy of the sandboxed servers, if one started
  }
}

function listing(states: McpServerState[], json: boolean): string {
  if (json)
    return `${JSON.stringify(
      states.map((s) => ({
        name: s.name,
        status: s.status,
        source: s.source.origin,
        scope: s.source.level,
        tools: s.tools.length,
        ...(s.error ? { error: s.error } : {}),
      })),
    )}\n`;
  if (states.length === 0) return "No MCP servers configured (docs/mcp.md says where they come from).\n";
  const width = Math.max(4, ...states.map((s) => s.name.length));
  const rows = states.map(
    (s) =>
      `${s.name.padEnd(width)}  ${s.status.padEnd(9)}  ${String(s.tools.length).padStart(5)}  ${s.source.origin}${s.error ? `  (${s.error})` : ""}`,
  );
  return `${"NAME".padEnd(width)}  ${"STATUS".padEnd(9)}  TOOLS  SOURCE\n${rows.join("\n")}\n`;
}

function toolListing(state: McpServerState, json: boolean): string {
  if (json) return `${JSON.stringify({ name: state.name, status: state.status, tools: state.tools })}\n`;
  if (state.status !== "connected")
    return `${state.name}: ${state.status}${state.error ? ` (${state.error})` : ""}\n`;
  const rows = state.tools.map(
    (tool) =>
      `mcp__${state.name}__${tool.name}${tool.annotations?.readOnlyHint ? "  [read-only]" : ""}${tool.description ? `  ${tool.description.split("\n")[0]}` : ""}`,
  );
  return `${rows.join("\n")}\n`;
}

/** `enable|disable <server> [--workspace <dir>]`. */
async function approval(
  command: "enable" | "disable",
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<number> {
  let cwd = process.cwd();
  let server: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--workspace" && args[i + 1] !== undefined) cwd = resolve(args[++i]!);
    else if (server === undefined && !arg.startsWith("-")) server = arg;
    else throw new UsageError(USAGE);
  }
  if (server === undefined) throw new UsageError(USAGE);
  const { setMcpApproval } = await import("./mcp-approval.js");
  return setMcpApproval(server, command === "enable", cwd, env);
}
