import type {
  ModelStreamEvent,
  StopReason,
  Usage,
  WebSearchCitation,
  WebSearchResult,
} from "../engine/messages.js";

/**
 * A scenario scripts the model's side of a conversation: one step per model call, in order.
 * The same format drives the scripted model server (tests, over real HTTP) and the offline
 * `replay:` model. The JSON file form is documented in docs/scenarios.md.
 */
export type Scenario = {
  version: 1;
  description?: string;
  /** Model id the server reports in `message_start` (default "scripted-model"). */
  model?: string;
  /** Text and tool-input deltas are cut into chunks of this many characters (default 16). */
  chunkSize?: number;
  steps: ScenarioStep[];
};

export type ScenarioBlock =
  | { type: "text"; text: string; citations?: ScriptedCitation[] }
  | { type: "thinking"; thinking: string }
  | { type: "tool_use"; name: string; input: Record<string, unknown>; id?: string }
  | ScriptedWebSearch;

/**
 * A search the provider runs on its side (scripted server only): on the Anthropic wire a
 * `server_tool_use` block and its `web_search_tool_result`; on the Responses wire a
 * `web_search_call` output item. `error`: the search failed with that code.
 */
export type ScriptedWebSearch = {
  type: "web_search";
  query: string;
  results: { url: string; title: string; page_age?: string | null }[];
  error?: string;
  id?: string;
};

/** A source a text block cites (Anthropic `citations_delta`; Responses `url_citation`). */
export type ScriptedCitation = { url: string; title: string; cited_text: string };

/** The opaque content the scripted server sends for a result (a real server's is encrypted). */
export function scriptedEncryptedContent(url: string): string {
  return `enc:${Buffer.from(url).toString("base64")}`;
}

export type ReplyStep = {
  kind: "reply";
  content: ScenarioBlock[];
  /** Default: "tool_use" when the reply calls a tool, else "end_turn". */
  stopReason?: StopReason;
  usage?: Partial<Usage>;
  /** Fault: the connection is cut after this many stream events have been sent. */
  cutAfterEvents?: number;
  /** Fault: the stream pauses `ms` after `afterEvents` events, then goes on. */
  stall?: { afterEvents: number; ms: number };
  /** Pause before each delta event (simulates a slow model). */
  delayPerEventMs?: number;
  /** Extra HTTP response headers of the scripted server (e.g. `anthropic-ratelimit-*`). */
  headers?: Record<string, string>;
};

/** Fault: the request is answered with an HTTP error (the next step answers the retry). */
export type ErrorStep = {
  kind: "error";
  status: number;
  /** Seconds, sent as the Retry-After header. */
  retryAfter?: number;
  message?: string;
  errorType?: string;
};

/** Fault: the server accepts the request and never answers. */
export type HangStep = { kind: "hang" };

export type ScenarioStep = ReplyStep | ErrorStep | HangStep;

export const DEFAULT_CHUNK_SIZE = 16;
export const DEFAULT_SCENARIO_MODEL = "scripted-model";

/** Fluent builder: `reply().thinking("…").text("…").tool("Read", { file_path: "a.txt" })`. */
export class ReplyBuilder {
  readonly step: ReplyStep = { kind: "reply", content: [] };

  text(text: string, citations?: ScriptedCitation[]): this {
    this.step.content.push({ type: "text", text, ...(citations ? { citations } : {}) });
    return this;
  }
  /** A search the provider runs itself (`results`, or `{ error: "max_uses_exceeded" }`). */
  webSearch(query: string, results: ScriptedWebSearch["results"] | { error: string }, id?: string): this {
    this.step.content.push({
      type: "web_search",
      query,
      ...(Array.isArray(results) ? { results } : { results: [], error: results.error }),
      ...(id ? { id } : {}),
    });
    return this;
  }
  thinking(thinking: string): this {
    this.step.content.push({ type: "thinking", thinking });
    return this;
  }
  tool(name: string, input: Record<string, unknown>, id?: string): this {
    this.step.content.push({ type: "tool_use", name, input, ...(id ? { id } : {}) });
    return this;
  }
  stopReason(reason: StopReason): this {
    this.step.stopReason = reason;
    return this;
  }
  usage(usage: Partial<Usage>): this {
    this.step.usage = usage;
    return this;
  }
  cutAfterEvents(count: number): this {
    this.step.cutAfterEvents = count;
    return this;
  }
  stall(afterEvents: number, ms: number): this {
    this.step.stall = { afterEvents, ms };
    return this;
  }
  delayPerEvent(ms: number): this {
    this.step.delayPerEventMs = ms;
    return this;
  }
  headers(headers: Record<string, string>): this {
    this.step.headers = { ...this.step.headers, ...headers };
    return this;
  }
}

export function reply(): ReplyBuilder {
  return new ReplyBuilder();
}

export function httpError(status: number, options: Omit<ErrorStep, "kind" | "status"> = {}): ErrorStep {
  return { kind: "error", status, ...options };
}

export function hang(): HangStep {
  return { kind: "hang" };
}

export type StepInput = ScenarioStep | ReplyBuilder;

export function toStep(input: StepInput): ScenarioStep {
  return input instanceof ReplyBuilder ? input.step : input;
}

export type ReplyRenderOptions = {
  chunkSize: number;
  model: string;
  messageId: string;
  /** Tool-use ids for blocks that have none. Must be unique within a session. */
  toolUseId: (blockIndex: number) => string;
  inputTokens: number;
};

