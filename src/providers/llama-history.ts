import {
  type ConversationMessage,
  contentText,
  mediaPlaceholder,
  type ToolResultBlock,
} from "../engine/messages.js";
import type { ModelRequest } from "./types.js";

/**
 * node-llama-cpp's chat history shapes (declared here so that nothing but the local provider
 * depends on the optional package, not even for types).
 */
export type LlamaFunctionCallItem = {
  type: "functionCall";
  name: string;
  params: unknown;
  result: unknown;
};
export type LlamaSegmentItem = { type: "segment"; segmentType: "thought"; text: string; ended: boolean };
export type LlamaModelResponseItem = string | LlamaFunctionCallItem | LlamaSegmentItem;
export type LlamaChatHistoryItem =
  | { type: "system"; text: string }
  | { type: "user"; text: string }
  | { type: "model"; response: LlamaModelResponseItem[] };

/** Shown to the model for a call whose result is missing from the conversation. */
const MISSING_RESULT = "(no result: the tool call was interrupted)";

/**
 * The engine's Anthropic-shaped conversation → node-llama-cpp's chat history. Tool results, which
 * the engine sends in the next user message, are attached to their calls in the model response
 * (node-llama-cpp's chat wrappers render call and result together, in the template's own syntax).
 * The history ends with a model response for the model to write or continue.
 */
export function toLlamaHistory(request: Pick<ModelRequest, "system" | "messages">): LlamaChatHistoryItem[] {
  const history: LlamaChatHistoryItem[] = [];
  if (request.system.trim() !== "") history.push({ type: "system", text: request.system });
  const calls = new Map<string, LlamaFunctionCallItem>();

  for (const message of request.messages) {
    if (message.role === "assistant") {
      const response: LlamaModelResponseItem[] = [];
      for (const block of message.content) {
        if (block.type === "text") {
          const last = response.at(-1);
          if (typeof last === "string") response[response.length - 1] = last + block.text;
          else if (block.text !== "") response.push(block.text);
        } else if (block.type === "thinking") {
          response.push({ type: "segment", segmentType: "thought", text: block.thinking, ended: true });
        } else if (block.type === "tool_use") {
          const call: LlamaFunctionCallItem = {
            type: "functionCall",
            name: block.name,
            params: block.input,
            result: MISSING_RESULT,
          };
          calls.set(block.id, call);
          response.push(call);
        }
      }
      history.push({ type: "model", response });
      continue;
    }
    const texts: string[] = [];
    for (const block of userBlocks(message)) {
      if (block.type === "text") texts.push(block.text);
      else if (block.type !== "tool_result") texts.push(mediaPlaceholder(block));
      else {
        const call = calls.get(block.tool_use_id);
        const result = toolResultText(block);
        if (call) call.result = result;
        else texts.push(`Result of tool call ${block.tool_use_id}:\n${result}`);
      }
    }
    if (texts.length > 0) history.push({ type: "user", text: texts.join("\n\n") });
  }

  const last = history.at(-1);
  if (last?.type !== "model" || !endsWithCalls(last.response)) history.push({ type: "model", response: [] });
  return history;
}

function userBlocks(message: Extract<ConversationMessage, { role: "user" }>) {
  return typeof message.content === "string"
    ? [{ type: "text" as const, text: message.content }]
    : message.content;
}

function toolResultText(block: ToolResultBlock): string {
  const text = contentText(block.content);
  if (block.is_error && !/^\w*error/i.test(text)) return `Error: ${text}`;
  return text;
}

/** A model turn that ended in tool calls is continued once the results are in, not restarted. */
function endsWithCalls(response: LlamaModelResponseItem[]): boolean {
  const last = response.at(-1);
  return typeof last === "object" && last.type === "functionCall";
}
