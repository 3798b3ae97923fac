// From the public agent-SDK docs, "sessions" page: "Capture the session ID" (from the result message). Verbatim but for the import
// (there: "@anthropic-ai/claude-agent-sdk") and the code block's indentation.
// Source: https://code.claude.com/docs/en/agent-sdk/sessions (mirror used: github.com/thevibeworks/
// claude-code-docs, content/en/agent-sdk/sessions.md at 3f1ef7c). Kept out of the formatter: verbatim.
import { query } from "cairn";

let sessionId: string | undefined;

for await (const message of query({
  prompt: "Analyze the auth module and suggest improvements",
  options: { allowedTools: ["Read", "Glob", "Grep"] }
})) {
  if (message.type === "result") {
    sessionId = message.session_id;
    if (message.subtype === "success") {
      console.log(message.result);
    }
  }
}

console.log(`Session ID: ${sessionId}`);
