import type { EngineEvent } from "../engine/events.js";

/**
 * A one-line progress display on stderr for `text` output at a terminal: `text` prints nothing until
 * the answer, and a long run that shows nothing looks dead (and gets killed by stall watchdogs).
 * The line says what the agent is doing and for how long, is redrawn in place, and is erased before
 * anything else is written, so neither stdout nor the final terminal shows a trace of it.
 */
const REDRAW_MS = 250;
const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
export const CLEAR_LINE = "\r\x1b[2K";

/** How a tool call is named on the line: the session's display title (print mode), else `describeTool`. */
export type DescribeCall = (name: string, input: Record<string, unknown>) => string;

/** What the agent is doing after `event`, given what it was doing before. */
export function activityAfter(
  event: EngineEvent,
  current: string,
  describe: DescribeCall = describeTool,
): string {
  switch (event.type) {
    case "model_call_start":
      return "Thinking";
    case "stream":
      return event.event.type === "content_block_delta" && event.event.delta.type === "text_delta"
        ? "Writing"
        : current;
    case "tool_start":
      // One line, whatever the call's title holds (a multi-line command).
      return describe(event.name, event.input).split("\n")[0]!;
    default:
      return current;
  }
}

/** "Read README.md", "Bash npm test": the tool and its most telling argument. */
export function describeTool(name: string, input: Record<string, unknown>): string {
  const detail = [input.file_path, input.command, input.pattern, input.path].find(
    (value): value is string => typeof value === "string",
  );
  return detail ? `${name} ${detail.split("\n")[0]}` : name;
}

/** The progress line for an activity after `elapsedMs`, cut to the terminal's width. */
export function renderProgress(activity: string, elapsedMs: number, columns: number): string {
  const frame = FRAMES[Math.floor(elapsedMs / REDRAW_MS) % FRAMES.length];
  const suffix = ` · ${Math.floor(elapsedMs / 1000)}s`;
  const room = Math.max(8, columns - 1 - suffix.length - 2);
  const text = activity.length > room ? `${activity.slice(0, room - 1)}…` : activity;
  return `${frame} ${text}${suffix}`;
}

export class ProgressLine {
  private activity = "Starting";
  private shown = "";
  private timer: NodeJS.Timeout | undefined;
  private readonly started: number;

  constructor(
    private readonly stream: NodeJS.WriteStream = process.stderr,
    private readonly now: () => number = Date.now,
    private readonly describe: DescribeCall = describeTool,
  ) {
    this.started = now();
  }

  start(): this {
    this.draw();
    this.timer = setInterval(() => this.draw(), REDRAW_MS);
    this.timer.unref();
    return this;
  }

  update(event: EngineEvent): void {
    const next = activityAfter(event, this.activity, this.describe);
    if (next === this.activity) return;
    this.activity = next;
    this.draw();
  }

  /** Erases the line; nothing of it remains on the terminal. */
  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    if (this.shown !== "") this.stream.write(CLEAR_LINE);
    this.shown = "";
  }

  private draw(): void {
    const line = renderProgress(this.activity, this.now() - this.started, this.stream.columns || 80);
    if (line === this.shown) return;
    this.shown = line;
    this.stream.write(`${CLEAR_LINE}${line}`);
  }
}
