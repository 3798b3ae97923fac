import type { SessionEvent } from "./events.js";

/** Seconds between two heartbeats of a running tool, unless the environment says otherwise. */
export const DEFAULT_TOOL_HEARTBEAT_SECONDS = 5;

const TICK: unique symbol = Symbol("tick");

/** One running tool's heartbeat. */
export type ToolHeartbeat = { toolUseId: string; toolName: string; elapsedSeconds: number };

/**
 * Heartbeats of running tools: while tools run, waiting for the turn's next event also yields one
 * heartbeat per running tool every interval (`CAIRN_TOOL_PROGRESS_SECONDS` of the session's
 * environment). The SDK shows them as `tool_progress`, ACP as a call shown running.
 */
export class ToolHeartbeats {
  private readonly running = new Map<string, { name: string; since: number }>();
  private readonly intervalMs: number;

  constructor(env: NodeJS.ProcessEnv) {
    const seconds = Number(env.CAIRN_TOOL_PROGRESS_SECONDS);
    this.intervalMs = (seconds > 0 ? seconds : DEFAULT_TOOL_HEARTBEAT_SECONDS) * 1000;
  }

  observe(event: SessionEvent): void {
    if (event.type === "tool_start")
      this.running.set(event.toolUseId, { name: event.name, since: Date.now() });
    else if (event.type === "tool_end") this.running.delete(event.toolUseId);
  }

  /** Waits for `pending`, yielding heartbeats meanwhile while a tool runs. */
  async *during<T>(pending: Promise<T>): AsyncGenerator<ToolHeartbeat, T> {
    while (this.running.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      const tick = new Promise<typeof TICK>((resolve) => {
        timer = setTimeout(() => resolve(TICK), this.intervalMs);
      });
      const first = await Promise.race([pending, tick]).finally(() => clearTimeout(timer));
      if (first !== TICK) return first as T;
      for (const [toolUseId, tool] of this.running) {
        yield {
          toolUseId,
          toolName: tool.name,
          elapsedSeconds: Math.round((Date.now() - tool.since) / 100) / 10,
        };
      }
    }
    return pending;
  }
}
