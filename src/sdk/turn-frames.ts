import { randomUUID } from "node:crypto";
import type { SDKMessage, SDKUserMessage, SDKUserMessageReplay, UUID } from "./messages.js";
import type { ResolvedOptions } from "./options.js";
import type { SDKSessionStateChangedMessage } from "./unemitted-messages.js";

/** The `extraArgs` key (the CLI flag `--replay-user-messages`) that asks for the prompts' echoes. */
export const REPLAY_USER_MESSAGES = "replay-user-messages";

/**
 * What the convention's CLI adds around each turn when the program asks for it, so that a program
 * running cairn in-process (an editor adapter whose `@anthropic-ai/claude-agent-sdk` import is bound
 * to cairn) sees what it sees through the official SDK and its CLI:
 *
 * - `CLAUDE_CODE_EMIT_SESSION_STATE_EVENTS=1` in the query's environment (`options.env`, else
 *   `process.env`: what the SDK hands its CLI): `system`/`session_state_changed` `running` right
 *   before the turn's `system`/`init`, `idle` right after its `result`. Zed's adapter ends a prompt
 *   on `idle`, not on the `result`.
 * - `extraArgs["replay-user-messages"]` (the SDK passes it on as `--replay-user-messages`): each
 *   prompt echoed right after its turn's `system`/`init`, with `isReplay: true`, its `uuid` and the
 *   session's id. Zed's adapter takes a `result` for its prompt's only after that echo (before it,
 *   for a background task's), and a queued prompt's echo as "its turn has begun".
 *
 * The same frames as cairn's CLI protocol sends (src/claude-protocol/serve.ts).
 */
export class TurnFrames {
  private constructor(
    private readonly states: boolean,
    private readonly replays: boolean,
  ) {}

  static of(options: Pick<ResolvedOptions, "env" | "extraArgs">): TurnFrames {
    const { env } = options;
    return new TurnFrames(
      env.CLAUDE_CODE_EMIT_SESSION_STATE_EVENTS === "1",
      options.extraArgs !== undefined && Object.hasOwn(options.extraArgs, REPLAY_USER_MESSAGES),
    );
  }

  /**
   * The prompt as its turn will run it: a string prompt as the user message the SDK would write, and
   * with a `uuid` when it is echoed (one the program did not give is made here, so the echo and the
   * turn's user message name the same id).
   */
  prompt(prompt: string | SDKUserMessage): SDKUserMessage {
    const message: SDKUserMessage =
      typeof prompt === "string"
        ? { type: "user", message: { role: "user", content: prompt }, parent_tool_use_id: null }
        : prompt;
    // Not a message at all: left for the turn to refuse with its own error.
    if (!this.replays || message === null || typeof message !== "object" || typeof message.uuid === "string")
      return message;
    return { ...message, uuid: randomUUID() };
  }

  /** The turn's messages with the frames asked for around them. */
  async *around(
    turn: AsyncGenerator<SDKMessage, void>,
    prompt: SDKUserMessage,
  ): AsyncGenerator<SDKMessage, void> {
    if (!this.states && !this.replays) return yield* turn;
    for await (const message of turn) {
      const init = message.type === "system" && message.subtype === "init";
      if (init && this.states) yield stateChanged("running", message.session_id);
      yield message;
      if (init && this.replays) yield replayOf(prompt, message.session_id);
      if (message.type === "result" && this.states) yield stateChanged("idle", message.session_id);
    }
  }
}

function stateChanged(state: "running" | "idle", sessionId: string): SDKSessionStateChangedMessage {
  return {
    type: "system",
    subtype: "session_state_changed",
    state,
    uuid: randomUUID(),
    session_id: sessionId,
  };
}

function replayOf(prompt: SDKUserMessage, sessionId: string): SDKUserMessageReplay {
  return {
    ...prompt,
    uuid: (prompt.uuid ?? randomUUID()) as UUID,
    session_id: sessionId,
    isReplay: true,
  };
}
