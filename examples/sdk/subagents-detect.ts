// From the public agent-SDK docs, "Subagents in the SDK", section "Detecting subagent invocation": the
// TypeScript snippet, verbatim but for the import (there: "@anthropic-ai/claude-agent-sdk").
// Source: https://code.claude.com/docs/en/agent-sdk/subagents (mirror used: github.com/thevibeworks/
// claude-code-docs, content/en/agent-sdk/subagents.md at 195a64b). Kept out of the formatter: verbatim.
import { query } from "cairn";

for await (const message of query({
  prompt: "Use the code-reviewer agent to review this codebase",
  options: {
    allowedTools: ["Read", "Glob", "Grep", "Task"],
    agents: {
      "code-reviewer": {
        description: "Expert code reviewer.",
        prompt: "Analyze code quality and suggest improvements.",
        tools: ["Read", "Glob", "Grep"]
      }
    }
  }
})) {
  const msg = message as any;

  // Check for subagent invocation in message content
  for (const block of msg.message?.content ?? []) {
    if (block.type === "tool_use" && block.name === "Task") {
      console.log(`Subagent invoked: ${block.input.subagent_type}`);
    }
  }

  // Check if this message is from within a subagent's context
  if (msg.parent_tool_use_id) {
    console.log("  (running inside subagent)");
  }

  if ("result" in message) {
    console.log(message.result);
  }
}
