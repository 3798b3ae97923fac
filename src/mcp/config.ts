import * as z from "zod";

/**
 * MCP server configurations, in the `{"mcpServers": {name: config}}` format every agent shares
 * (Claude's `.mcp.json`, Cursor's `mcp.json`, the agent SDK's `mcpServers` option). docs/mcp.md.
 */

/**
 * Built on first use: zod takes several milliseconds to build these, which every run would pay at
 * start whether it configures MCP servers or not (docs/performance.md).
 */
function buildServerSchemas() {
  const stringMap = z.record(z.string(), z.string());
  const stdio = z.object({
    type: z.literal("stdio").optional(),
    command: z.string().min(1),
    args: z.array(z.string()).optional(),
    env: stringMap.optional(),
    cwd: z.string().optional(),
    timeout: z.number().positive().optional(),
  });
  const remote = z.object({
    type: z.enum(["http", "sse"]),
    url: z.url(),
    headers: stringMap.optional(),
    timeout: z.number().positive().optional(),
  });
  /** Cursor writes remote servers without a type: `{ "url": … }` means Streamable HTTP. */
  const untypedRemote = z.object({ url: z.url(), headers: stringMap.optional() }).transform((server) => ({
    ...server,
    type: "http" as const,
  }));
  return { stdio, remote, process: z.union([stdio, remote, untypedRemote]) };
}

type ServerSchemas = ReturnType<typeof buildServerSchemas>;
let serverSchemas: ServerSchemas | undefined;

export type StdioServerConfig = z.infer<ServerSchemas["stdio"]>;
export type RemoteServerConfig = z.infer<ServerSchemas["remote"]>;

/** An in-process server from `createSdkMcpServer()`: the MCP server object itself. */
export type SdkServerConfig = {
  type: "sdk";
  name: string;
  /** An `McpServer` of `@modelcontextprotocol/sdk` (kept untyped here: loaded lazily). */
  instance: { connect(transport: unknown): Promise<void>; close(): Promise<void> };
  timeout?: number;
};

export type McpServerConfig = StdioServerConfig | RemoteServerConfig | SdkServerConfig;

/** Where a server's configuration came from: who wrote it decides whether it may start. */
export type McpServerSource = {
  /** `user` and `flag`/`sdk` servers start; `project` ones (code from the repository) need approval. */
  level: "user" | "project" | "flag" | "sdk";
  /** The file, `--mcp-config`, or `options.mcpServers`. */
  origin: string;
};

export type McpServerEntry = { name: string; config: McpServerConfig; source: McpServerSource };

/** A server name as it appears in tool names (`mcp__<name>__<tool>`): no `__`, nothing odd. */
export const SERVER_NAME = /^[A-Za-z0-9_-]+$/;

export class McpConfigError extends Error {
  override name = "McpConfigError";
}

/** Parses one `{"mcpServers": {…}}` object (a file's content or `--mcp-config` JSON). */
export function parseMcpServers(value: unknown, source: McpServerSource): McpServerEntry[] {
  const where = source.origin;
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new McpConfigError(`${where}: must be a JSON object with "mcpServers"`);
  const servers = (value as { mcpServers?: unknown }).mcpServers;
  if (servers === undefined) return [];
  if (typeof servers !== "object" || servers === null || Array.isArray(servers))
    throw new McpConfigError(`${where}: mcpServers must be an object of server configurations`);
  return Object.entries(servers).map(([name, config]) => {
    if (!SERVER_NAME.test(name) || name.includes("__"))
      throw new McpConfigError(
        `${where}: MCP server name ${JSON.stringify(name)} may use only letters, digits, - and _`,
      );
    serverSchemas ??= buildServerSchemas();
    const parsed = serverSchemas.process.safeParse(config);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new McpConfigError(
        `${where}: mcpServers.${name}${issue.path.length ? `.${issue.path.join(".")}` : ""}: ${issue.message}`,
      );
    }
    return { name, config: parsed.data, source };
  });
}
