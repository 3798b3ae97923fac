import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import * as z from "zod";
import { defineTool } from "../tools/define.js";
import type { Tool } from "../tools/types.js";
import { contentText } from "./tool-adapter.js";

/** A connected server that offers resources (MCP's `resources` capability). */
export type ResourceServer = { name: string; client: Client; timeoutMs: number };

/**
 * MCP's resources primitive as two tools, offered when any server has resources (the reference tool
 * set's `ListMcpResources` / `ReadMcpResource`). Both only read what the servers publish.
 */
export function resourceTools(servers: readonly ResourceServer[]): Tool[] {
  if (servers.length === 0) return [];
  const names = servers.map((server) => server.name);
  const find = (name: string) => servers.find((server) => server.name === name);
  const unknown = (name: string) =>
    `No MCP server named ${name} offers resources; these do: ${names.join(", ")}.`;

  const list = defineTool({
    name: "ListMcpResources",
    description: `Lists the resources the MCP servers publish (uri, name, mime type). Servers: ${names.join(", ")}.`,
    effects: { kind: "other", readOnly: true, network: false },
    input: z.object({ server: z.string().optional().describe("Only this server's resources.") }),
    async run({ server }, ctx) {
      const chosen = server === undefined ? servers : [find(server)].filter((s) => s !== undefined);
      if (chosen.length === 0) return { content: unknown(server ?? ""), isError: true };
      const listed = await Promise.all(
        chosen.map(async (entry) => {
          const { resources } = await entry.client.listResources(undefined, {
            signal: ctx.signal,
            timeout: entry.timeoutMs,
          });
          return resources.map((resource) => ({ server: entry.name, ...resource }));
        }),
      );
      const all = listed.flat();
      return {
        content: all.length === 0 ? "No resources." : JSON.stringify(all, null, 2),
        data: { resources: all },
      };
    },
  });

  const read = defineTool({
    name: "ReadMcpResource",
    description: "Reads one resource of an MCP server by its uri (see ListMcpResources).",
    effects: { kind: "other", readOnly: true, network: false },
    input: z.object({
      server: z.string().describe("The server's name."),
      uri: z.string().describe("The resource's uri."),
    }),
    async run({ server, uri }, ctx) {
      const entry = find(server);
      if (!entry) return { content: unknown(server), isError: true };
      const { contents } = await entry.client.readResource(
        { uri },
        { signal: ctx.signal, timeout: entry.timeoutMs },
      );
      return {
        content: contentText(contents.map((resource) => ({ type: "resource", resource }))),
        data: { server, uri, contents },
      };
    },
  });
  return [list, read];
}
