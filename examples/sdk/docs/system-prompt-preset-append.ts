// From the public agent-SDK docs, "modifying-system-prompts" page: the preset-with-append example. Verbatim but for the import
// (there: "@anthropic-ai/claude-agent-sdk") and the code block's indentation.
// Source: https://code.claude.com/docs/en/agent-sdk/modifying-system-prompts (mirror used: github.com/thevibeworks/
// claude-code-docs, content/en/agent-sdk/modifying-system-prompts.md at 3f1ef7c). Kept out of the formatter: verbatim.
import { query } from "cairn";

const messages = [];

for await (const message of query({
  prompt: "Help me write a Python function to calculate fibonacci numbers",
  options: {
    systemPrompt: {
      type: "preset",
      preset: "claude_code",
      append: "Always include detailed docstrings and type hints in Python code."
    }
  }
})) {
  messages.push(message);
  if (message.type === "assistant") {
    console.log(message.message.content);
  }
}
