// From the public agent-SDK docs, "streaming-vs-single-mode" page: "Single Message Input" (one-shot, then continue: true). Verbatim but for the import
// (there: "@anthropic-ai/claude-agent-sdk") and the code block's indentation.
// Source: https://code.claude.com/docs/en/agent-sdk/streaming-vs-single-mode (mirror used: github.com/thevibeworks/
// claude-code-docs, content/en/agent-sdk/streaming-vs-single-mode.md at 3f1ef7c). Kept out of the formatter: verbatim.
import { query } from "cairn";

// Simple one-shot query
for await (const message of query({
  prompt: "Explain the authentication flow",
  options: {
    maxTurns: 1,
    allowedTools: ["Read", "Grep"]
  }
})) {
  if (message.type === "result") {
    console.log(message.result);
  }
}

// Continue conversation with session management
for await (const message of query({
  prompt: "Now explain the authorization process",
  options: {
    continue: true,
    maxTurns: 1
  }
})) {
  if (message.type === "result") {
    console.log(message.result);
  }
}
