import path from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { ValidateFunction } from "ajv";
import { bwrapCommand } from "../sandbox/bwrap.js";
import { type SandboxPolicy, sandboxRunner } from "../sandbox/policy.js";
import { childEnvironment } from "../tools/child-env.js";
import { createAjv } from "../tools/json-schema.js";
import type { Tool } from "../tools/types.js";
import { networkFetch } from "../util/network-proxy.js";
import type { McpServerEntry, McpServerSource } from "./config.js";
import { resourceTools } from "./resource-tools.js";
import { DEFAULT_MCP_CALL_TIMEOUT_MS, type McpToolInfo, mcpTool } from "./tool-adapter.js";

/** How long a server may take to start and list its tools before it is reported as failed. */
export const DEFAULT_MCP_STARTUP_TIMEOUT_MS = 30_000;

/** A server's state, as `system/init.mcp_servers`, `cairn mcp list` and `mcpServerStatus()` show it. */
export type McpServerState = {
  name: string;
  status: "connected" | "failed" | "pending" | "disabled";
  source: McpServerSource;
  error?: string;
  serverInfo?: { name: string; version: string };
  tools: McpToolInfo[];
};

export type McpHubOptions = {
  cwd: string;
  /** The caller's environment; stdio servers get it without secrets, plus their configured `env`. */
  env: NodeJS.ProcessEnv;
  startupTimeoutMs?: number;
  /** Project servers start only when approved (`--approve-mcps`, approvals in the user config). */
  approved?: (entry: McpServerEntry) => boolean;
  /** The run's OS sandbox: the workspace's own stdio servers (code from the repository) run under it. */
  sandbox?: SandboxPolicy;
  /** A server's log line (`stderr`: a stdio server's own stderr) or a connection problem (`event`). */
  onLog?: (server: string, line: string, kind: "stderr" | "event") => void;
};

type Connection = {
  entry: McpServerEntry;
  state: McpServerState;
  client?: Client;
  timeoutMs?: number;
  resources?: boolean;
};

/**
 * The MCP servers of one run: connected in parallel at start, each with a deadline; a server that
 * fails is reported and left out, the run goes on. Closing the hub ends every server (stdio servers
 * with their whole process group).
 */
export class McpHub {
  private constructor(
    private connections: Connection[],
    private readonly options: McpHubOptions,
  ) {}

  static async start(entries: readonly McpServerEntry[], options: McpHubOptions): Promise<McpHub> {
    return new McpHub(await Promise.all(entries.map((entry) => connect(entry, options))), options);
  }

  /** Closes a server and connects it again (SDK `reconnectMcpServer`). */
  async reconnect(name: string): Promise<McpServerState> {
    const index = this.indexOf(name);
    const old = this.connections[index]!;
    await old.client?.close().catch(() => {});
    this.connections[index] = await connect(old.entry, this.options);
    return this.connections[index].state;
  }

  /** Disables (closes) or enables (connects) a server (SDK `toggleMcpServer`). */
  async setEnabled(name: string, enabled: boolean): Promise<McpServerState> {
    const index = this.indexOf(name);
    const connection = this.connections[index]!;
    if (!enabled) {
      connection.state.status = "disabled";
      connection.state.error = "disabled by toggleMcpServer()";
      await connection.client?.close().catch(() => {});
      delete connection.client;
      return connection.state;
    }
    if (connection.state.status === "connected") return connection.state;
    return this.reconnect(name);
  }

  /**
   * Replaces the servers of one level (SDK `setMcpServers`: the `sdk` level) with `entries`: servers
   * no longer named are closed, new ones connected, changed ones reconnected.
   */
  async replaceLevel(
    level: McpServerEntry["source"]["level"],
    entries: readonly McpServerEntry[],
  ): Promise<{ added: string[]; removed: string[]; errors: Record<string, string> }> {
    const wanted = new Map(entries.map((entry) => [entry.name, entry]));
    const removed: string[] = [];
    const kept: Connection[] = [];
    for (const connection of this.connections) {
      const replacement = wanted.get(connection.entry.name);
      const ours = connection.entry.source.level === level;
      if (ours && (!replacement || replacement.config !== connection.entry.config)) {
        await connection.client?.close().catch(() => {});
        if (!replacement) removed.push(connection.entry.name);
        continue;
      }
      if (replacement && !ours) continue; // the new entry replaces a lower level's server of that name
      kept.push(connection);
    }
    const keptNames = new Set(kept.map((connection) => connection.entry.name));
    const fresh = entries.filter((entry) => !keptNames.has(entry.name));
    const connected = await Promise.all(fresh.map((entry) => connect(entry, this.options)));
    this.connections = [...kept, ...connected];
    const errors: Record<string, string> = {};
    for (const { state } of connected)
      if (state.status === "failed") errors[state.name] = state.error ?? "failed";
    return {
      added: connected.map(({ state }) => state.name).filter((name) => !removed.includes(name)),
      removed,
      errors,
    };
  }

  private indexOf(name: string): number {
    const index = this.connections.findIndex((connection) => connection.entry.name === name);
    if (index === -1) throw new Error(`No MCP server named ${name}.`);
    return index;
  }

  states(): McpServerState[] {
    return this.connections.map((connection) => connection.state);
  }

