/**
 * The reference's names for a run's stream events (docs/serve.md, "The run's stream"): what its
 * public clients parse between the stream's first frame and its closing `result` / `done`.
 *
 * Each stored event maps to at most one frame, from the event alone, so a reconnect with
 * `Last-Event-ID` rebuilds exactly the frames the first connection sent (the frame keeps the stored
 * event's number as its id). An event the reference has no name for (a model call's start and end,
 * a turn's end, hooks, …) sends no frame; its number is simply not among the ids a client sees.
 */
export type StreamFrame = { event: string; data: Record<string, unknown> };

type StoredEvent = Record<string, unknown> & { type?: string };

export function referenceFrameOf(runId: string, stored: StoredEvent): StreamFrame | undefined {
  switch (stored.type) {
    case "run_start":
      // The run went from queued to under way: the reference's status update.
      return { event: "status", data: { runId, status: "RUNNING" } };
    case "assistant_block": {
      const block = stored.block as { type: string; text?: string; thinking?: string };
      if (block.type === "text") return { event: "assistant", data: { text: block.text ?? "" } };
      if (block.type === "thinking") return { event: "thinking", data: { text: block.thinking ?? "" } };
      // A tool_use block is sent as its tool_start's `tool_call`.
      return undefined;
    }
    case "tool_start":
      return {
        event: "tool_call",
        data: { callId: stored.toolUseId, name: stored.name, status: "running", args: stored.input },
      };
    case "tool_end": {
      const outcome = stored.outcome as { content: string; isError: boolean };
      return {
        event: "tool_call",
        data: {
          callId: stored.toolUseId,
          name: stored.name,
          status: "completed",
          args: stored.input,
          // The reference's clients read a call's outcome under `result.success` (and an error's
          // under `result.error`); the content is what the model was given.
          result: outcome.isError
            ? { error: { message: outcome.content } }
            : { success: { content: outcome.content } },
        },
      };
    }
    default:
      return undefined;
  }
}

/** The vocabularies a stream can be asked for: the reference's (the default) or cairn's own events. */
export type StreamVocabulary = "reference" | "cairn";

/** `?events=` of a stream request: absent or `reference` for the reference's frames, `cairn` for cairn's events. */
export function streamVocabularyOf(value: string | null): StreamVocabulary | undefined {
  if (value === null || value === "reference") return "reference";
  if (value === "cairn") return "cairn";
  return undefined;
}
