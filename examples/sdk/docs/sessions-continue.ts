// From the public agent-SDK docs, "sessions" page: "Continue the most recent session" (continue: true). Verbatim but for the import
// (there: "@anthropic-ai/claude-agent-sdk") and the code block's indentation.
// Source: https://code.claude.com/docs/en/agent-sdk/sessions (mirror used: github.com/thevibeworks/
// claude-code-docs, content/en/agent-sdk/sessions.md at 3f1ef7c). Kept out of the formatter: verbatim.
import { query } from "cairn";

// First query: creates a new session
for await (const message of query({
  prompt: "Analyze the auth module",
  options: { allowedTools: ["Read", "Glob", "Grep"] }
})) {
  if (message.type === "result" && message.subtype === "success") {
    console.log(message.result);
  }
}

// Second query: continue: true resumes the most recent session
for await (const message of query({
  prompt: "Now refactor it to use JWT",
  options: {
    continue: true,
    allowedTools: ["Read", "Edit", "Write", "Glob", "Grep"]
  }
})) {
  if (message.type === "result" && message.subtype === "success") {
    console.log(message.result);
  }
}
