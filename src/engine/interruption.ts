import type { TurnInterruptedEvent } from "./events.js";
import type { MessageAssembler } from "./message-assembler.js";
import type { AssistantContentBlock, ConversationMessage, UserContentBlock } from "./messages.js";

/**
 * What the model is told when the user stopped its turn, word for word the reference's: Claude Code
 * writes it as a user message after what was kept of the turn, and the agent SDK's session reader
 * (node_modules/@anthropic-ai/claude-agent-sdk/sdk.mjs) lists both texts among its interruption
 * markers.
 */
export const INTERRUPTED_NOTE = "[Request interrupted by user]";
/** The note when the turn was stopped after its tool calls had started (their results are kept). */
export const INTERRUPTED_FOR_TOOL_USE_NOTE = "[Request interrupted by user for tool use]";

/**
 * The model call in flight: the message its current attempt has streamed so far (a retry's attempt
 * replaces the failed one's), until the call completes and its message joins the history whole.
 */
export class AnswerInFlight {
  private assembler: MessageAssembler | undefined;

  /** An attempt starts (given to `callModel` as its `onAttempt`). */
  readonly follow = (assembler: MessageAssembler): void => {
    this.assembler = assembler;
  };

  /** The call completed: nothing of it is in flight any more. */
  settle(): void {
    this.assembler = undefined;
  }

  /** A model call was under way. */
  get active(): boolean {
    return this.assembler !== undefined;
  }

  /**
   * What the conversation keeps of the answer: the text already streamed (a block cut short
   * included), the thinking blocks that finished before it, and the provider's searches whose
   * result came whole (call and result together). A tool call is never kept (none of
   * them ran, and one cut short has no valid input); a thinking block cut short neither (the API
   * takes thinking back only whole, with its signature); nor thinking after the last text (the API
   * refuses an assistant message that ends with thinking, or holds nothing else).
   */
  shown(): AssistantContentBlock[] {
    const assembler = this.assembler;
    const message = assembler?.snapshot();
    if (!assembler || !message) return [];
    const kept: AssistantContentBlock[] = [];
    let lastText = -1;
    // A provider's search is kept whole, its call with its result (the API takes no call alone,
    // and the text kept after it may cite it).
    const searched = new Set(
      message.content.flatMap((block, index) =>
        block?.type === "web_search_tool_result" && assembler.completed.has(index) ? [block.tool_use_id] : [],
      ),
    );
    message.content.forEach((block, index) => {
      if (
        (block?.type === "server_tool_use" && searched.has(block.id)) ||
        (block?.type === "web_search_tool_result" && searched.has(block.tool_use_id))
      ) {
        kept.push({ ...block });
      } else if (block?.type === "text" && block.text !== "") {
        lastText = kept.length;
        kept.push({ ...block });
      } else if (
        (block?.type === "thinking" || block?.type === "redacted_thinking") &&
        assembler.completed.has(index)
      ) {
        kept.push({ ...block });
      }
    });
    return kept.slice(0, lastText + 1);
  }
}

/**
 * An interrupted run whose prompt joined the history: the conversation keeps what the model had
 * streamed of the call in flight, then a user note that the user interrupted, so the next request
 * (and a resume, from the returned event's records) carries both. Tool calls that ran keep their
 * results; the note then says the interruption came during tool use. The note joins the last user
 * message when the history ends with one (the prompt, or the tool results), as the reference sends
 * consecutive user messages: merged into one.
 */
export function keepInterruptedTurn(
  history: ConversationMessage[],
  inFlight: AnswerInFlight,
  turn: number,
): TurnInterruptedEvent {
  const answer = inFlight.shown();
  const last = history.at(-1);
  const duringTools =
    !inFlight.active &&
    last?.role === "user" &&
    Array.isArray(last.content) &&
    last.content.some((block) => block.type === "tool_result");
  const note = duringTools ? INTERRUPTED_FOR_TOOL_USE_NOTE : INTERRUPTED_NOTE;
  inFlight.settle();
  if (answer.length > 0) history.push({ role: "assistant", content: answer });
  appendUserText(history, note);
  return { type: "turn_interrupted", turn, ...(answer.length > 0 ? { answer } : {}), note };
}

/** Adds a text block to the last user message, or a user message with it when the last is not one. */
function appendUserText(history: ConversationMessage[], text: string): void {
  const block: UserContentBlock = { type: "text", text };
  const last = history.at(-1);
  if (last?.role !== "user") {
    history.push({ role: "user", content: [block] });
    return;
  }
  const blocks: UserContentBlock[] =
    typeof last.content === "string" ? [{ type: "text", text: last.content }] : last.content;
  history[history.length - 1] = { role: "user", content: [...blocks, block] };
}
