import type { EngineEvent, HookResultEvent } from "./events.js";
import type { HookEventFields, HookRunRecord, HookVerdict } from "./hooks.js";
import type { LoopRun } from "./loop-run.js";
import type { AssistantContentBlock, ConversationMessage, PromptBlock, StreamedMessage } from "./messages.js";

/** A Stop hook may send the agent back to work this many times in a row; then the stop stands. */
export const MAX_STOP_HOOK_CONTINUATIONS = 8;

type UserMessage = Extract<ConversationMessage, { role: "user" }>;

/** Runs one event's hooks outside a tool call, yielding what ran. */
export async function* runHooks(
  run: LoopRun,
  fields: HookEventFields,
): AsyncGenerator<EngineEvent[], HookVerdict | undefined> {
  const hooks = run.options.hooks;
  if (!hooks?.has(fields.hook_event_name)) return undefined;
  const verdict = await hooks.run(fields, { signal: run.signal });
  if (verdict.records.length > 0) yield hookEvents(run.state.turn, verdict.records);
  return verdict;
}

/**
 * The hooks before the prompt: SessionStart when the run starts or resumes a session, then
 * UserPromptSubmit (a subagent's: SubagentStart). Gives what they add to the prompt, or undefined
 * when one stopped the run or refused the prompt (recorded as the run's end).
 */
export async function* openingHooks(run: LoopRun): AsyncGenerator<EngineEvent[], string[] | undefined> {
  const { options, state } = run;
  const context: string[] = [];
  if (options.sessionStart) {
    const verdict = yield* runHooks(run, {
      hook_event_name: "SessionStart",
      source: options.sessionStart,
      model: options.model,
    });
    context.push(...(verdict?.additionalContext ?? []));
    if (verdict?.stop) {
      state.stoppedBy(verdict.stop, "stopped the run");
      return undefined;
    }
  }
  const sub = options.subagent;
  const verdict = yield* runHooks(
    run,
    sub
      ? { hook_event_name: "SubagentStart", agent_id: sub.agentId, agent_type: sub.agentType }
      : { hook_event_name: "UserPromptSubmit", prompt: options.prompt },
  );
  context.push(...(verdict?.additionalContext ?? []));
  const refusal = verdict?.block ?? verdict?.stop;
  if (refusal) {
    // A refused prompt is not sent, and not kept in the conversation.
    state.stoppedBy(refusal, "blocked the prompt");
    return undefined;
  }
  return context;
}

/**
 * The model ended its turn without tool calls: the Stop hooks (a subagent's: SubagentStop) may
 * stop the run, or send the agent back to work with a further user turn, which this gives back.
 */
export async function* stopHooks(
  run: LoopRun,
  message: StreamedMessage,
): AsyncGenerator<EngineEvent[], UserMessage | undefined> {
  const { options, state } = run;
  const sub = options.subagent;
  const stopFields = {
    stop_hook_active: state.stopContinuations > 0,
    last_assistant_message: textOf(message.content),
  };
  const verdict = yield* runHooks(
    run,
    sub
      ? {
          hook_event_name: "SubagentStop",
          ...stopFields,
          agent_id: sub.agentId,
          agent_type: sub.agentType,
          agent_transcript_path: sub.transcriptPath,
        }
      : { hook_event_name: "Stop", ...stopFields },
  );
  if (verdict?.stop) state.stoppedBy(verdict.stop, "stopped the run");
  else if (verdict?.block && state.stopContinuations < MAX_STOP_HOOK_CONTINUATIONS) {
    // The hook wants more work: its reason is the next user turn.
    state.stopContinuations += 1;
    return userMessage(verdict.block.reason, verdict.additionalContext);
  }
  return undefined;
}

export function hookEvents(turn: number, records: HookRunRecord[], toolUseId?: string): HookResultEvent[] {
  return records.map((record) => ({
    type: "hook_result",
    turn,
    ...(toolUseId ? { toolUseId } : {}),
    record,
  }));
}

/** A user turn: the text, and what hooks added for the model as further text blocks. */
export function userMessage(prompt: string | PromptBlock[], context: readonly string[]): UserMessage {
  if (context.length === 0) return { role: "user", content: prompt };
  const blocks: PromptBlock[] = typeof prompt === "string" ? [{ type: "text", text: prompt }] : prompt;
  return {
    role: "user",
    content: [...blocks, ...context.map((part) => ({ type: "text" as const, text: part }))],
  };
}

/** Appends the prompt; after a `/compact` the history ends with the summary, which the prompt joins (one user message). */
export function addPrompt(history: ConversationMessage[], prompt: UserMessage): void {
  const last = history.at(-1);
  if (
    last?.role === "user" &&
    Array.isArray(last.content) &&
    last.content.every((block) => block.type === "text")
  ) {
    const added =
      typeof prompt.content === "string" ? [{ type: "text" as const, text: prompt.content }] : prompt.content;
    history[history.length - 1] = { role: "user", content: [...last.content, ...added] };
    return;
  }
  history.push(prompt);
}

function textOf(content: readonly (AssistantContentBlock | undefined)[]): string {
  return content.map((block) => (block?.type === "text" ? block.text : "")).join("");
}
