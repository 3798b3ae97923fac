// From the public agent-SDK docs, "cost-tracking" page: "Per-model breakdown" (result.modelUsage). Verbatim but for the import
// (there: "@anthropic-ai/claude-agent-sdk") and the code block's indentation.
// Source: https://code.claude.com/docs/en/agent-sdk/cost-tracking (mirror used: github.com/thevibeworks/
// claude-code-docs, content/en/agent-sdk/cost-tracking.md at 3f1ef7c). Kept out of the formatter: verbatim.
import { query } from "cairn";

for await (const message of query({ prompt: "Summarize this project" })) {
  if (message.type !== "result") continue;

  for (const [modelName, usage] of Object.entries(message.modelUsage)) {
    console.log(`${modelName}: $${usage.costUSD.toFixed(4)}`);
    console.log(`  Input tokens: ${usage.inputTokens}`);
    console.log(`  Output tokens: ${usage.outputTokens}`);
    console.log(`  Cache read: ${usage.cacheReadInputTokens}`);
    console.log(`  Cache creation: ${usage.cacheCreationInputTokens}`);
  }
}
