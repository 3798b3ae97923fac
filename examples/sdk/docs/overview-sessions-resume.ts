// From the public agent-SDK docs, "overview" page: the sessions example (capture the id from system/init, then resume). Verbatim but for the import
// (there: "@anthropic-ai/claude-agent-sdk") and the code block's indentation.
// Source: https://code.claude.com/docs/en/agent-sdk/overview (mirror used: github.com/thevibeworks/
// claude-code-docs, content/en/agent-sdk/overview.md at 3f1ef7c). Kept out of the formatter: verbatim.
import { query } from "cairn";

let sessionId: string | undefined;

// First query: capture the session ID
for await (const message of query({
  prompt: "Read the authentication module",
  options: { allowedTools: ["Read", "Glob"] }
})) {
  if (message.type === "system" && message.subtype === "init") {
    sessionId = message.session_id;
  }
}

// Resume with full context from the first query
for await (const message of query({
  prompt: "Now find all places that call it", // "it" = auth module
  options: { resume: sessionId }
})) {
  if ("result" in message) console.log(message.result);
}
