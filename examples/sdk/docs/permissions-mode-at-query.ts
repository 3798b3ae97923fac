// From the public agent-SDK docs, "permissions" page: "Set permission mode at query time". Verbatim but for the import
// (there: "@anthropic-ai/claude-agent-sdk") and the code block's indentation.
// Source: https://code.claude.com/docs/en/agent-sdk/permissions (mirror used: github.com/thevibeworks/
// claude-code-docs, content/en/agent-sdk/permissions.md at 3f1ef7c). Kept out of the formatter: verbatim.
import { query } from "cairn";

async function main() {
  for await (const message of query({
    prompt: "Help me refactor this code",
    options: {
      permissionMode: "default" // Set the mode here
    }
  })) {
    if ("result" in message) {
      console.log(message.result);
    }
  }
}

main();
