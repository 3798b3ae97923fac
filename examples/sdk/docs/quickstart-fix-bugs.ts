// From the public agent-SDK docs, "quickstart" page: the "Build your agent" loop (Read, Edit, Glob; acceptEdits). Verbatim but for the import
// (there: "@anthropic-ai/claude-agent-sdk") and the code block's indentation.
// Source: https://code.claude.com/docs/en/agent-sdk/quickstart (mirror used: github.com/thevibeworks/
// claude-code-docs, content/en/agent-sdk/quickstart.md at 3f1ef7c). Kept out of the formatter: verbatim.
import { query } from "cairn";

// Agentic loop: streams messages as Claude works
for await (const message of query({
  prompt: "Review utils.py for bugs that would cause crashes. Fix any issues you find.",
  options: {
    allowedTools: ["Read", "Edit", "Glob"], // Tools Claude can use
    permissionMode: "acceptEdits" // Auto-approve file edits
  }
})) {
  // Print human-readable output
  if (message.type === "assistant" && message.message?.content) {
    for (const block of message.message.content) {
      if ("text" in block) {
        console.log(block.text); // Claude's reasoning
      } else if ("name" in block) {
        console.log(`Tool: ${block.name}`); // Tool being called
      }
    }
  } else if (message.type === "result") {
    console.log(`Done: ${message.subtype}`); // Final result
  }
}
