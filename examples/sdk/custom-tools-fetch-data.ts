// From the public agent-SDK docs, "Give Claude custom tools", section "Handle errors": the `fetch_data`
// tool, verbatim but for the import (there: "@anthropic-ai/claude-agent-sdk") and its binding to a name.
// The section shows the tool alone; the marked lines after it put it on a server and query it the way
// the same page's "Call a custom tool" section does with its weather server.
// Source: https://code.claude.com/docs/en/agent-sdk/custom-tools (mirror used: github.com/thevibeworks/
// claude-code-docs, content/en/agent-sdk/custom-tools.md at 3f1ef7c). Kept out of the formatter: verbatim.
import { createSdkMcpServer, query, tool } from "cairn";
import { z } from "zod";

const fetchData = tool(
  "fetch_data",
  "Fetch data from an API",
  {
    endpoint: z.string().url().describe("API endpoint URL")
  },
  async (args) => {
    try {
      const response = await fetch(args.endpoint);

      if (!response.ok) {
        // Return the failure as a tool result so Claude can react to it.
        // isError marks this as a failed call rather than odd-looking data.
        return {
          content: [
            {
              type: "text",
              text: `API error: ${response.status} ${response.statusText}`
            }
          ],
          isError: true
        };
      }

      const data = await response.json();
      return {
        content: [
          {
            type: "text",
            text: JSON.stringify(data, null, 2)
          }
        ]
      };
    } catch (error) {
      // Catching here lets you control the error message Claude sees instead
      // of surfacing the raw exception string.
      return {
        content: [
          {
            type: "text",
            text: `Failed to fetch data: ${error instanceof Error ? error.message : String(error)}`
          }
        ],
        isError: true
      };
    }
  }
);

// --- glue (not from the docs): a server for the tool, queried like the page's weather example ---
const apiServer = createSdkMcpServer({ name: "api", version: "1.0.0", tools: [fetchData] });

for await (const message of query({
  prompt: process.argv[2] ?? "Fetch the status endpoint and tell me what it says.",
  options: {
    mcpServers: { api: apiServer },
    allowedTools: ["mcp__api__fetch_data"]
  }
})) {
  if (message.type === "result" && message.subtype === "success") {
    console.log(message.result);
  }
}
