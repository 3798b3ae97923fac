/**
 * The conversation and stream shapes the engine speaks internally.
 *
 * They are Anthropic Messages API shapes on purpose: the SDK must expose exactly these raw stream
 * events inside `stream_event`, so every other wire API is translated into them at the provider edge.
 * They are declared here (not imported from `@anthropic-ai/sdk`) so the engine and the CLI start-up
 * path never load a provider client.
 */

/** A passage of a web search result a text block cites (Anthropic's server-side web search). */
export type WebSearchCitation = {
  type: "web_search_result_location";
  url: string;
  title: string | null;
  cited_text: string;
  /** Opaque; sent back as received. */
  encrypted_index: string;
};
/** `citations`: the sources the provider's server-side web search attached to this text. */
export type TextBlock = { type: "text"; text: string; citations?: WebSearchCitation[] | null };
export type ThinkingBlock = { type: "thinking"; thinking: string; signature?: string };
export type RedactedThinkingBlock = { type: "redacted_thinking"; data: string };
export type ToolUseBlock = { type: "tool_use"; id: string; name: string; input: Record<string, unknown> };
/** Where an image's or document's bytes are: inline (base64) or at a URL the provider fetches. */
export type MediaSource = { type: "base64"; media_type: string; data: string } | { type: "url"; url: string };
/** An image the model sees (png, jpeg, gif, webp). */
export type ImageBlock = { type: "image"; source: MediaSource };
/** A document the model reads (a PDF; plain text as `{type: "text", media_type: "text/plain", data}`). */
export type DocumentBlock = {
  type: "document";
  source: MediaSource | { type: "text"; media_type: "text/plain"; data: string };
  title?: string;
};
/** Images and documents: what a prompt or a tool result can carry besides text. */
export type MediaBlock = ImageBlock | DocumentBlock;
/** One block of a prompt: text, an image or a document. */
export type PromptBlock = TextBlock | MediaBlock;

export type ToolResultBlock = {
  type: "tool_result";
  tool_use_id: string;
  content: string | PromptBlock[];
  is_error?: boolean;
};

/**
 * A tool the provider ran on its side (Anthropic's `server_tool_use`; cairn asks only for
 * `web_search`, and maps OpenAI Responses' `web_search_call` to it). Never run by cairn; kept in
 * the history and sent back as received, with the result block after it.
 */
export type ServerToolUseBlock = {
  type: "server_tool_use";
  id: string;
  name: string;
  input: Record<string, unknown>;
  /** Fields the provider adds (`caller`): kept and sent back verbatim. */
  [extra: string]: unknown;
};
/** One page a server-side web search found. `encrypted_content` is opaque and must be sent back. */
export type WebSearchResult = {
  type: "web_search_result";
  url: string;
  title: string;
  encrypted_content: string;
  page_age?: string | null;
};
/** The search failed on the provider's side (`max_uses_exceeded`, `unavailable`, …). */
export type WebSearchToolResultError = { type: "web_search_tool_result_error"; error_code: string };
/** The result of a `server_tool_use` web search, as the provider sent it. */
export type WebSearchToolResultBlock = {
  type: "web_search_tool_result";
  tool_use_id: string;
  content: WebSearchResult[] | WebSearchToolResultError;
  [extra: string]: unknown;
};

export type AssistantContentBlock =
  | TextBlock
  | ThinkingBlock
  | RedactedThinkingBlock
  | ToolUseBlock
  | ServerToolUseBlock
  | WebSearchToolResultBlock;
export type UserContentBlock = TextBlock | MediaBlock | ToolResultBlock;

export function isMediaBlock(block: { type: string }): block is MediaBlock {
  return block.type === "image" || block.type === "document";
}

export type ConversationMessage =
  | { role: "user"; content: string | UserContentBlock[] }
  | { role: "assistant"; content: AssistantContentBlock[] };

/** Token usage of one model call, Anthropic naming. `input_tokens` excludes cache reads and writes. */
export type Usage = {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  /** Searches the provider ran for the call (billed per search by Anthropic). */
  server_tool_use?: { web_search_requests: number } | null;
};

export type StopReason = "end_turn" | "max_tokens" | "stop_sequence" | "tool_use" | "pause_turn" | "refusal";

export type StreamedMessage = {
  id: string;
  type: "message";
  role: "assistant";
  model: string;
  content: AssistantContentBlock[];
  stop_reason: StopReason | null;
  stop_sequence: string | null;
  usage: Usage;
};

/** Block as announced by `content_block_start` (text/thinking start empty, tool_use input starts `{}`). */
export type StartedBlock = AssistantContentBlock;

export type BlockDelta =
  | { type: "text_delta"; text: string }
  | { type: "thinking_delta"; thinking: string }
  | { type: "signature_delta"; signature: string }
  | { type: "input_json_delta"; partial_json: string }
  | { type: "citations_delta"; citation: WebSearchCitation };

/** The raw Anthropic streaming events. Every provider yields exactly these. */
export type ModelStreamEvent =
  | { type: "message_start"; message: StreamedMessage }
  | { type: "content_block_start"; index: number; content_block: StartedBlock }
  | { type: "content_block_delta"; index: number; delta: BlockDelta }
  | { type: "content_block_stop"; index: number }
  | {
      type: "message_delta";
      delta: { stop_reason: StopReason | null; stop_sequence?: string | null };
      usage: Partial<Usage> & { output_tokens: number };
    }
  | { type: "message_stop" };

export function emptyUsage(): Usage {
  return { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
}

export function addUsage(total: Usage, add: Partial<Usage>): Usage {
  return {
    input_tokens: total.input_tokens + (add.input_tokens ?? 0),
    output_tokens: total.output_tokens + (add.output_tokens ?? 0),
    cache_read_input_tokens: (total.cache_read_input_tokens ?? 0) + (add.cache_read_input_tokens ?? 0),
    cache_creation_input_tokens:
      (total.cache_creation_input_tokens ?? 0) + (add.cache_creation_input_tokens ?? 0),
    ...webSearchesOf(total, add),
  };
}

/** `server_tool_use` of two usages added, when either has searches (absent otherwise). */
function webSearchesOf(total: Partial<Usage>, add: Partial<Usage>): Pick<Usage, "server_tool_use"> {
  const searches =
    (total.server_tool_use?.web_search_requests ?? 0) + (add.server_tool_use?.web_search_requests ?? 0);
  return searches > 0 ? { server_tool_use: { web_search_requests: searches } } : {};
}

/** Adds call costs; once any call's cost is unknown the total is unknown too. */
export function addCost(total: number | undefined, call: number | undefined): number | undefined {
  return total === undefined || call === undefined ? undefined : total + call;
}

/** How a media block reads where only text fits (a summary, a text-only wire, an editor's log). */
export function mediaPlaceholder(block: MediaBlock): string {
  const type = block.source.type === "url" ? block.source.url : block.source.media_type;
  return block.type === "image"
    ? `[image: ${type}]`
    : `[document${block.title ? ` ${block.title}` : ""}: ${type}]`;
}

/** The text of a tool result's (or prompt's) content, media blocks as placeholders. */
export function contentText(content: string | readonly PromptBlock[], separator = "\n"): string {
  if (typeof content === "string") return content;
  return content
    .map((block) => (block.type === "text" ? block.text : mediaPlaceholder(block)))
    .join(separator);
}

/** The image types every provider with vision takes (Anthropic's and OpenAI's lists agree). */
export const IMAGE_MEDIA_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp"] as const;
