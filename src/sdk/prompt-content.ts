import {
  type DocumentBlock,
  IMAGE_MEDIA_TYPES,
  type MediaSource,
  type PromptBlock,
} from "../engine/messages.js";

/**
 * One user prompt as the engine takes it: its text (what hooks, `/compact` and the events see) and,
 * when it holds images or documents, all its blocks in order (what the model is sent).
 */
export type UserPrompt = { text: string; content?: PromptBlock[] };

/**
 * The prompt of a user message's `content`: a string, or text / image / document blocks in the
 * convention's (Anthropic) shapes. Anything else is a TypeError naming the block, so a program learns
 * at once what cairn cannot send rather than the model silently missing part of its prompt.
 */
export function userPrompt(content: unknown, where: string): UserPrompt {
  if (typeof content === "string") return { text: content };
  if (!Array.isArray(content))
    throw new TypeError(`${where}: content must be a string or an array of blocks.`);
  const blocks = content.map((block, index) => promptBlock(block, `${where}: content[${index}]`));
  const text = blocks.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("\n\n");
  return blocks.some((block) => block.type !== "text") ? { text, content: blocks } : { text };
}

function promptBlock(block: unknown, where: string): PromptBlock {
  const value = (block ?? {}) as Record<string, unknown>;
  switch (value.type) {
    case "text":
      if (typeof value.text !== "string")
        throw new TypeError(`${where}: a text block needs a string "text".`);
      return { type: "text", text: value.text };
    case "image":
      // Only a document source can be text, so an image's is a MediaSource.
      return { type: "image", source: mediaSource(value.source, where, "image") as MediaSource };
    case "document": {
      const doc: DocumentBlock = { type: "document", source: mediaSource(value.source, where, "document") };
      return typeof value.title === "string" ? { ...doc, title: value.title } : doc;
    }
    default:
      throw new TypeError(
        `${where}: blocks of type "${String(value.type)}" are not supported in prompts (text, image and document are).`,
      );
  }
}

function mediaSource(source: unknown, where: string, kind: "image" | "document"): DocumentBlock["source"] {
  const value = (source ?? {}) as Record<string, unknown>;
  if (value.type === "url" && typeof value.url === "string") return { type: "url", url: value.url };
  if (value.type === "base64" && typeof value.data === "string" && typeof value.media_type === "string") {
    const allowed: readonly string[] = kind === "image" ? IMAGE_MEDIA_TYPES : ["application/pdf"];
    if (!allowed.includes(value.media_type)) {
      throw new TypeError(
        `${where}: ${kind} media_type "${value.media_type}" is not one of ${allowed.join(", ")}.`,
      );
    }
    return { type: "base64", media_type: value.media_type, data: value.data };
  }
  if (kind === "document" && value.type === "text" && typeof value.data === "string") {
    return { type: "text", media_type: "text/plain", data: value.data };
  }
  throw new TypeError(
    `${where}: an ${kind} block needs source {type: "base64", media_type, data} or {type: "url", url}.`,
  );
}
