import type { ConversationMessage, ToolResultBlock, UserContentBlock } from "../engine/messages.js";
import type { Commit } from "./conversation.js";
import { MarkdownStream } from "./markdown-stream.js";
import type { RenderModules } from "./render-modules.js";
import type { Styles } from "./style.js";
import { printable, truncate } from "./text-width.js";

/** A resumed session draws at most this many of its latest turns (start-up stays fast). */
export const HISTORY_TURNS = 40;

/** The compacted history's first block (src/engine/compaction.ts). */
const SUMMARY_PREFIX = "[Conversation summary]";
/** A mention's attachment (mentions.ts): the model reads it, the screen showed only the prompt. */
const ATTACHMENT = /^Called the (Read|LS) tool with the following input: /;

export type HistoryDrawing = {
  commit: Commit;
  styles: Styles;
  width: number;
  modules: RenderModules | undefined;
  /** A tool call's one-line title, as the live conversation shows it. */
  title(name: string, input: Record<string, unknown>): string;
};

/**
 * A resumed session's conversation, drawn once into the scrollback before the input (as it looked
 * when it ran, compactly): the prompts, the answers as markdown, each tool call as its one line with
 * `✓` or `✗`, `!` commands, where it was compacted. A long one is drawn from its last
 * `HISTORY_TURNS` prompts, the number of earlier ones said first.
 */
export function drawHistory(history: readonly ConversationMessage[], drawing: HistoryDrawing): void {
  const { commit, styles } = drawing;
  const starts = history.flatMap((message, index) => (isTurnStart(message) ? [index] : []));
  const skipped = Math.max(0, starts.length - HISTORY_TURNS);
  const from = skipped > 0 ? starts[skipped]! : 0;
  if (skipped > 0)
    commit(
      `… ${skipped} earlier turn${skipped === 1 ? " is" : "s are"} not drawn (the model still has them)`,
      styles.dim,
      "  ",
    );
  const results = new Map<string, ToolResultBlock>();
  for (const message of history.slice(from))
    if (message.role === "user" && Array.isArray(message.content))
      for (const block of message.content)
        if (block.type === "tool_result") results.set(block.tool_use_id, block);
  for (const message of history.slice(from)) {
    if (message.role === "user") userRows(message.content, drawing);
    else
      for (const block of message.content) {
        if (block.type === "text" && block.text.trim() !== "") answerRows(block.text, drawing);
        else if (block.type === "tool_use") toolRow(block.name, block.input, results.get(block.id), drawing);
      }
  }
  commit("", undefined);
  commit("── the conversation so far; it goes on below ──", styles.dim, "  ");
}

/** A user message that starts a turn: it holds text of the user's (not only tool results). */
function isTurnStart(message: ConversationMessage): boolean {
  if (message.role !== "user") return false;
  return typeof message.content === "string" || message.content.some((block) => block.type === "text");
}

function userRows(content: string | UserContentBlock[], { commit, styles }: HistoryDrawing): void {
  const blocks: UserContentBlock[] =
    typeof content === "string" ? [{ type: "text", text: content }] : content;
  let shell: string | undefined;
  for (const block of blocks) {
    if (block.type !== "text") continue;
    const text = block.text;
    if (text.startsWith(SUMMARY_PREFIX)) {
      commit("", undefined);
      commit("── the conversation was compacted here (earlier turns summarised) ──", styles.dim, "  ");
      continue;
    }
    if (ATTACHMENT.test(text)) continue;
    const input = /^<bash-input>([\s\S]*)<\/bash-input>$/.exec(text);
    if (input) {
      shell = input[1]!;
      commit("", undefined);
      commit(printable(shell), styles.bold, "! ");
      continue;
    }
    const output = /^<bash-stdout>([\s\S]*)<\/bash-stdout><bash-stderr>([\s\S]*)<\/bash-stderr>$/.exec(text);
    if (output && shell !== undefined) {
      const lines = [output[1]!, output[2]!].filter(Boolean).join("\n").split("\n");
      for (const line of lines.slice(-4)) commit(printable(line), styles.dim, "  ");
      shell = undefined;
      continue;
    }
    if (text.startsWith("<system-reminder>")) continue;
    commit("", undefined);
    commit(printable(text), styles.bold, "› ");
  }
}

function answerRows(text: string, { commit, styles, width, modules }: HistoryDrawing): void {
  commit("", undefined);
  const stream = new MarkdownStream(styles, () => modules);
  for (const row of [...stream.push(text, width), ...stream.finish(width)]) commit(row, undefined, "", true);
}

function toolRow(
  name: string,
  input: Record<string, unknown>,
  result: ToolResultBlock | undefined,
  { commit, styles, title }: HistoryDrawing,
): void {
  const line = title(name, input);
  if (!result?.is_error) {
    commit(line, (row) => row, `${styles.green("✓")} `);
    return;
  }
  const content =
    typeof result.content === "string"
      ? result.content
      : result.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("\n");
  const why = truncate(printable(content).trim().split("\n")[0] ?? "", 160) || "failed";
  commit(`${line} — ${why}`, (row) => styles.red(row), `${styles.red("✗")} `);
}
