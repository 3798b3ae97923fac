import type { FiredHookEvent, HookInput } from "../engine/hooks.js";
import type { SandboxPolicy } from "../sandbox/policy.js";
import { type HookCommandResult, spawnHookCommand } from "./command.js";
import type { HookHandler, HookOrigin, OutputDialect, RawHookResult } from "./types.js";

export type CommandHookSpec = {
  command: string;
  /** Where it was declared (named in messages). */
  file: string;
  event: FiredHookEvent;
  origin: HookOrigin;
  dialect: OutputDialect;
  timeoutMs: number;
  matches: HookHandler["matches"];
  /** The workspace: the command's working directory. */
  cwd: string;
  /** The tools' environment (secrets removed). */
  env: NodeJS.ProcessEnv;
  /** Turns the input into what this format's commands read (Cursor's field names). */
  adaptInput?: (input: HookInput) => Record<string, unknown>;
  /** Shown in the name after the file (Cursor's event name). */
  label?: string;
  /** Run under the OS sandbox (the workspace's own hooks). */
  sandbox?: SandboxPolicy;
};

/**
 * A command hook: the input as JSON on stdin; exit 0 = answered (stdout parsed as JSON when it looks
 * like JSON), exit 2 = blocked with stderr as the reason, any other exit = a failure.
 */
export function commandHandler(spec: CommandHookSpec): HookHandler {
  const env = {
    ...spec.env,
    CAIRN_PROJECT_DIR: spec.cwd,
    CLAUDE_PROJECT_DIR: spec.cwd,
    ...(spec.dialect === "cursor" ? { CURSOR_PROJECT_DIR: spec.cwd } : {}),
  };
  return {
    name: `command ${spec.command} (${spec.file}${spec.label ? ` ${spec.label}` : ""})`,
    event: spec.event,
    origin: spec.origin,
    dialect: spec.dialect,
    matches: spec.matches,
    timeoutMs: spec.timeoutMs,
    failClosed: false,
    async invoke(input, _toolUseId, signal) {
      const payload = spec.adaptInput ? spec.adaptInput(input) : input;
      const result = await spawnHookCommand({
        command: spec.command,
        cwd: spec.cwd,
        env,
        stdin: JSON.stringify(payload),
        timeoutMs: spec.timeoutMs,
        signal,
        ...(spec.sandbox ? { sandbox: spec.sandbox } : {}),
      });
      return readCommandResult(result, spec.timeoutMs);
    },
  };
}

function readCommandResult(result: HookCommandResult, timeoutMs: number): RawHookResult {
  const { stdout, stderr } = result;
  if (result.spawnError) return { kind: "failed", error: result.spawnError, stdout, stderr };
  if (result.aborted) return { kind: "cancelled", stdout, stderr };
  if (result.timedOut)
    return { kind: "failed", error: `timed out after ${timeoutMs / 1000} s`, stdout, stderr };
  const exitCode = result.exitCode ?? -1;
  if (exitCode === 2) {
    return {
      kind: "blocked",
      reason: stderr.trim() || "the hook exited with code 2",
      stdout,
      stderr,
      exitCode,
    };
  }
  if (exitCode !== 0) {
    const said = stderr.trim().split("\n")[0];
    return {
      kind: "failed",
      error: `exited with code ${exitCode}${said ? `: ${said}` : ""}`,
      stdout,
      stderr,
      exitCode,
    };
  }
  const text = stdout.trim();
  if (!text.startsWith("{") && !text.startsWith("["))
    return { kind: "answered", output: undefined, stdout, stderr, exitCode };
  try {
    return { kind: "answered", output: JSON.parse(text), stdout, stderr, exitCode };
  } catch (error) {
    return {
      kind: "failed",
      error: `printed invalid JSON (${(error as Error).message})`,
      stdout,
      stderr,
      exitCode,
    };
  }
}
