import { createServer } from "node:net";
import { fileURLToPath } from "node:url";

/** The real MCP server from npm (`@modelcontextprotocol/server-everything`), started with node. */
export const EVERYTHING = fileURLToPath(
  new URL("../../node_modules/@modelcontextprotocol/server-everything/dist/index.js", import.meta.url),
);
/** test/fixtures/mcp-fixture-server.mjs: crash, slow, spawn_child, read_note, write_note. */
export const FIXTURE = fileURLToPath(new URL("../fixtures/mcp-fixture-server.mjs", import.meta.url));

export function stdioServer(script: string, env?: Record<string, string>) {
  return { command: process.execPath, args: [script], ...(env ? { env } : {}) };
}

/** `--mcp-config` JSON for these servers. */
export function mcpConfig(servers: Record<string, unknown>): string {
  return JSON.stringify({ mcpServers: servers });
}

/** A port that was free a moment ago (for a server that only takes PORT from its environment). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}
