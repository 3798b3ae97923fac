// From the public agent-SDK docs, "overview" page: the hooks example (a PostToolUse callback appending to audit.log). Verbatim but for the import
// (there: "@anthropic-ai/claude-agent-sdk") and the code block's indentation.
// Source: https://code.claude.com/docs/en/agent-sdk/overview (mirror used: github.com/thevibeworks/
// claude-code-docs, content/en/agent-sdk/overview.md at 3f1ef7c). Kept out of the formatter: verbatim.
import { query, HookCallback } from "cairn";
import { appendFile } from "fs/promises";

const logFileChange: HookCallback = async (input) => {
  const filePath = (input as any).tool_input?.file_path ?? "unknown";
  await appendFile("./audit.log", `${new Date().toISOString()}: modified ${filePath}\n`);
  return {};
};

for await (const message of query({
  prompt: "Refactor utils.py to improve readability",
  options: {
    permissionMode: "acceptEdits",
    hooks: {
      PostToolUse: [{ matcher: "Edit|Write", hooks: [logFileChange] }]
    }
  }
})) {
  if ("result" in message) console.log(message.result);
}
