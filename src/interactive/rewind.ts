import type { Session } from "../session/session.js";
import type { PickerItem } from "./list-picker.js";

type Choice = "both" | "conversation" | "files";

/** Why a prompt without an id (an earlier cairn's transcript, or a fork's copy) rewinds no files. */
const NO_FILES =
  "its files cannot be restored: no file checkpoint is known for it (an earlier cairn's transcript, or a forked session)";

/**
 * Esc Esc (and `/rewind`): back to an earlier prompt of this session, through `Session.rewind`
 * (src/session/rewind.ts). A picker of the conversation's prompts, newest first (a resumed
 * session's too); then what to restore — the conversation (the model forgets that prompt and
 * everything after it, the transcript records it, and the prompt comes back into the input to
 * edit), the files the tools changed since (from the file checkpoints), or both; what the files
 * restore would change is said first. Returns what happened, for the conversation on the screen.
 */
export async function rewind(
  session: Session,
  pick: <T>(title: string, items: PickerItem<T>[]) => Promise<T | undefined>,
): Promise<{ said: string[]; prompt?: string } | undefined> {
  const prompts = session.prompts();
  if (prompts.length === 0)
    return { said: ["Nothing to rewind to: no prompt was sent in this session yet."] };
  const index = await pick(
    "Rewind to which prompt? (it and everything after it are undone)",
    prompts
      .map((prompt, i) => ({
        label: prompt.text,
        detail: prompt.userMessageId ? `#${i + 1}` : `#${i + 1} · conversation only`,
        value: prompt.index,
      }))
      .reverse(),
  );
  if (index === undefined) return undefined;
  const target = prompts.find((prompt) => prompt.index === index)!;
  const preview = target.userMessageId
    ? await session.rewindFiles(target.userMessageId, { dryRun: true })
    : undefined;
  const files = preview?.canRewind ? (preview.filesChanged ?? []) : [];
  const filesSaid =
    files.length > 0
      ? `${files.length} file${files.length === 1 ? "" : "s"} (+${preview?.insertions ?? 0} -${preview?.deletions ?? 0})`
      : undefined;
  const conversationOnly = target.userMessageId
    ? "Restore the conversation only"
    : `Restore the conversation only (${NO_FILES})`;
  const items: PickerItem<Choice>[] = [
    ...(filesSaid
      ? [{ label: `Restore the conversation and the files: ${filesSaid}`, value: "both" as const }]
      : []),
    { label: conversationOnly, value: "conversation" },
    ...(filesSaid ? [{ label: `Restore the files only: ${filesSaid}`, value: "files" as const }] : []),
  ];
  const firstLine = target.text.split("\n")[0];
  const choice = await pick(`Rewind to “${firstLine}”`, items);
  if (choice === undefined) return undefined;
  const done = await session.rewind(
    { index },
    { files: choice !== "conversation", conversation: choice !== "files" },
  );
  if (!done.ok) return { said: [`Not rewound: ${done.error}`] };
  const said: string[] = [];
  if (done.files && !done.files.canRewind)
    said.push(`The files were not restored: ${done.files.error ?? "no checkpoint"}`);
  else if (done.files)
    said.push(
      `Restored ${done.files.filesChanged?.length ?? 0} files: ${(done.files.filesChanged ?? []).join(", ")}`,
    );
  if (choice === "files") return { said };
  said.push(`Rewound the conversation to before “${firstLine}”.`);
  return { said, prompt: done.prompt };
}
