import type { ChatCompletionContentPart } from "openai/resources/chat/completions";
import type { ResponseInputContent } from "openai/resources/responses/responses";
import type { MediaBlock, PromptBlock } from "../engine/messages.js";
import { ProviderError } from "./types.js";

/**
 * Images and documents on the OpenAI wires. Both take inline bytes as a data URL; Responses also
 * takes URLs for files, Chat Completions only inline files. A plain-text document is sent as text.
 */

/** The block's bytes as a data URL, or its URL. */
function mediaUrl(block: MediaBlock): string {
  const { source } = block;
  if (source.type === "url") return source.url;
  return `data:${source.media_type};base64,${source.data}`;
}

function documentName(block: MediaBlock): string {
  if (block.type === "document" && block.title) return block.title;
  return "document.pdf";
}

/** One prompt block as a Responses input content part. */
export function responsesPart(block: PromptBlock): ResponseInputContent {
  if (block.type === "text") return { type: "input_text", text: block.text };
  if (block.type === "image") return { type: "input_image", image_url: mediaUrl(block), detail: "auto" };
  if (block.source.type === "text") return { type: "input_text", text: block.source.data };
  if (block.source.type === "url") return { type: "input_file", file_url: block.source.url };
  return { type: "input_file", filename: documentName(block), file_data: mediaUrl(block) };
}

/** One prompt block as a Chat Completions user content part. */
export function chatPart(block: PromptBlock, server: string): ChatCompletionContentPart {
  if (block.type === "text") return { type: "text", text: block.text };
  if (block.type === "image") return { type: "image_url", image_url: { url: mediaUrl(block) } };
  if (block.source.type === "text") return { type: "text", text: block.source.data };
  if (block.source.type === "url") {
    throw new ProviderError(
      `${server} takes documents inline only (Chat Completions has no file URLs): send the PDF as base64.`,
      400,
      { retryable: false },
    );
  }
  return { type: "file", file: { filename: documentName(block), file_data: mediaUrl(block) } };
}
