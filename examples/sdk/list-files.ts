// The original document's first example ("Enable streaming output"), unchanged but for the import.
// Run with only the environment set, e.g. ANTHROPIC_API_KEY (and ANTHROPIC_BASE_URL for another endpoint).
import { query } from "cairn";

for await (const message of query({
  prompt: "List the files in my project",
  options: {
    cwd: process.cwd(),
    includePartialMessages: true,
    allowedTools: ["Bash", "Read"],
  },
})) {
  if (message.type === "stream_event") {
    const event = message.event;
    if (event.type === "content_block_delta") {
      if (event.delta.type === "text_delta") {
        process.stdout.write(event.delta.text);
      }
    }
  }
}
