import { type ContentBlock, RequestError } from "@agentclientprotocol/sdk";
import type { SDKUserMessage } from "../sdk/messages.js";

/**
 * The user messages of one session, as the streaming-input iterable `query()` reads: each ACP
 * prompt pushes one, which starts one turn. `end()` lets the query finish.
 */
export class PromptInput implements AsyncIterable<SDKUserMessage> {
  private readonly queued: SDKUserMessage[] = [];
  private waiting: ((result: IteratorResult<SDKUserMessage>) => void) | undefined;
  private ended = false;

  push(text: string): void {
    const message: SDKUserMessage = {
      type: "user",
      message: { role: "user", content: text },
      parent_tool_use_id: null,
    };
    if (this.waiting) {
      this.waiting({ value: message, done: false });
      this.waiting = undefined;
    } else this.queued.push(message);
  }

  end(): void {
    this.ended = true;
    this.waiting?.({ value: undefined, done: true });
    this.waiting = undefined;
  }

  [Symbol.asyncIterator](): AsyncIterator<SDKUserMessage> {
    return {
      next: () => {
        const message = this.queued.shift();
        if (message) return Promise.resolve({ value: message, done: false });
        if (this.ended) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => {
          this.waiting = resolve;
        });
      },
      return: () => {
        this.end();
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
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
