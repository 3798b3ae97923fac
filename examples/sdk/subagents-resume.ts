// From the public agent-SDK docs, "Subagents in the SDK", section "Resuming subagents": the
// TypeScript snippet, verbatim but for the import (there: "@anthropic-ai/claude-agent-sdk").
// Source: https://code.claude.com/docs/en/agent-sdk/subagents (mirror used: github.com/thevibeworks/
// claude-code-docs, content/en/agent-sdk/subagents.md at 195a64b). Kept out of the formatter: verbatim.
import { query, type SDKMessage } from "cairn";

// Helper to extract agentId from message content
// Stringify to avoid traversing different block types (TextBlock, ToolResultBlock, etc.)
function extractAgentId(message: SDKMessage): string | undefined {
  if (!("message" in message)) return undefined;
  // Stringify the content so we can search it without traversing nested blocks
  const content = JSON.stringify(message.message.content);
  const match = content.match(/agentId:\s*([a-f0-9-]+)/);
  return match?.[1];
}

let agentId: string | undefined;
let sessionId: string | undefined;

// First invocation - use the Explore agent to find API endpoints
for await (const message of query({
  prompt: "Use the Explore agent to find all API endpoints in this codebase",
  options: { allowedTools: ["Read", "Grep", "Glob", "Task"] }
})) {
  // Capture session_id from ResultMessage (needed to resume this session)
  if ("session_id" in message) sessionId = message.session_id;
  // Search message content for the agentId (appears in Task tool results)
  const extractedId = extractAgentId(message);
  if (extractedId) agentId = extractedId;
  // Print the final result
  if ("result" in message) console.log(message.result);
}

// Second invocation - resume and ask follow-up
if (agentId && sessionId) {
  for await (const message of query({
    prompt: `Resume agent ${agentId} and list the top 3 most complex endpoints`,
    options: { allowedTools: ["Read", "Grep", "Glob", "Task"], resume: sessionId }
  })) {
    if ("result" in message) console.log(message.result);
  }
}
