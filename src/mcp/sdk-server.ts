import type { CallToolResult, ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import type { SdkServerConfig } from "./config.js";

/**
 * In-process custom tools, as the public agent-SDK convention defines them: `tool()` describes one
 * tool with a zod raw shape (zod 3 or 4) and an async handler returning MCP's `CallToolResult`;
 * `createSdkMcpServer()` puts tools on a real MCP server (`@modelcontextprotocol/sdk`'s
 * `McpServer`) that `options.mcpServers` connects in-process. The model sees `mcp__<server>__<tool>`.
 */

/** A zod raw shape, of zod 3 or zod 4 (`{ a: z.number() }`). */
// biome-ignore lint/suspicious/noExplicitAny: both zod majors' schema types are accepted
export type AnyZodRawShape = Record<string, any>;
export type InferShape<T extends AnyZodRawShape> = {
  [K in keyof T]: T[K] extends { _output: infer O } ? O : never;
} & {};

export type SdkMcpToolDefinition<Schema extends AnyZodRawShape = AnyZodRawShape> = {
  name: string;
  description: string;
  inputSchema: Schema;
  annotations?: ToolAnnotations;
  _meta?: Record<string, unknown>;
  handler: (args: InferShape<Schema>, extra: unknown) => Promise<CallToolResult>;
};

export function tool<Schema extends AnyZodRawShape>(
  name: string,
  description: string,
  inputSchema: Schema,
  handler: (args: InferShape<Schema>, extra: unknown) => Promise<CallToolResult>,
  extras?: { annotations?: ToolAnnotations; searchHint?: string; alwaysLoad?: boolean },
): SdkMcpToolDefinition<Schema> {
  const meta: Record<string, unknown> = {};
  if (extras?.searchHint !== undefined) meta["anthropic/searchHint"] = extras.searchHint;
  if (extras?.alwaysLoad !== undefined) meta["anthropic/alwaysLoad"] = extras.alwaysLoad;
  return {
    name,
    description,
    inputSchema,
    handler,
    ...(extras?.annotations ? { annotations: extras.annotations } : {}),
    ...(Object.keys(meta).length > 0 ? { _meta: meta } : {}),
  };
}

export type CreateSdkMcpServerOptions = {
  name: string;
  /** Default "1.0.0". */
  version?: string;
  instructions?: string;
  // biome-ignore lint/suspicious/noExplicitAny: tools of any shape share one list
  tools?: Array<SdkMcpToolDefinition<any>>;
  alwaysLoad?: boolean;
  /** How long one call may take, in ms. */
  timeout?: number;
};

export type McpSdkServerConfigWithInstance = SdkServerConfig & { instance: SdkServerInstance };

type McpServer = import("@modelcontextprotocol/sdk/server/mcp.js").McpServer;

/**
 * The in-process server. The MCP SDK's `McpServer` costs ~150 ms to load, so it is built when the
 * query first connects to it, not when the program calls `createSdkMcpServer()` (a program that
 * never runs a query pays nothing); `server()` gives the `McpServer` itself.
 */
export class SdkServerInstance {
  private built: Promise<McpServer> | undefined;

  constructor(private readonly options: CreateSdkMcpServerOptions) {}

  server(): Promise<McpServer> {
    this.built ??= buildServer(this.options);
    return this.built;
  }

  async connect(transport: unknown): Promise<void> {
    const server = await this.server();
    await server.connect(transport as Parameters<McpServer["connect"]>[0]);
  }

  async close(): Promise<void> {
    if (this.built) await (await this.built).close();
  }
}

export function createSdkMcpServer(options: CreateSdkMcpServerOptions): McpSdkServerConfigWithInstance {
  return {
    type: "sdk",
    name: options.name,
    instance: new SdkServerInstance(options),
    ...(options.timeout !== undefined ? { timeout: options.timeout } : {}),
  };
}

async function buildServer(options: CreateSdkMcpServerOptions): Promise<McpServer> {
  const { McpServer } = await import("@modelcontextprotocol/sdk/server/mcp.js");
  const server = new McpServer(
    { name: options.name, version: options.version ?? "1.0.0" },
    { capabilities: { tools: {} }, ...(options.instructions ? { instructions: options.instructions } : {}) },
  );
  for (const definition of options.tools ?? []) {
    server.registerTool(
      definition.name,
      {
        description: definition.description,
        inputSchema: definition.inputSchema,
        ...(definition.annotations ? { annotations: definition.annotations } : {}),
        ...(definition._meta ? { _meta: definition._meta } : {}),
      },
      // A handler that throws becomes an is_error result the model reads (McpServer does that).
      // biome-ignore lint/suspicious/noExplicitAny: the handler's args are typed by its own schema
      (args: any, extra: unknown) => definition.handler(args, extra),
    );
  }
  return server;
}