  /**
   * The tools of every connected server, as cairn tools (`mcp__<server>__<tool>`), plus
   * `ListMcpResources` / `ReadMcpResource` when a server offers resources.
   */
  tools(): Tool[] {
    const withResources = this.connections.flatMap(({ state, client, timeoutMs, resources }) =>
      client && resources && state.status === "connected"
        ? [{ name: state.name, client, timeoutMs: timeoutMs ?? DEFAULT_MCP_CALL_TIMEOUT_MS }]
        : [],
    );
    return [...this.serverTools(), ...resourceTools(withResources)];
  }

  private serverTools(): Tool[] {
    return this.connections.flatMap(({ state, client, timeoutMs }) =>
      client && state.status === "connected"
        ? state.tools.map((info) =>
            mcpTool({
              server: state.name,
              client,
              info,
              compile: compileSchema,
              ...(timeoutMs ? { timeoutMs } : {}),
            }),
          )
        : [],
    );
  }

  async close(): Promise<void> {
    await Promise.all(
      this.connections.map(({ state, client }) => {
        if (state.status === "connected") state.status = "disabled"; // closing, not a failure
        return client?.close().catch(() => {});
      }),
    );
  }
}

async function connect(entry: McpServerEntry, options: McpHubOptions): Promise<Connection> {
  const base = { name: entry.name, source: entry.source, tools: [] as McpToolInfo[] };
  if (entry.source.level === "project" && !(options.approved?.(entry) ?? false)) {
    return {
      entry,
      state: {
        ...base,
        status: "disabled",
        error: `a project server (${entry.source.origin}) starts only when approved: pass --approve-mcps`,
      },
    };
  }
  const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
  const client = new Client({ name: "cairn", version: "1" });
  const timeoutMs = options.startupTimeoutMs ?? DEFAULT_MCP_STARTUP_TIMEOUT_MS;
  let transport: Transport | undefined;
  try {
    transport = await transportFor(entry, options);
    await withDeadline(client.connect(transport, { timeout: timeoutMs }), timeoutMs, entry.name);
    const listed = client.getServerCapabilities()?.tools
      ? await client.listTools(undefined, { timeout: timeoutMs })
      : { tools: [] };
    const version = client.getServerVersion();
    const state: McpServerState = {
      ...base,
      status: "connected",
      tools: listed.tools as McpToolInfo[],
      ...(version ? { serverInfo: { name: version.name, version: version.version } } : {}),
    };
    // A server that dies mid-run: its pending calls fail (the client rejects them), later ones too.
    client.onclose = () => {
      if (state.status !== "connected") return;
      state.status = "failed";
      state.error = "the server closed the connection";
      options.onLog?.(entry.name, state.error, "event");
    };
    const callTimeout = "timeout" in entry.config ? entry.config.timeout : undefined;
    const resources = client.getServerCapabilities()?.resources !== undefined;
    return { entry, state, client, resources, ...(callTimeout ? { timeoutMs: callTimeout } : {}) };
  } catch (error) {
    await client.close().catch(() => {});
    await transport?.close().catch(() => {});
    return { entry, state: { ...base, status: "failed", error: (error as Error).message } };
  }
}

async function transportFor(entry: McpServerEntry, options: McpHubOptions): Promise<Transport> {
  const config = entry.config;
  if (config.type === "sdk") {
    const { InMemoryTransport } = await import("@modelcontextprotocol/sdk/inMemory.js");
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await config.instance.connect(serverSide);
    return clientSide;
  }
  if (!("command" in config)) {
    const requestInit = { headers: config.headers ?? {} };
    // Through the user's proxy when one is set (src/util/network-proxy.ts).
    const fetch = networkFetch;
    if (config.type === "sse") {
      const { SSEClientTransport } = await import("@modelcontextprotocol/sdk/client/sse.js");
      return new SSEClientTransport(new URL(config.url), { requestInit, fetch });
    }
    const { StreamableHTTPClientTransport } = await import(
      "@modelcontextprotocol/sdk/client/streamableHttp.js"
    );
    return new StreamableHTTPClientTransport(new URL(config.url), { requestInit, fetch });
  }
  const { GroupStdioTransport } = await import("./stdio-transport.js");
  const cwd = config.cwd ? path.resolve(options.cwd, config.cwd) : options.cwd;
  const sandbox = entry.source.level === "project" ? options.sandbox : undefined;
  const bwrapPath = await sandboxRunner(sandbox);
  const wrapped =
    sandbox && bwrapPath
      ? bwrapCommand(sandbox, bwrapPath, [config.command, ...(config.args ?? [])], cwd)
      : undefined;
  return new GroupStdioTransport({
    command: wrapped?.file ?? config.command,
    args: wrapped?.args ?? config.args ?? [],
    ...(wrapped ? { onClose: () => wrapped.release() } : {}),
    // The server is another program: it gets no provider keys, only what its config gives it.
    env: { ...childEnvironment(options.env), ...(config.env ?? {}) },
    cwd,
    onStderr: (line) => options.onLog?.(entry.name, line, "stderr"),
  });
}

function withDeadline<T>(work: Promise<T>, ms: number, server: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`did not start within ${ms} ms`)), ms);
    timer.unref();
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(`${server}: ${String(error)}`));
      },
    );
  });
}

/** A validator per schema; a schema Ajv cannot compile is left to the server to check. */
function compileSchema(schema: Record<string, unknown>): ValidateFunction | undefined {
  try {
    return createAjv(schema).compile(schema);
  } catch {
    return undefined;
  }
}
