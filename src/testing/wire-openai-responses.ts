import type { Usage } from "../engine/messages.js";
import { usageToOpenAI } from "../providers/openai-usage.js";
import { chunkText, type ReplyStep, type ScriptedCitation } from "../providers/scenario.js";
import {
  fromUrl,
  isObject,
  partsText,
  quote,
  type RecordedMedia,
  type ReplyContext,
  type ScriptedWire,
  scanParts,
  type WireFrame,
} from "./wire.js";
import { defaultStopReason, openaiErrorBody, openaiOverflowBody, replyUsage } from "./wire-openai-chat.js";

/**
 * The OpenAI Responses API as the scripted server speaks it (`POST /v1/responses`), rendered from
 * the same reply steps as the other wires. Events, each `event: <type>\ndata: <json>\n\n` with a
 * rising `sequence_number`:
 * - `response.created`, `response.in_progress`;
 * - thinking → a `reasoning` output item: `response.output_item.added`,
 *   `response.reasoning_summary_part.added`, `response.reasoning_summary_text.delta`…,
 *   `response.reasoning_summary_text.done`, `response.reasoning_summary_part.done`,
 *   `response.output_item.done`;
 * - text → a `message` item: `…output_item.added`, `response.content_part.added`,
 *   `response.output_text.delta`…, `response.output_text.done`, `response.content_part.done`,
 *   `…output_item.done`;
 * - a tool call → a `function_call` item: `…output_item.added`,
 *   `response.function_call_arguments.delta`…, `response.function_call_arguments.done`,
 *   `…output_item.done`;
 * - `response.completed` with usage (`response.incomplete` for a `max_tokens` or `refusal` stop).
 */

type Item = Record<string, unknown> & { id: string; type: string };
type Event = Record<string, unknown> & { type: string };

function responsesUsage(usage: Usage) {
  const { input, output, cached, cacheWrite } = usageToOpenAI(usage);
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: cached, cache_write_tokens: cacheWrite },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: input + output,
  };
}

function finalItem(step: ReplyStep, blockIndex: number, context: ReplyContext): Item {
  const block = step.content[blockIndex]!;
  const suffix = `${context.stepIndex}_${blockIndex}`;
  if (block.type === "thinking") {
    return {
      id: `rs_scripted_${suffix}`,
      type: "reasoning",
      summary: [{ type: "summary_text", text: block.thinking }],
    };
  }
  if (block.type === "text") {
    return {
      id: `msg_scripted_${suffix}`,
      type: "message",
      role: "assistant",
      status: "completed",
      content: [
        {
          type: "output_text",
          text: block.text,
          annotations: (block.citations ?? []).map((citation) => urlCitation(block.text, citation)),
          logprobs: [],
        },
      ],
    };
  }
  if (block.type === "web_search") {
    return {
      id: block.id ?? `ws_scripted_${suffix}`,
      type: "web_search_call",
      status: block.error ? "failed" : "completed",
      action: {
        type: "search",
        query: block.query,
        sources: block.results.map((result) => ({ type: "url", url: result.url })),
      },
    };
  }
  return {
    id: `fc_scripted_${suffix}`,
    type: "function_call",
    call_id: block.id ?? `call_scripted_${suffix}`,
    name: block.name,
    arguments: JSON.stringify(block.input),
    status: "completed",
  };
}

/** A `url_citation` annotation over the cited text's place in `text` (the whole text if absent). */
function urlCitation(text: string, citation: ScriptedCitation): Record<string, unknown> {
  const at = text.indexOf(citation.cited_text);
  const start = at === -1 ? 0 : at;
  const end = at === -1 ? text.length : at + citation.cited_text.length;
  return {
    type: "url_citation",
    url: citation.url,
    title: citation.title,
    start_index: start,
    end_index: end,
  };
}

function responseObject(
  step: ReplyStep,
  body: unknown,
  context: ReplyContext,
  done: boolean,
): Record<string, unknown> {
  const stop = defaultStopReason(step);
  const incomplete = stop === "max_tokens" || stop === "refusal";
  const output = done ? step.content.map((_, index) => finalItem(step, index, context)) : [];
  const text = step.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("");
  return {
    id: `resp_scripted_${context.replyNumber}`,
    object: "response",
    created_at: 1_700_000_000 + context.replyNumber,
    status: done ? (incomplete ? "incomplete" : "completed") : "in_progress",
    error: null,
    incomplete_details:
      done && incomplete ? { reason: stop === "max_tokens" ? "max_output_tokens" : "content_filter" } : null,
    instructions: isObject(body) && typeof body.instructions === "string" ? body.instructions : null,
    model: context.model,
    output,
    output_text: done ? text : "",
    parallel_tool_calls: true,
    temperature: null,
    tool_choice: "auto",
    tools: [],
    top_p: null,
    metadata: {},
    usage: done ? responsesUsage(replyUsage(step, body)) : null,
  };
}

