import { type ContentBlock, RequestError } from "@agentclientprotocol/sdk";
import type { SDKUserMessage } from "../sdk/messages.js";

/** One ACP prompt as the user message that starts its turn. */
export function userMessage(text: string): SDKUserMessage {
  return { type: "user", message: { role: "user", content: text }, parent_tool_use_id: null };
}

/**
 * An ACP prompt as the text the model reads: text as is, a resource link as a Markdown link, an
 * embedded text resource (a file the editor attached) inside a `<context>` element naming its URI.
 * Images, audio and binary resources are refused (not advertised in the prompt capabilities).
 */
export function promptText(blocks: ContentBlock[]): string {
  const parts = blocks.map((block) => {
    switch (block.type) {
      case "text":
        return block.text;
      case "resource_link":
        return `[${block.name}](${block.uri})`;
      case "resource":
        if ("text" in block.resource) {
          return `<context ref="${block.resource.uri}">\n${block.resource.text}\n</context>`;
        }
        throw RequestError.invalidParams(
          { uri: block.resource.uri },
          "cairn acp takes text resources only, not binary ones",
        );
      default:
        throw RequestError.invalidParams(
          { type: block.type },
          `cairn acp does not take ${block.type} blocks in prompts (text, resource links and text resources only)`,
        );
    }
  });
  const text = parts.join("\n\n");
  if (text.trim() === "") throw RequestError.invalidParams(undefined, "the prompt is empty");
  return text;
}
