import path from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { ValidateFunction } from "ajv";
import { childEnvironment } from "../tools/child-env.js";
import { createAjv } from "../tools/json-schema.js";
import type { Tool } from "../tools/types.js";
import type { McpServerEntry, McpServerSource } from "./config.js";
import { type McpToolInfo, mcpTool } from "./tool-adapter.js";

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
  /** A server's log line (`stderr`: a stdio server's own stderr) or a connection problem (`event`). */
  onLog?: (server: string, line: string, kind: "stderr" | "event") => void;
};

type Connection = { state: McpServerState; client?: Client; timeoutMs?: number };

/**
 * The MCP servers of one run: connected in parallel at start, each with a deadline; a server that
 * fails is reported and left out, the run goes on. Closing the hub ends every server (stdio servers
 * with their whole process group).
 */
export class McpHub {
  private constructor(private readonly connections: Connection[]) {}

  static async start(entries: readonly McpServerEntry[], options: McpHubOptions): Promise<McpHub> {
    return new McpHub(await Promise.all(entries.map((entry) => connect(entry, options))));
  }

  states(): McpServerState[] {
    return this.connections.map((connection) => connection.state);
  }

  /** The tools of every connected server, as cairn tools (`mcp__<server>__<tool>`). */
  tools(): Tool[] {
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
    return { state, client, ...(callTimeout ? { timeoutMs: callTimeout } : {}) };
  } catch (error) {
    await client.close().catch(() => {});
    await transport?.close().catch(() => {});
    return { state: { ...base, status: "failed", error: (error as Error).message } };
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
    if (config.type === "sse") {
      const { SSEClientTransport } = await import("@modelcontextprotocol/sdk/client/sse.js");
      return new SSEClientTransport(new URL(config.url), { requestInit });
    }
    const { StreamableHTTPClientTransport } = await import(
      "@modelcontextprotocol/sdk/client/streamableHttp.js"
    );
    return new StreamableHTTPClientTransport(new URL(config.url), { requestInit });
  }
  const { GroupStdioTransport } = await import("./stdio-transport.js");
  return new GroupStdioTransport({
    command: config.command,
    args: config.args ?? [],
    // The server is another program: it gets no provider keys, only what its config gives it.
    env: { ...childEnvironment(options.env), ...(config.env ?? {}) },
    cwd: config.cwd ? path.resolve(options.cwd, config.cwd) : options.cwd,
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
