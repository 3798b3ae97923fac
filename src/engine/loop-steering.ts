import type { EngineEvent } from "./events.js";
import { runHooks, userMessage } from "./loop-hooks.js";
import type { LoopRun } from "./loop-run.js";
import type { ConversationMessage, PromptBlock, UserContentBlock } from "./messages.js";

/** A prompt the user sent while the run was going: its text, and its blocks when it holds media. */
export type SteeringPrompt = { text: string; content?: PromptBlock[] };

type UserMessage = Extract<ConversationMessage, { role: "user" }>;

/**
 * Adds the prompts the user sent while the run was going (`whenBusy: "steer"`) to the conversation,
 * at a point where the model is about to be called again: after a tool batch's results (joined to
 * that user message: the API wants one user turn between two assistant turns), or where the model
 * had ended its turn (a new user turn, which the run then answers). Each one goes through the
 * UserPromptSubmit hooks first, as a prompt of its own would: a hook that blocks it keeps it out of
 * the conversation (the hook's record says why); one that stops the session stops the run. Gives
 * whether anything was added, or that a hook stopped the run.
 */
export async function* steer(run: LoopRun): AsyncGenerator<EngineEvent[], "added" | "none" | "stopped"> {
  const prompts = run.options.steering?.() ?? [];
  if (prompts.length === 0) return "none";
  const { history, state } = run;
  let added = false;
  for (const prompt of prompts) {
    const verdict = yield* runHooks(run, { hook_event_name: "UserPromptSubmit", prompt: prompt.text });
    if (verdict?.stop) {
      state.stoppedBy(verdict.stop, "stopped the run");
      return "stopped";
    }
    if (verdict?.block) continue;
    const message = userMessage(prompt.content ?? prompt.text, verdict?.additionalContext ?? []);
    join(history, message);
    added = true;
    yield [{ type: "user_turn", turn: state.turn, message, source: "steer" }];
  }
  return added ? "added" : "none";
}

/** Appends a user turn, or joins it to the user message the history ends with (tool results). */
function join(history: ConversationMessage[], message: UserMessage): void {
  const last = history.at(-1);
  if (last?.role !== "user") {
    history.push(message);
    return;
  }
  history[history.length - 1] = { role: "user", content: [...blocksOf(last), ...blocksOf(message)] };
}

function blocksOf(message: UserMessage): UserContentBlock[] {
  return typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content;
}
