import { basename } from "node:path";
import type { ModelStreamEvent } from "../engine/messages.js";
import {
  DEFAULT_CHUNK_SIZE,
  DEFAULT_SCENARIO_MODEL,
  estimateTokens,
  type ReplyStep,
  renderReplyEvents,
  type Scenario,
} from "./scenario.js";
import { type ModelProvider, type ModelRequest, type ModelResponse, ProviderError } from "./types.js";

/**
 * The offline `replay:<scenario.json>` model: plays back scripted model turns, one per model call,
 * with no network. It is a replay of a script, never a real model: it does not read the prompt.
 */
export class ReplayProvider implements ModelProvider {
  readonly wire = "replay" as const;
  readonly apiKeySource = "none" as const;
  readonly displayName: string;
  private cursor = 0;

  constructor(
    private readonly scenario: Scenario,
    source: string,
  ) {
    this.displayName = `Replay (${basename(source)})`;
  }

  async stream(request: ModelRequest, signal: AbortSignal): Promise<ModelResponse> {
    const index = this.cursor++;
    const step = this.scenario.steps[index];
    if (!step) {
      throw new ProviderError(
        `Replay scenario exhausted after ${this.scenario.steps.length} steps: the run asked for model call #${index + 1}.`,
      );
    }
    if (step.kind === "error") {
      throw new ProviderError(
        `Replay step ${index + 1}: HTTP ${step.status} ${step.message ?? ""}`.trim(),
        step.status,
        step.retryAfter !== undefined ? { retryAfterMs: step.retryAfter * 1000 } : {},
      );
    }
    if (step.kind === "hang") {
      await waitForAbort(signal);
      throw signal.reason ?? new Error("aborted");
    }
    const events = renderReplyEvents(step, {
      chunkSize: this.scenario.chunkSize ?? DEFAULT_CHUNK_SIZE,
      model: this.scenario.model ?? DEFAULT_SCENARIO_MODEL,
      messageId: `msg_replay_${index + 1}`,
      toolUseId: (block) => `toolu_replay_${index + 1}_${block + 1}`,
      inputTokens: estimateTokens(request.messages),
    });
    return { events: play(events, step, signal) };
  }
}

async function* play(
  events: ModelStreamEvent[],
  step: ReplyStep,
  signal: AbortSignal,
): AsyncIterable<ModelStreamEvent> {
  for (let i = 0; i < events.length; i++) {
    if (signal.aborted) throw signal.reason ?? new Error("aborted");
    if (step.cutAfterEvents !== undefined && i >= step.cutAfterEvents) {
      throw new ProviderError("Replay: the model stream was cut mid-message (scripted fault).");
    }
    if (step.stall && i === step.stall.afterEvents) await delay(step.stall.ms, signal);
    if (step.delayPerEventMs) await delay(step.delayPerEventMs, signal);
    yield events[i]!;
  }
}

function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
  });
}

function waitForAbort(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener("abort", () => resolve(), { once: true });
  });
}
