import { bwrapCommand } from "../sandbox/bwrap.js";
import { type SandboxPolicy, sandboxRunner } from "../sandbox/policy.js";
import { CappedOutput } from "../tools/capped-output.js";
import { findShell, signalGroup, stopGroup } from "../tools/process-group.js";
import { spawn } from "../util/spawn.js";

/** More than any decision needs; a hook printing more is cut (and its JSON then fails to parse). */
const OUTPUT_LIMIT_CHARS = 1_000_000;

export type HookCommandRun = {
  command: string;
  cwd: string;
  /** Already scrubbed of secrets (the tools' environment) plus the hook variables. */
  env: NodeJS.ProcessEnv;
  /** Written to the command's stdin, which is then closed. */
  stdin: string;
  timeoutMs: number;
  signal: AbortSignal;
  /** Under this sandbox, when it is on (the workspace's own hooks: code from the repository). */
  sandbox?: SandboxPolicy;
};

export type HookCommandResult = {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  aborted: boolean;
  /** The shell could not be started. */
  spawnError?: string;
};

/**
 * The one place a command hook is spawned: `sh -c <command>` in its own process group, the input
 * on stdin. The group is stopped on timeout, when the run is aborted, and once the command has
 * exited (nothing a hook starts outlives it). A sandbox wraps this function.
 */
export async function spawnHookCommand(run: HookCommandRun): Promise<HookCommandResult> {
  const shell = await findShell(run.env.PATH ?? "");
  const stdout = new CappedOutput(OUTPUT_LIMIT_CHARS, 0);
  const stderr = new CappedOutput(OUTPUT_LIMIT_CHARS, 0);
  let timedOut = false;
  let aborted = false;
  let cancelKill: (() => void) | undefined;
  const bwrapPath = await sandboxRunner(run.sandbox);
  const sandboxed =
    run.sandbox && bwrapPath
      ? bwrapCommand(run.sandbox, bwrapPath, [shell, "-c", run.command], run.cwd)
      : undefined;
  const child = spawn(sandboxed?.file ?? shell, sandboxed?.args ?? ["-c", run.command], {
    cwd: run.cwd,
    env: run.env,
    detached: true,
    stdio: ["pipe", "pipe", "pipe"],
  });
  const pid = child.pid;
  const stop = () => {
    if (pid !== undefined && !cancelKill) cancelKill = stopGroup(pid);
  };
  child.stdout.on("data", (chunk: Buffer) => stdout.write(chunk));
  child.stderr.on("data", (chunk: Buffer) => stderr.write(chunk));
  // A hook that does not read its input closes the pipe early: not an error.
  child.stdin.on("error", () => {});
  child.stdin.end(run.stdin);
  const timer = setTimeout(() => {
    timedOut = true;
    stop();
  }, run.timeoutMs);
  const onAbort = () => {
    aborted = true;
    stop();
  };
  run.signal.addEventListener("abort", onAbort, { once: true });
  if (run.signal.aborted) onAbort();
  const exit = await new Promise<{ code: number | null; error?: Error }>((resolve) => {
    child.once("exit", () => stop());
    child.once("close", (code) => resolve({ code }));
    child.once("error", (error) => resolve({ code: null, error }));
  });
  clearTimeout(timer);
  sandboxed?.release();
  run.signal.removeEventListener("abort", onAbort);
  if (cancelKill && (pid === undefined || !signalGroup(pid, 0))) cancelKill();
  stdout.end();
  stderr.end();
  return {
    exitCode: exit.error ? null : exit.code,
    stdout: stdout.toString(),
    stderr: stderr.toString(),
    timedOut,
    aborted,
    ...(exit.error ? { spawnError: `cannot start ${shell}: ${exit.error.message}` } : {}),
  };
}
