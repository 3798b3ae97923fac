import type { ConversationMessage, PromptBlock } from "../engine/messages.js";
import type { RewindFilesResult } from "../sessions/checkpoints.js";
import { boundaryUuids } from "../sessions/message-uuids.js";
import type { TranscriptWriter } from "../sessions/transcript-store.js";

/** A prompt of the conversation: where it is in the history, its text, its id when this session sent it. */
export type ConversationPrompt = { index: number; text: string; userMessageId?: string };

/** Which prompt to rewind to: one this session sent (its `userMessageId`), or a position in `history`. */
export type RewindTarget = { userMessageId: string } | { index: number };

export type RewindOptions = {
  /** Also put the files the tools changed since that prompt back (the file checkpoints). */
  files?: boolean;
  /** Keep the conversation (only the files, with `files`). */
  conversation?: boolean;
};

export type SessionRewind =
  | {
      ok: true;
      /** The prompt rewound to (it and everything after it are gone), to edit and send again. */
      prompt: string;
      /** Messages taken out of the conversation (0 with `conversation: false`). */
      removed: number;
      files?: RewindFilesResult;
    }
  | { ok: false; error: string };

/** A prompt this session sent: its id and the history's length when its turn started. */
export type PromptMark = { userMessageId: string; at: number; text: string };

/**
 * The conversation's prompts, oldest first: the user messages that hold text of the user's (not only
 * tool results). A prompt this session sent carries its id (file checkpoints are kept under it).
 */
export function conversationPrompts(
  history: readonly ConversationMessage[],
  marks: readonly PromptMark[],
): ConversationPrompt[] {
  const prompts: ConversationPrompt[] = [];
  history.forEach((message, index) => {
    const text = promptText(message);
    if (text === undefined) return;
    // Its text, unless a command was expanded (a compaction since moved the prompts: no match).
    // (one position on when the prompt joined a `!` command's message before it: addUserMessage)
    const mark = marks.find(
      (entry) =>
        (entry.at === index || entry.at === index + 1) &&
        (text.includes(entry.text) || entry.text.startsWith("/")),
    );
    prompts.push({ index, text: mark?.text ?? text, ...(mark ? { userMessageId: mark.userMessageId } : {}) });
  });
  return prompts;
}

/** The prompt a target names, or why there is none. */
export function findPrompt(
  prompts: readonly ConversationPrompt[],
  target: RewindTarget,
): ConversationPrompt | string {
  const found =
    "index" in target
      ? prompts.find((prompt) => prompt.index === target.index)
      : prompts.find((prompt) => prompt.userMessageId === target.userMessageId);
  if (found) return found;
  return "index" in target
    ? `No prompt at position ${target.index} of the conversation.`
    : `No prompt ${target.userMessageId} in the conversation (it was compacted, rewound, or not sent in this session).`;
}

/**
 * Cuts the history before `index` (in place: the engine holds the same array) and records the cut in
 * the transcript, so a later `--resume` continues the rewound conversation. Returns how many
 * messages were taken out.
 */
export async function cutHistory(
  history: ConversationMessage[],
  index: number,
  writer: TranscriptWriter | undefined,
  marks: readonly PromptMark[] = [],
): Promise<number> {
  const removed = history.length - index;
  history.splice(index);
  if (writer && !writer.closed) {
    const messages = [...history];
    // The kept prompts' ids, so that a later resume can still rewind their files.
    const promptIds = messages.map((): string | null => null);
    for (const prompt of conversationPrompts(messages, marks))
      if (prompt.userMessageId) promptIds[prompt.index] = prompt.userMessageId;
    const recording = writer.append({
      type: "rewind",
      ts: new Date().toISOString(),
      removed,
      messages,
      ...boundaryUuids(messages),
      ...(promptIds.some((id) => id !== null) ? { promptIds } : {}),
    });
    if (recording) await recording;
  }
  return removed;
}

/**
 * A resumed session's prompt marks: its history's prompts matched, in order, to the transcript's
 * user records (reader.ts) — a prompt whose record carries its id gets it (its file checkpoints are
 * kept under it). Prompts of transcripts written before records carried ids get none: their files
 * cannot be restored, and the rewind says so.
 */
