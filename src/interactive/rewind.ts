import type { ConversationMessage } from "../engine/messages.js";
import type { Session } from "../session/session.js";
import type { PickerItem } from "./list-picker.js";

/** A prompt this session sent from here: its text and the id its file checkpoint is kept under. */
export type SentPrompt = { text: string; userMessageId: string };

type Choice = "both" | "conversation" | "files";

/**
 * Esc Esc (and `/rewind`): back to an earlier prompt of this session. A picker of the prompts,
 * newest first; then what to restore — the conversation (the model forgets that prompt and
 * everything after it, and the prompt comes back into the input to edit), the files the tools
 * changed since (from the file checkpoints), or both; what the files restore would change is said
 * first. Returns what happened, for the conversation on the screen.
 */
export async function rewind(
  session: Session,
  prompts: SentPrompt[],
  pick: <T>(title: string, items: PickerItem<T>[]) => Promise<T | undefined>,
): Promise<{ said: string[]; prompt?: string; index?: number } | undefined> {
  if (prompts.length === 0)
    return { said: ["Nothing to rewind to: no prompt was sent in this session yet."] };
  const index = await pick(
    "Rewind to which prompt? (it and everything after it are undone)",
    prompts.map((prompt, i) => ({ label: prompt.text, detail: `#${i + 1}`, value: i })).reverse(),
  );
  if (index === undefined) return undefined;
  const target = prompts[index]!;
  const preview = await session.rewindFiles(target.userMessageId, { dryRun: true });
  const files = preview.canRewind ? (preview.filesChanged ?? []) : [];
  const filesSaid =
    files.length > 0
      ? `${files.length} file${files.length === 1 ? "" : "s"} (+${preview.insertions ?? 0} -${preview.deletions ?? 0})`
      : undefined;
  const items: PickerItem<Choice>[] = [
    ...(filesSaid
      ? [{ label: `Restore the conversation and the files: ${filesSaid}`, value: "both" as const }]
      : []),
    { label: "Restore the conversation only", value: "conversation" },
    ...(filesSaid ? [{ label: `Restore the files only: ${filesSaid}`, value: "files" as const }] : []),
  ];
  const choice = await pick(`Rewind to “${target.text.split("\n")[0]}”`, items);
  if (choice === undefined) return undefined;
  const said: string[] = [];
  if (choice !== "conversation") {
    const result = await session.rewindFiles(target.userMessageId);
    if (!result.canRewind) said.push(`The files were not restored: ${result.error ?? "no checkpoint"}`);
    else
      said.push(
        `Restored ${result.filesChanged?.length ?? 0} files: ${(result.filesChanged ?? []).join(", ")}`,
      );
  }
  if (choice === "files") return { said };
  const cut = promptStart(session.history, prompts, index);
  if (cut === undefined) {
    said.push("The conversation could not be rewound: that prompt is no longer in it (compacted?).");
    return { said };
  }
  session.history.splice(cut);
  said.push(`Rewound the conversation to before “${target.text.split("\n")[0]}”.`);
  return { said, prompt: target.text, index };
}

/** Where prompt `index` starts in the conversation: the prompts are found in order, by their text. */
function promptStart(
  history: ConversationMessage[],
  prompts: SentPrompt[],
  index: number,
): number | undefined {
  let next = 0;
  for (let at = 0; at < history.length; at++) {
    const message = history[at]!;
    if (message.role !== "user") continue;
    const texts =
      typeof message.content === "string"
        ? [message.content]
        : message.content.flatMap((block) => (block.type === "text" ? [block.text] : []));
    if (!texts.includes(prompts[next]!.text)) continue;
    if (next === index) return at;
    next += 1;
  }
  return undefined;
}
