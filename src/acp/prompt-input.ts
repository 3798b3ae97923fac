import { type ContentBlock, RequestError } from "@agentclientprotocol/sdk";
import type { PromptBlock } from "../engine/messages.js";
import { IMAGE_MEDIA_TYPES } from "../engine/messages.js";
import type { PromptInput } from "../session/session.js";

/** One ACP prompt as the session's input: its text, and its blocks when it holds images or documents. */
export function promptInput(blocks: ContentBlock[]): PromptInput {
  const parts = promptBlocks(blocks);
  const text = parts.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("\n\n");
  return parts.every((part) => part.type === "text") ? { text } : { text, content: parts };
}

/**
 * An ACP prompt as the blocks the model reads: text as is, a resource link as a Markdown link, an
 * embedded text resource (a file the editor attached) inside a `<context>` element naming its URI,
 * an image as an image block, an embedded PDF (a blob resource) as a document block. Audio and other
 * binary resources are refused (audio is not advertised in the prompt capabilities).
 */
export function promptBlocks(blocks: ContentBlock[]): PromptBlock[] {
  const parts = blocks.map((block): PromptBlock => {
    switch (block.type) {
      case "text":
        return { type: "text", text: block.text };
      case "resource_link":
        return { type: "text", text: `[${block.name}](${block.uri})` };
      case "image":
        if (!(IMAGE_MEDIA_TYPES as readonly string[]).includes(block.mimeType)) {
          throw RequestError.invalidParams(
            { mimeType: block.mimeType },
            `cairn acp takes ${IMAGE_MEDIA_TYPES.join(", ")} images, not ${block.mimeType}`,
          );
        }
        return { type: "image", source: { type: "base64", media_type: block.mimeType, data: block.data } };
      case "resource": {
        const { resource } = block;
        if ("text" in resource) {
          return { type: "text", text: `<context ref="${resource.uri}">\n${resource.text}\n</context>` };
        }
        if (resource.mimeType === "application/pdf") {
          return {
            type: "document",
            source: { type: "base64", media_type: "application/pdf", data: resource.blob },
            title: resource.uri,
          };
        }
        throw RequestError.invalidParams(
          { uri: resource.uri },
          "cairn acp takes text and PDF resources only, not other binary ones",
        );
      }
      default:
        throw RequestError.invalidParams(
          { type: block.type },
          `cairn acp does not take ${block.type} blocks in prompts (text, images, resource links, text and PDF resources only)`,
        );
    }
  });
  const empty = parts.every((part) => part.type === "text" && part.text.trim() === "");
  if (empty) throw RequestError.invalidParams(undefined, "the prompt is empty");
  return parts;
}