export function resumedMarks(
  history: readonly ConversationMessage[],
  records: readonly { message: ConversationMessage; userMessageId?: string }[],
): PromptMark[] {
  const recorded = records.flatMap((record) => {
    const text = promptText(record.message);
    return text === undefined ? [] : [{ text, userMessageId: record.userMessageId }];
  });
  const marks: PromptMark[] = [];
  let next = 0;
  history.forEach((message, index) => {
    const text = promptText(message);
    if (text === undefined) return;
    // Records that are not this prompt (merged into another message) are passed over.
    const found = recorded.findIndex((record, i) => i >= next && text.includes(record.text));
    if (found === -1) return;
    next = found + 1;
    const { userMessageId } = recorded[found]!;
    if (userMessageId !== undefined) marks.push({ userMessageId, at: index, text });
  });
  return marks;
}

/**
 * Appends a user message of text the user did not type as a prompt (a `!` command's record) to the
 * history and the transcript. It joins a user message of text before it (two `!` commands), and the
 * next prompt joins it (`addPrompt`), so the history still alternates; the transcript's reader merges
 * consecutive user records the same way.
 */
export async function addUserMessage(
  history: ConversationMessage[],
  content: PromptBlock[],
  writer: TranscriptWriter | undefined,
): Promise<void> {
  const last = history.at(-1);
  if (
    last?.role === "user" &&
    Array.isArray(last.content) &&
    last.content.every((block) => block.type === "text")
  )
    history[history.length - 1] = { role: "user", content: [...last.content, ...content] };
  else history.push({ role: "user", content: [...content] });
  if (writer && !writer.closed) {
    const recording = writer.append({
      type: "user",
      ts: new Date().toISOString(),
      message: { role: "user", content },
    });
    if (recording) await recording;
  }
}

/**
 * What the user typed, when a user message is a prompt: its first text that is not one the prompt
 * carries along (a `!` command's record, a mention's attachment, a compaction's summary, a reminder).
 */
function promptText(message: ConversationMessage): string | undefined {
  if (message.role !== "user") return undefined;
  if (typeof message.content === "string") return message.content;
  for (const block of message.content)
    if (block.type === "text" && !CARRIED.test(block.text)) return block.text;
  return undefined;
}

const CARRIED =
  /^(<bash-(input|stdout)>|<system-reminder>|\[Conversation summary\]|Called the \w+ tool with the following input: )/;

/** What a rewind needs of the session (session.ts). */
export type RewindHost = {
  history: ConversationMessage[];
  marks: PromptMark[];
  busy: boolean;
  writer: TranscriptWriter | undefined;
  rewindFiles(userMessageId: string): Promise<RewindFilesResult>;
};

/** `Session.rewind`: the files put back first (when asked), then the conversation cut and recorded. */
export async function rewindSession(
  host: RewindHost,
  target: RewindTarget,
  options: RewindOptions,
): Promise<SessionRewind> {
  if (host.busy) return { ok: false, error: "A turn is running: interrupt it, then rewind." };
  const prompt = findPrompt(conversationPrompts(host.history, host.marks), target);
  if (typeof prompt === "string") return { ok: false, error: prompt };
  const files = !options.files
    ? undefined
    : prompt.userMessageId
      ? await host.rewindFiles(prompt.userMessageId)
      : {
          canRewind: false,
          error:
            "No file checkpoint for that prompt: its record carries no prompt id (a transcript of an earlier cairn, or a forked session).",
        };
  if (options.conversation === false)
    return { ok: true, prompt: prompt.text, removed: 0, ...(files ? { files } : {}) };
  const removed = await cutHistory(host.history, prompt.index, host.writer, host.marks);
  const kept = host.marks.filter((mark) => mark.at < prompt.index);
  host.marks.splice(0, host.marks.length, ...kept);
  return { ok: true, prompt: prompt.text, removed, ...(files ? { files } : {}) };
}
