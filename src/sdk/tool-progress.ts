import { randomUUID } from "node:crypto";
import type { EngineEvent } from "../engine/events.js";
import type { SDKToolProgressMessage } from "./messages.js";

/** Seconds between two heartbeats of a running tool, unless the environment says otherwise. */
export const DEFAULT_TOOL_PROGRESS_SECONDS = 5;

const TICK: unique symbol = Symbol("tick");

/**
 * `tool_progress` heartbeats: while tools run, waiting for the engine's next event also yields one
 * message per running tool every interval (`CAIRN_TOOL_PROGRESS_SECONDS` of the query's environment).
 */
export class ToolProgress {
  private readonly running = new Map<string, { name: string; since: number }>();
  private readonly intervalMs: number;

  constructor(env: NodeJS.ProcessEnv) {
    const seconds = Number(env.CAIRN_TOOL_PROGRESS_SECONDS);
    this.intervalMs = (seconds > 0 ? seconds : DEFAULT_TOOL_PROGRESS_SECONDS) * 1000;
  }

  observe(event: EngineEvent): void {
    if (event.type === "tool_start")
      this.running.set(event.toolUseId, { name: event.name, since: Date.now() });
    else if (event.type === "tool_end") this.running.delete(event.toolUseId);
  }

  /** Waits for `pending`, yielding heartbeats meanwhile while a tool runs. */
  async *during<T>(pending: Promise<T>, sessionId: string): AsyncGenerator<SDKToolProgressMessage, T> {
    while (this.running.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      const tick = new Promise<typeof TICK>((resolve) => {
        timer = setTimeout(() => resolve(TICK), this.intervalMs);
      });
      const first = await Promise.race([pending, tick]).finally(() => clearTimeout(timer));
      if (first !== TICK) return first as T;
      for (const [toolUseId, tool] of this.running) {
        yield {
          type: "tool_progress",
          tool_use_id: toolUseId,
          tool_name: tool.name,
          parent_tool_use_id: null,
          elapsed_time_seconds: Math.round((Date.now() - tool.since) / 100) / 10,
          uuid: randomUUID(),
          session_id: sessionId,
        };
      }
    }
    return pending;
  }
}
