import { TASK_STOP_ALIASES } from "./task-stop.js";
import type { ToolOutcome } from "./types.js";

/**
 * What a finished tool call tells about the session's background shells, for the doors that list
 * them (the SDK's task messages, ACP's tool calls): a Bash call started one, or a BashOutput /
 * TaskStop call found one ended. Read from the calls' results alone, so every door can project it
 * from the events it already gets; a shell's end is known once the model reads or stops it, or
 * when the session ends (which ends them all).
 */
export type BackgroundShellEvent =
  | { kind: "started"; shellId: string; command: string; description?: string }
  | {
      kind: "ended";
      shellId: string;
      command: string;
      status: "completed" | "failed" | "killed";
      exitCode: number | null;
    };

const STOP_NAMES = new Set<string>(["TaskStop", ...TASK_STOP_ALIASES]);

export function backgroundShellEvent(
  toolName: string,
  input: Record<string, unknown>,
  outcome: Pick<ToolOutcome, "isError" | "data">,
): BackgroundShellEvent | undefined {
  const data = outcome.data;
  if (outcome.isError || !data) return undefined;
  const command = typeof data.command === "string" ? data.command : "";
  if (toolName === "Bash" && typeof data.backgroundTaskId === "string") {
    const description = typeof input.description === "string" ? input.description : undefined;
    return {
      kind: "started",
      shellId: data.backgroundTaskId,
      command,
      ...(description ? { description } : {}),
    };
  }
  const status = data.status;
  if (status !== "completed" && status !== "failed" && status !== "killed") return undefined;
  const exitCode = typeof data.exitCode === "number" ? data.exitCode : null;
  if (toolName === "BashOutput" && typeof data.shellId === "string")
    return { kind: "ended", shellId: data.shellId, command, status, exitCode };
  if (STOP_NAMES.has(toolName) && typeof data.task_id === "string")
    return { kind: "ended", shellId: data.task_id, command, status, exitCode };
  return undefined;
}

/** One line saying how a background shell ended. */
export function backgroundEndSummary(event: Extract<BackgroundShellEvent, { kind: "ended" }>): string {
  const how =
    event.status === "killed"
      ? "was stopped"
      : event.exitCode !== null
        ? `${event.status} with exit code ${event.exitCode}`
        : event.status;
  return `Background shell ${event.shellId} (\`${event.command}\`) ${how}.`;
}
