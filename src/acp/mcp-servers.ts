import { type McpServer, RequestError } from "@agentclientprotocol/sdk";
import type { McpServerConfig } from "../mcp/config.js";

/**
 * The client's MCP servers (`session/new`, `session/load`) as the query's `mcpServers`: the same
 * three transports, name/value lists turned into records. They join the servers of cairn's own
 * config files (docs/mcp.md: level "SDK"); a name given twice is an error, not a silent overwrite.
 */
export function mcpServersOf(servers: McpServer[]): Record<string, McpServerConfig> {
  const configs: Record<string, McpServerConfig> = {};
  for (const server of servers) {
    if (Object.hasOwn(configs, server.name)) {
      throw RequestError.invalidParams({ name: server.name }, `MCP server "${server.name}" is given twice`);
    }
    configs[server.name] =
      "type" in server && (server.type === "http" || server.type === "sse")
        ? { type: server.type, url: server.url, headers: record(server.headers) }
        : { type: "stdio", command: server.command, args: server.args, env: record(server.env) };
  }
  return configs;
}

function record(pairs: { name: string; value: string }[]): Record<string, string> {
  return Object.fromEntries(pairs.map((pair) => [pair.name, pair.value]));
}
