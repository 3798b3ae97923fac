// From the public agent-SDK docs, "Subagents in the SDK", section "Tool restrictions": the TypeScript
// snippet, verbatim but for the import (there: "@anthropic-ai/claude-agent-sdk").
// Source: https://code.claude.com/docs/en/agent-sdk/subagents (mirror used: github.com/thevibeworks/
// claude-code-docs, content/en/agent-sdk/subagents.md at 195a64b). Kept out of the formatter: verbatim.
import { query } from "cairn";

for await (const message of query({
  prompt: "Analyze the architecture of this codebase",
  options: {
    allowedTools: ["Read", "Grep", "Glob", "Task"],
    agents: {
      "code-analyzer": {
        description: "Static code analysis and architecture review",
        prompt: `You are a code architecture analyst. Analyze code structure,
identify patterns, and suggest improvements without making changes.`,
        // Read-only tools: no Edit, Write, or Bash access
        tools: ["Read", "Grep", "Glob"]
      }
    }
  }
})) {
  if ("result" in message) console.log(message.result);
}