/** Renders a reply step as the exact Anthropic stream events a real server would send. */
export function renderReplyEvents(step: ReplyStep, options: ReplyRenderOptions): ModelStreamEvent[] {
  const events: ModelStreamEvent[] = [];
  const hasTool = step.content.some((block) => block.type === "tool_use");
  const usage: Usage = {
    input_tokens: step.usage?.input_tokens ?? options.inputTokens,
    output_tokens: 0,
    cache_read_input_tokens: step.usage?.cache_read_input_tokens ?? 0,
    cache_creation_input_tokens: step.usage?.cache_creation_input_tokens ?? 0,
  };
  events.push({
    type: "message_start",
    message: {
      id: options.messageId,
      type: "message",
      role: "assistant",
      model: options.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...usage, output_tokens: 1 },
    },
  });
  let outputChars = 0;
  let index = -1;
  for (const block of step.content) {
    index++;
    if (block.type === "web_search") {
      index = webSearchEvents(block, index, options, events);
      continue;
    }
    if (block.type === "text") {
      events.push({ type: "content_block_start", index, content_block: { type: "text", text: "" } });
      for (const citation of block.citations ?? []) {
        events.push({
          type: "content_block_delta",
          index,
          delta: { type: "citations_delta", citation: citationOf(citation) },
        });
      }
      for (const chunk of chunkText(block.text, options.chunkSize)) {
        events.push({ type: "content_block_delta", index, delta: { type: "text_delta", text: chunk } });
      }
      outputChars += block.text.length;
    } else if (block.type === "thinking") {
      events.push({
        type: "content_block_start",
        index,
        content_block: { type: "thinking", thinking: "", signature: "" },
      });
      for (const chunk of chunkText(block.thinking, options.chunkSize)) {
        events.push({
          type: "content_block_delta",
          index,
          delta: { type: "thinking_delta", thinking: chunk },
        });
      }
      events.push({
        type: "content_block_delta",
        index,
        delta: { type: "signature_delta", signature: "scripted" },
      });
      outputChars += block.thinking.length;
    } else {
      const id = block.id ?? options.toolUseId(index);
      events.push({
        type: "content_block_start",
        index,
        content_block: { type: "tool_use", id, name: block.name, input: {} },
      });
      const json = JSON.stringify(block.input);
      for (const chunk of chunkText(json, options.chunkSize)) {
        events.push({
          type: "content_block_delta",
          index,
          delta: { type: "input_json_delta", partial_json: chunk },
        });
      }
      outputChars += json.length;
    }
    events.push({ type: "content_block_stop", index });
  }
  const searches = step.content.filter((block) => block.type === "web_search").length;
  events.push({
    type: "message_delta",
    delta: { stop_reason: step.stopReason ?? (hasTool ? "tool_use" : "end_turn"), stop_sequence: null },
    usage: {
      output_tokens: step.usage?.output_tokens ?? Math.max(1, Math.ceil(outputChars / 4)),
      ...(searches > 0 ? { server_tool_use: { web_search_requests: searches } } : {}),
    },
  });
  events.push({ type: "message_stop" });
  return events;
}

/**
 * A scripted search as the Messages API streams it: the `server_tool_use` block (its input as
 * `input_json_delta`), then the `web_search_tool_result` block whole in its start event. Returns
 * the index of the last block.
 */
function webSearchEvents(
  block: ScriptedWebSearch,
  index: number,
  options: ReplyRenderOptions,
  events: ModelStreamEvent[],
): number {
  const id = block.id ?? options.toolUseId(index).replace(/^toolu_/, "srvtoolu_");
  events.push({
    type: "content_block_start",
    index,
    content_block: { type: "server_tool_use", id, name: "web_search", input: {} },
  });
  events.push({
    type: "content_block_delta",
    index,
    delta: { type: "input_json_delta", partial_json: JSON.stringify({ query: block.query }) },
  });
  events.push({ type: "content_block_stop", index });
  const content: WebSearchResult[] | { type: "web_search_tool_result_error"; error_code: string } =
    block.error !== undefined
      ? { type: "web_search_tool_result_error", error_code: block.error }
      : block.results.map((result) => ({
          type: "web_search_result",
          url: result.url,
          title: result.title,
          encrypted_content: scriptedEncryptedContent(result.url),
          page_age: result.page_age ?? null,
        }));
  events.push({
    type: "content_block_start",
    index: index + 1,
    content_block: { type: "web_search_tool_result", tool_use_id: id, content },
  });
  events.push({ type: "content_block_stop", index: index + 1 });
  return index + 1;
}

function citationOf(citation: ScriptedCitation): WebSearchCitation {
  return {
    type: "web_search_result_location",
    url: citation.url,
    title: citation.title,
    cited_text: citation.cited_text,
    encrypted_index: scriptedEncryptedContent(`${citation.url}#${citation.cited_text}`),
  };
}

/** Splits text into chunks of at most `size` UTF-16 units without splitting a surrogate pair. */
export function chunkText(text: string, size: number): string[] {
  if (text.length === 0) return [];
  const chunks: string[] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(start + size, text.length);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end += 1;
    chunks.push(text.slice(start, end));
    start = end;
  }
  return chunks;
}

/** The engine's own estimate (4 characters of JSON a token), so scripted usage and cairn's context accounting agree. */
export { estimateTokens } from "../engine/tokens.js";
