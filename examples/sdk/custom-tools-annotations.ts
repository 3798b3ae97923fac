// From the public agent-SDK docs, "Give Claude custom tools", section "Add tool annotations": the
// `get_temperature` tool with `readOnlyHint`, verbatim but for the import (there:
// "@anthropic-ai/claude-agent-sdk") and its binding to a name. The marked lines after it put it on a
// server and query it like the page's "Call a custom tool" section, without allowedTools: a read-only
// tool needs no rule.
// Source: https://code.claude.com/docs/en/agent-sdk/custom-tools (mirror used: github.com/thevibeworks/
// claude-code-docs, content/en/agent-sdk/custom-tools.md at 3f1ef7c). Kept out of the formatter: verbatim.
import { createSdkMcpServer, query, tool } from "cairn";
import { z } from "zod";

const readOnlyTemperature = tool(
  "get_temperature",
  "Get the current temperature at a location",
  { latitude: z.number(), longitude: z.number() },
  async (args) => ({ content: [{ type: "text", text: `...` }] }),
  { annotations: { readOnlyHint: true } } // Lets Claude batch this with other read-only calls
);

// --- glue (not from the docs) ---
const weatherServer = createSdkMcpServer({ name: "weather", version: "1.0.0", tools: [readOnlyTemperature] });

for await (const message of query({
  prompt: "What's the temperature in San Francisco?",
  options: { mcpServers: { weather: weatherServer } }
})) {
  if (message.type === "user") {
    for (const block of message.message.content) {
      if (typeof block !== "string" && block.type === "tool_result") console.log(JSON.stringify(block));
    }
  }
  if (message.type === "result") {
    console.log(`${message.subtype}: ${message.type === "result" && message.subtype === "success" ? message.result : ""}`);
  }
}
