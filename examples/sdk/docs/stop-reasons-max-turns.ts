// From the public agent-SDK docs, "stop-reasons" page: the maxTurns example (error_max_turns and stop_reason). Verbatim but for the import
// (there: "@anthropic-ai/claude-agent-sdk") and the code block's indentation.
// Source: https://code.claude.com/docs/en/agent-sdk/stop-reasons (mirror used: github.com/thevibeworks/
// claude-code-docs, content/en/agent-sdk/stop-reasons.md at 3f1ef7c). Kept out of the formatter: verbatim.
import { query } from "cairn";

for await (const message of query({
  prompt: "Refactor this module",
  options: { maxTurns: 3 }
})) {
  if (message.type === "result" && message.subtype === "error_max_turns") {
    console.log("Hit turn limit. Last stop reason:", message.stop_reason);
    // stop_reason might be "end_turn" or "tool_use"
    // depending on what the model was doing when the limit hit
  }
}