function renderEvents(
  step: ReplyStep,
  body: unknown,
  context: ReplyContext,
): { event: Event; delta: boolean }[] {
  const out: { event: Event; delta: boolean }[] = [];
  const push = (event: Event, delta = false) => out.push({ event, delta });
  push({ type: "response.created", response: responseObject(step, body, context, false) });
  push({ type: "response.in_progress", response: responseObject(step, body, context, false) });
  step.content.forEach((block, outputIndex) => {
    const item = finalItem(step, outputIndex, context);
    const itemId = item.id;
    if (block.type === "thinking") {
      push({ type: "response.output_item.added", output_index: outputIndex, item: { ...item, summary: [] } });
      const part = { type: "summary_text", text: "" };
      const at = { item_id: itemId, output_index: outputIndex, summary_index: 0 };
      push({ type: "response.reasoning_summary_part.added", ...at, part });
      for (const piece of chunkText(block.thinking, context.chunkSize)) {
        push({ type: "response.reasoning_summary_text.delta", ...at, delta: piece }, true);
      }
      push({ type: "response.reasoning_summary_text.done", ...at, text: block.thinking });
      push({ type: "response.reasoning_summary_part.done", ...at, part: { ...part, text: block.thinking } });
    } else if (block.type === "web_search") {
      const { action: _action, ...started } = item;
      push({
        type: "response.output_item.added",
        output_index: outputIndex,
        item: { ...started, status: "in_progress" },
      });
      const at = { item_id: itemId, output_index: outputIndex };
      push({ type: "response.web_search_call.in_progress", ...at });
      push({ type: "response.web_search_call.searching", ...at });
      push({ type: "response.web_search_call.completed", ...at });
    } else if (block.type === "text") {
      push({
        type: "response.output_item.added",
        output_index: outputIndex,
        item: { ...item, status: "in_progress", content: [] },
      });
      const at = { item_id: itemId, output_index: outputIndex, content_index: 0 };
      const part = { type: "output_text", text: "", annotations: [], logprobs: [] };
      push({ type: "response.content_part.added", ...at, part });
      for (const piece of chunkText(block.text, context.chunkSize)) {
        push({ type: "response.output_text.delta", ...at, delta: piece, logprobs: [] }, true);
      }
      const annotations = (block.citations ?? []).map((citation) => urlCitation(block.text, citation));
      annotations.forEach((annotation, annotationIndex) => {
        push({
          type: "response.output_text.annotation.added",
          ...at,
          annotation_index: annotationIndex,
          annotation,
        });
      });
      push({ type: "response.output_text.done", ...at, text: block.text, logprobs: [] });
      push({ type: "response.content_part.done", ...at, part: { ...part, text: block.text, annotations } });
    } else {
      push({
        type: "response.output_item.added",
        output_index: outputIndex,
        item: { ...item, arguments: "", status: "in_progress" },
      });
      const json = JSON.stringify(block.input);
      for (const piece of chunkText(json, context.chunkSize)) {
        push(
          {
            type: "response.function_call_arguments.delta",
            item_id: itemId,
            output_index: outputIndex,
            delta: piece,
          },
          true,
        );
      }
      push({
        type: "response.function_call_arguments.done",
        item_id: itemId,
        output_index: outputIndex,
        name: block.name,
        arguments: json,
      });
    }
    push({ type: "response.output_item.done", output_index: outputIndex, item });
  });
  const final = responseObject(step, body, context, true);
  push({
    type: final.status === "incomplete" ? "response.incomplete" : "response.completed",
    response: final,
  });
  return out.map(({ event, delta }, sequence) => ({ event: { ...event, sequence_number: sequence }, delta }));
}

export const openaiResponsesWire: ScriptedWire = {
  name: "openai-responses",
  path: "/v1/responses",
  requestIdHeader: "x-request-id",
  streamContentType: "text/event-stream",

  checkRequest(body) {
    if (!isObject(body)) return "the request body must be a JSON object";
    if (typeof body.model !== "string") return "model: Field required";
    if (typeof body.input !== "string" && !Array.isArray(body.input)) return "input: Field required";
    return undefined;
  },

  // `input_image` / `input_file` parts of user messages and of `function_call_output` outputs.
  scanMedia(body) {
    return scanParts((add) => {
      const visit = (parts: unknown, where: RecordedMedia["in"]) => {
        if (!Array.isArray(parts)) return;
        for (const part of parts) {
          if (!isObject(part)) continue;
          if (part.type === "input_image") add(fromUrl(part.image_url, "image", where));
          else if (part.type === "input_file")
            add(fromUrl(part.file_data ?? part.file_url, "document", where));
        }
      };
      for (const item of Array.isArray(body.input) ? body.input : []) {
        if (!isObject(item)) continue;
        if (item.type === "function_call_output") visit(item.output, "tool_result");
        else if (item.role === "user") visit(item.content, "prompt");
      }
    });
  },

  isStreaming(body) {
    return isObject(body) && body.stream === true;
  },

  streamFrames(step, body, context): WireFrame[] {
    return renderEvents(step, body, context).map(({ event, delta }) => ({
      text: `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`,
      delta,
    }));
  },

  jsonResponse(step, body, context) {
    return responseObject(step, body, context, true);
  },

  errorBody(status, message, errorType) {
    return openaiErrorBody(status, message, errorType);
  },

  overflowBody(tokens, window) {
    return openaiOverflowBody(tokens, window, "input");
  },

  summarizeRequest(body) {
    if (!isObject(body)) return "(no input)";
    if (typeof body.input === "string") return `1 input item; last user message: text ${quote(body.input)}`;
    if (!Array.isArray(body.input)) return "(no input)";
    const items = body.input as unknown[];
    const count = `${items.length} input item${items.length === 1 ? "" : "s"}`;
    for (let i = items.length - 1; i >= 0; i--) {
      const item = items[i];
      if (!isObject(item)) continue;
      if (item.role === "user") return `${count}; last user message: text ${quote(partsText(item.content))}`;
      if (item.type === "function_call_output") {
        return `${count}; last item: tool result ${String(item.call_id)} ${quote(partsText(item.output), 80)}`;
      }
    }
    return `${count}; no user message`;
  },
};
