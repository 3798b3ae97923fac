// From the public agent-SDK docs, "permissions" page: "Change mode during streaming" (setPermissionMode). Verbatim but for the import
// (there: "@anthropic-ai/claude-agent-sdk") and the code block's indentation.
// Source: https://code.claude.com/docs/en/agent-sdk/permissions (mirror used: github.com/thevibeworks/
// claude-code-docs, content/en/agent-sdk/permissions.md at 3f1ef7c). Kept out of the formatter: verbatim.
import { query } from "cairn";

async function main() {
  const q = query({
    prompt: "Help me refactor this code",
    options: {
      permissionMode: "default" // Start in default mode
    }
  });

  // Change mode dynamically mid-session
  await q.setPermissionMode("acceptEdits");

  // Process messages with the new permission mode
  for await (const message of q) {
    if ("result" in message) {
      console.log(message.result);
    }
  }
}

main();
