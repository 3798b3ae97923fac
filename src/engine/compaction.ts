import { nowMs } from "../util/clock.js";
import type { ContextMeter } from "./context-meter.js";
import type { EngineEvent } from "./events.js";
import {
  type ConversationMessage,
  contentText,
  type TextBlock,
  type ToolResultBlock,
  type Usage,
  type UserContentBlock,
} from "./messages.js";
import { callModel } from "./model-call.js";
import type { ModelProvider, ServerWebSearch, ToolSpec } from "./provider.js";
import type { RetryPolicy } from "./retry.js";
import { messagesTokens } from "./tokens.js";

export type CompactTrigger = "auto" | "manual";

/**
 * The seam hooks plug into (PreCompact / PostCompact): called around every compaction, automatic
 * and manual. A throw from `beforeCompact` cancels that compaction (the run goes on uncompacted,
 * or, when the request cannot fit, fails as an overflow would).
 */
export type CompactionHooks = {
  beforeCompact?(input: { trigger: CompactTrigger; customInstructions: string | null }): Promise<void> | void;
  afterCompact?(input: { trigger: CompactTrigger; summary: string }): Promise<void> | void;
};

/** What the model is asked for. Kept in one place: docs/context.md quotes it. */
export const SUMMARY_INSTRUCTIONS = [
  "The conversation above is about to be compacted to fit the model's context window: write the summary you will continue the work from, since the turns above will be gone.",
  "Keep: the user's goal and every requirement or constraint they stated; decisions made and why; files read, created or changed (with paths) and what was learned from them; commands run and their outcome; errors met and how they were solved; open todos and the next step.",
  "Be complete but concise. Plain text. Do not call any tool.",
].join("\n");

/** Starts the message that replaces the summarised turns. */
export const SUMMARY_PREFIX =
  "[Conversation summary] Earlier turns of this session were compacted to fit the context window; this summary replaces them (the session transcript keeps them in full).\n\n";

/** Tool results are cut to this many characters in the summary request (the recent ones stay whole in the history). */
const SUMMARY_INPUT_RESULT_CHARS = 2_000;
const SUMMARY_MAX_TOKENS = 8_192;
/** What is left of a truncated tool result at least. */
const MIN_RESULT_CHARS = 1_000;

export type CompactionRequest = {
  trigger: CompactTrigger;
  instructions: string | null;
  /** Verbatim recent history may use this many tokens (at least the last turn is kept; manual: none). */
  keepTokens: number;
  provider: ModelProvider;
  providerModel: string;
  system: string;
  tools: ToolSpec[];
  /** The provider's web search, when the run's requests offer it (server-tools.ts). */
  webSearch?: ServerWebSearch;
  maxTokens: number;
  turn: number;
  signal: AbortSignal;
  retryPolicy: RetryPolicy;
  meter: ContextMeter;
  hooks?: CompactionHooks;
};

export type CompactionOutcome = {
  summary: string;
  /** The compacted history: the summary, then the recent turns verbatim. */
  messages: ConversationMessage[];
  usage: Usage;
  preTokens: number;
  postTokens: number;
  durationMs: number;
};

/**
 * Summarises the older part of `history` with one ordinary model call (retried like any other;
 * its retries are the only events it shows: the summary is not part of the answer) and returns the
 * compacted history. Undefined when there is nothing older than the turns to keep.
 */
export async function* compactHistory(
  history: readonly ConversationMessage[],
  request: CompactionRequest,
): AsyncGenerator<EngineEvent[], CompactionOutcome | undefined> {
  const started = nowMs();
  const preTokens = request.meter.estimate(history);
  const cut = request.trigger === "manual" ? history.length : keptFrom(history, request.keepTokens);
  if (cut === 0) return undefined;
  await request.hooks?.beforeCompact?.({
    trigger: request.trigger,
    customInstructions: request.instructions,
  });
  const older = history.slice(0, cut);
  const kept = history.slice(cut);
  const instructions = request.instructions
    ? `${SUMMARY_INSTRUCTIONS}\nAlso: ${request.instructions}`
    : SUMMARY_INSTRUCTIONS;
  const messages = summaryInput(older, instructions, request.meter.room - request.meter.overhead);
  const calls = callModel(
    request.provider,
    {
      model: request.providerModel,
      system: request.system,
      messages,
      // The same tools as every other request: an API refuses tool_use blocks without them, and the
      // request shares the cached prefix of the conversation.
      tools: request.tools,
      ...(request.webSearch ? { webSearch: request.webSearch } : {}),
      maxTokens: Math.min(request.maxTokens, SUMMARY_MAX_TOKENS),
    },
    request.turn,
    request.signal,
    request.retryPolicy,
  );
  let step = await calls.next();
  while (!step.done) {
    const retries = step.value.filter((event) => event.type === "model_call_retry");
    if (retries.length > 0) yield retries;
    step = await calls.next();
  }
  const { message } = step.value;
  const summary = message.content
    .filter((block): block is TextBlock => block?.type === "text")
    .map((block) => block.text)
    .join("")
    .trim();
  if (summary === "") throw new Error("Compaction failed: the model returned no summary.");
  const compacted = withSummary(summary, kept);
  request.meter.reset();
  await request.hooks?.afterCompact?.({ trigger: request.trigger, summary });
  return {
    summary,
    messages: compacted,
    usage: message.usage,
    preTokens,
    postTokens: request.meter.estimate(compacted),
    durationMs: Math.round(nowMs() - started),
  };
}

