import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { SdkServerConfig } from "../mcp/config.js";
import type { Channel } from "./channel.js";

type ServerSideTransport = {
  onmessage?: (message: JSONRPCMessage) => void;
  start(): Promise<void>;
  send(message: JSONRPCMessage): Promise<void>;
  close(): Promise<void>;
};

/**
 * An in-process MCP server of the host program (`createSdkMcpServer()` in the official SDK): it lives
 * in the process that spawned cairn, so every JSON-RPC message to it travels as a `mcp_message`
 * control request, and the host's answer comes back in the control response's `mcp_response`.
 * To cairn's MCP client it is an ordinary in-process (`type: "sdk"`) server.
 */
export function bridgedServer(name: string, channel: Channel): SdkServerConfig {
  return {
    type: "sdk",
    name,
    instance: {
      async connect(transport: unknown) {
        const serverSide = transport as ServerSideTransport;
        serverSide.onmessage = (message) => {
          const isRequest = "id" in message && "method" in message;
          channel
            .request({ subtype: "mcp_message", server_name: name, message })
            .then((answer) => {
              const response = answer.mcp_response as JSONRPCMessage | undefined;
              if (isRequest && response) void serverSide.send(response);
            })
            .catch((error: unknown) => {
              if (!isRequest) return;
              void serverSide.send({
                jsonrpc: "2.0",
                id: (message as { id: string | number }).id,
                error: {
                  code: -32603,
                  message: `the host's MCP server ${name} failed: ${(error as Error).message}`,
                },
              });
            });
        };
        await serverSide.start();
      },
      async close() {},
    },
  };
}

/**
 * The query's MCP servers with the host's in-process ones bridged: those `initialize` names in
 * `sdkMcpServers` (the TypeScript SDK), and the `--mcp-config` entries `{"type": "sdk", "name": …}`
 * without a server object, which is how the Python SDK passes its `create_sdk_mcp_server()` servers
 * (claude_agent_sdk/_internal/transport/subprocess_cli.py, `_build_command`: the config minus its
 * `instance`). Either way the host answers by the entry's key, the name its tools are seen under.
 */
export function withHostServers(
  servers: Record<string, unknown> | undefined,
  sdkMcpServers: unknown,
  channel: Channel,
): Record<string, unknown> | undefined {
  const hosted = Object.entries(servers ?? {})
    .filter(([, config]) => isHostedEntry(config))
    .map(([name]) => name);
  if (Array.isArray(sdkMcpServers))
    hosted.push(...sdkMcpServers.filter((name): name is string => typeof name === "string"));
  if (hosted.length === 0) return servers;
  return { ...servers, ...Object.fromEntries(hosted.map((name) => [name, bridgedServer(name, channel)])) };
}

function isHostedEntry(config: unknown): boolean {
  const entry = config as { type?: unknown; instance?: unknown } | null;
  return typeof entry === "object" && entry !== null && entry.type === "sdk" && entry.instance === undefined;
}
