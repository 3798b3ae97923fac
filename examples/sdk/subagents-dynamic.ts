// From the public agent-SDK docs, "Subagents in the SDK", section "Dynamic agent configuration": the
// TypeScript snippet, verbatim but for the import (there: "@anthropic-ai/claude-agent-sdk").
// Source: https://code.claude.com/docs/en/agent-sdk/subagents (mirror used: github.com/thevibeworks/
// claude-code-docs, content/en/agent-sdk/subagents.md at 195a64b). Kept out of the formatter: verbatim.
import { query, type AgentDefinition } from "cairn";

// Factory function that returns an AgentDefinition
// This pattern lets you customize agents based on runtime conditions
function createSecurityAgent(securityLevel: "basic" | "strict"): AgentDefinition {
  const isStrict = securityLevel === "strict";
  return {
    description: "Security code reviewer",
    // Customize the prompt based on strictness level
    prompt: `You are a ${isStrict ? "strict" : "balanced"} security reviewer...`,
    tools: ["Read", "Grep", "Glob"],
    // Key insight: use a more capable model for high-stakes reviews
    model: isStrict ? "opus" : "sonnet"
  };
}

// The agent is created at query time, so each request can use different settings
for await (const message of query({
  prompt: "Review this PR for security issues",
  options: {
    allowedTools: ["Read", "Grep", "Glob", "Task"],
    agents: {
      // Call the factory with your desired configuration
      "security-reviewer": createSecurityAgent("strict")
    }
  }
})) {
  if ("result" in message) console.log(message.result);
}