/**
 * Where verbatim history may start: at an assistant message, or at a user message that answers no
 * tool call (a prompt). Cutting anywhere else would split a tool_use from its tool_result.
 */
function isTurnStart(message: ConversationMessage): boolean {
  if (message.role === "assistant") return true;
  return (
    typeof message.content === "string" || !message.content.some((block) => block.type === "tool_result")
  );
}

/** The index verbatim history starts at: as many recent turns as fit `keepTokens`, at least the last. 0: nothing older. */
function keptFrom(history: readonly ConversationMessage[], keepTokens: number): number {
  let last = 0;
  for (let i = history.length - 1; i > 0; i--) {
    if (!isTurnStart(history[i]!)) continue;
    if (last !== 0 && messagesTokens(history, i) > keepTokens) break;
    last = i;
  }
  return last;
}

/** The summary request's messages: the older turns (long tool results cut, oldest turns dropped to fit), then the instructions. */
function summaryInput(
  older: readonly ConversationMessage[],
  instructions: string,
  room: number,
): ConversationMessage[] {
  let messages = older.map((message) => cutToolResults(message, SUMMARY_INPUT_RESULT_CHARS));
  while (messagesTokens(messages) > room * 0.9) {
    const next = messages.findIndex((message, index) => index > 0 && isTurnStart(message));
    if (next <= 0) break;
    messages = messages.slice(next);
  }
  const first = messages[0];
  // A history cut at an assistant message would start with it; requests start with the user.
  if (first?.role === "assistant")
    messages = [{ role: "user", content: "(earlier turns omitted)" }, ...messages];
  return appendUserText(messages, instructions);
}

/** The compacted history: the summary as a user message, merged into a prompt the kept turns start with. */
function withSummary(summary: string, kept: readonly ConversationMessage[]): ConversationMessage[] {
  const block: TextBlock = { type: "text", text: SUMMARY_PREFIX + summary };
  const first = kept[0];
  if (first?.role === "user") {
    return [{ role: "user", content: [block, ...asBlocks(first.content)] }, ...kept.slice(1)];
  }
  return [{ role: "user", content: [block] }, ...kept];
}

/** Adds user text at the end: into a trailing user message, else as a new one. */
export function appendUserText(
  messages: readonly ConversationMessage[],
  text: string,
): ConversationMessage[] {
  const last = messages.at(-1);
  if (last?.role === "user") {
    return [
      ...messages.slice(0, -1),
      { role: "user", content: [...asBlocks(last.content), { type: "text", text }] },
    ];
  }
  return [...messages, { role: "user", content: text }];
}

function asBlocks(content: string | UserContentBlock[]): UserContentBlock[] {
  return typeof content === "string" ? [{ type: "text", text: content }] : content;
}

function resultText(block: ToolResultBlock): string {
  return contentText(block.content, "");
}

function cutToolResults(message: ConversationMessage, maxChars: number): ConversationMessage {
  if (message.role !== "user" || typeof message.content === "string") return message;
  if (!message.content.some((block) => block.type === "tool_result" && resultText(block).length > maxChars))
    return message;
  return {
    role: "user",
    content: message.content.map((block) =>
      block.type === "tool_result" && resultText(block).length > maxChars
        ? truncated(block, maxChars)
        : block,
    ),
  };
}

function truncated(block: ToolResultBlock, keepChars: number): ToolResultBlock {
  const text = resultText(block);
  return {
    ...block,
    content:
      `${text.slice(0, keepChars)}\n[cairn: this tool result was ${text.length} characters, more than the ` +
      `context window has room for; only the first ${keepChars} are shown. Read the rest in parts ` +
      "(Read with offset/limit, or a narrower command).]",
  };
}

/**
 * Cuts the largest tool results until the request fits `room` tokens; each cut result says so and
 * how to read the rest. Returns how many were cut (0 when it already fits or nothing can be cut).
 */
export function fitToolResults(history: ConversationMessage[], room: number, meter: ContextMeter): number {
  let cuts = 0;
  for (let guard = 0; guard < 64; guard++) {
    const excess = meter.estimate(history) - room;
    if (excess <= 0) break;
    let largest: { message: number; block: number; chars: number } | undefined;
    history.forEach((message, m) => {
      if (message.role !== "user" || typeof message.content === "string") return;
      message.content.forEach((block, b) => {
        if (block.type !== "tool_result") return;
        const chars = resultText(block).length;
        if (chars > MIN_RESULT_CHARS && chars > (largest?.chars ?? 0))
          largest = { message: m, block: b, chars };
      });
    });
    if (!largest) break;
    const target = largest;
    const keep = Math.max(MIN_RESULT_CHARS, target.chars - excess * 4 - 400);
    const message = history[target.message] as { role: "user"; content: UserContentBlock[] };
    const content = message.content.slice();
    content[target.block] = truncated(content[target.block] as ToolResultBlock, keep);
    history[target.message] = { role: "user", content };
    meter.reset();
    cuts += 1;
  }
  return cuts;
}
