import * as z from "zod";
import { bwrapCommand } from "../sandbox/bwrap.js";
import { type SandboxPolicy, sandboxRunner } from "../sandbox/policy.js";
import { nowMs } from "../util/clock.js";
import { stat } from "../util/fs-async.js";
import { spawn } from "../util/spawn.js";
import { BUILTIN_JSON_SCHEMAS } from "./builtin-json-schemas.js";
import { CappedOutput } from "./capped-output.js";
import { defineTool } from "./define.js";
import { findShell, KILL_GRACE_MS, signalGroup, stopGroup } from "./process-group.js";
import { taggedEnvironment } from "./run-processes.js";
import type { ToolContext, ToolOutput } from "./types.js";

export const BASH_DEFAULT_TIMEOUT_MS = 120_000;
export const BASH_MAX_TIMEOUT_MS = 600_000;
/** How long a background command may run (the reference's defaults: 30 min, at most 2 h). */
export const BACKGROUND_DEFAULT_TIMEOUT_MS = 1_800_000;
export const BACKGROUND_MAX_TIMEOUT_MS = 7_200_000;
/** After the shell exits, how long background jobs may keep its output open before they are stopped. */
const LEFTOVER_GRACE_MS = 200;

const input = () =>
  z
    .object({
      command: z.string().min(1).describe("The shell command to run (bash -c)."),
      timeout: z
        .number()
        .int()
        .min(1)
        .max(BACKGROUND_MAX_TIMEOUT_MS)
        .optional()
        .describe(
          `Timeout in milliseconds (default ${BASH_DEFAULT_TIMEOUT_MS}, max ${BASH_MAX_TIMEOUT_MS}; in the background default ${BACKGROUND_DEFAULT_TIMEOUT_MS}, max ${BACKGROUND_MAX_TIMEOUT_MS}).`,
        ),
      description: z
        .string()
        .optional()
        .describe("A short description of what the command does (5-10 words)."),
      run_in_background: z
        .boolean()
        .optional()
        .describe(
          "Run the command in the background and return its shell id at once; read its output with BashOutput, stop it with TaskStop.",
        ),
    })
    .refine((args) => args.run_in_background === true || (args.timeout ?? 0) <= BASH_MAX_TIMEOUT_MS, {
      message: `a foreground command's timeout is at most ${BASH_MAX_TIMEOUT_MS} ms (set run_in_background for longer)`,
      path: ["timeout"],
    });

export const bashTool = defineTool({
  name: "Bash",
  // Its command can do anything, the network included; the shell check of the command decides.
  effects: { kind: "execute", readOnly: false, network: true, command: (args) => args.command },
  payload: "shell",
  // A title is one line: a script's first line, marked as cut.
  display: (args) => {
    const [first, ...rest] = args.command.split("\n");
    const background = args.run_in_background === true ? " (in the background)" : "";
    return { title: `\`${first}\`${rest.length > 0 ? " …" : ""}${background}`, kind: "execute" };
  },
  description:
    "Runs a shell command with `bash -c` in the working directory and returns its stdout, stderr and exit code. " +
    "There is no input (stdin is empty) and no terminal, so avoid interactive commands. " +
    `Times out after ${BASH_DEFAULT_TIMEOUT_MS / 1000} s by default (timeout in ms, max ${BASH_MAX_TIMEOUT_MS / 60_000} min); the command and all its child processes are then stopped. ` +
    "Long outputs keep their start and end. Prefer Read, Glob, Grep and Edit over cat, find, grep and sed. " +
    "Commands may run in a sandbox: then only the working directory (and a /tmp private to the command) is writable, " +
    "git hooks and config stay read-only, there is no network, and background processes end with the command. " +
    "With run_in_background the command keeps running after the call returns its shell id: read what it printed since " +
    "the last read with BashOutput, stop it with TaskStop; it is stopped when the session ends.",
  input,
  jsonSchema: BUILTIN_JSON_SCHEMAS.Bash,
  outputLimit: 32_000,
  async run(args, ctx) {
    const info = await stat(ctx.cwd).catch(() => undefined);
    if (!info?.isDirectory())
      return { content: `Working directory does not exist: ${ctx.cwd}`, isError: true };
    const plainEnv = withoutDeniedVariables(ctx.env, ctx.sandbox?.deniedEnv);
    const env = ctx.sandbox ? taggedEnvironment(plainEnv, ctx.sandbox.runTag) : plainEnv;
    if (args.run_in_background === true) return startInBackground(args, env, ctx);
    const timeout = args.timeout ?? BASH_DEFAULT_TIMEOUT_MS;
    const result = await runCommand(args.command, {
      cwd: ctx.cwd,
      env,
      timeout,
      signal: ctx.signal,
      ...(ctx.sandbox ? { sandbox: ctx.sandbox } : {}),
    });
    const { stoppedLeftovers: _, ...outcome } = result;
    const data = { command: args.command, workingDirectory: ctx.cwd, ...outcome };
    return { content: describe(result, timeout), data, isError: result.timedOut };
  },
});

/** Starts the command as one of the session's background shells and says how to follow it. */
async function startInBackground(
  args: { command: string; description?: string | undefined; timeout?: number | undefined },
  env: NodeJS.ProcessEnv,
  ctx: ToolContext,
): Promise<ToolOutput> {
  if (!ctx.backgroundShells) {
    return {
      content: "Background shells are not available here: run the command without run_in_background.",
      isError: true,
    };
  }
  const shell = await ctx.backgroundShells.start({
    command: args.command,
    ...(args.description ? { description: args.description } : {}),
    cwd: ctx.cwd,
    env,
    timeout: args.timeout ?? BACKGROUND_DEFAULT_TIMEOUT_MS,
    ...(ctx.sandbox ? { sandbox: ctx.sandbox } : {}),
  });
  return {
    content:
      `Command running in background with ID: ${shell.id}. ` +
      `Read its new output with BashOutput (bash_id "${shell.id}"), stop it with TaskStop (task_id "${shell.id}"). ` +
      "It is stopped when the session ends.",
    data: {
      command: args.command,
      workingDirectory: ctx.cwd,
      stdout: "",
      stderr: "",
      interrupted: false,
      backgroundTaskId: shell.id,
    },
  };
}

/** The environment without the variables the settings deny commands (sandbox credentials.envVars). */
function withoutDeniedVariables(env: NodeJS.ProcessEnv, denied: readonly string[] | undefined) {
  if (!denied || denied.length === 0) return env;
  const kept = { ...env };
  for (const name of denied) delete kept[name];
  return kept;
}

type CommandResult = {
  exitCode: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  interleavedOutput: string;
  executionTime: number;
  timedOut: boolean;
  interrupted: boolean;
  /** Background jobs kept the output open after the shell exited and were stopped. */
  stoppedLeftovers: boolean;
};

function describe(result: CommandResult, timeout: number): string {
  const parts: string[] = [];
  if (result.stdout) parts.push(result.stdout.replace(/\n$/, ""));
  if (result.stderr) parts.push(result.stderr.replace(/\n$/, ""));
  if (result.timedOut) {
    parts.push(`Command timed out after ${timeout} ms; it and its child processes were stopped.`);
  } else if (result.interrupted) {
    parts.push("Command was interrupted; it and its child processes were stopped.");
  } else if (result.signal) {
    parts.push(`Command was terminated by signal ${result.signal}.`);
  } else if (result.exitCode !== 0) {
    parts.push(`Exit code ${result.exitCode}`);
  }
  if (result.stoppedLeftovers) {
    parts.push(
      "Background processes still holding the command's output were stopped when it finished; " +
        "redirect their output (e.g. `cmd > file 2>&1 &`) to keep them running.",
    );
  }
  return parts.join("\n") || "(no output)";
}

/**
 * Runs the command in its own process group and resolves once its output is closed, having stopped
 * the whole group on timeout or abort, so no child outlives the call unless it detached its output.
 * Under the sandbox the command runs in bubblewrap's PID namespace: everything it started ends with it.
 */
async function runCommand(
  command: string,
  options: {
    cwd: string;
    env: NodeJS.ProcessEnv;
    timeout: number;
    signal: AbortSignal;
    sandbox?: SandboxPolicy;
  },
): Promise<CommandResult> {
  const shell = await findShell(options.env.PATH ?? "");
  const { sandbox } = options;
  const bwrapPath = await sandboxRunner(sandbox);
  const sandboxed =
    sandbox && bwrapPath ? bwrapCommand(sandbox, bwrapPath, [shell, "-c", command], options.cwd) : undefined;
  const started = nowMs();
  // What a terminal would have shown: both streams as their chunks arrived.
  const interleaved = new CappedOutput();
  const stdout = new CappedOutput(undefined, undefined, interleaved);
  const stderr = new CappedOutput(undefined, undefined, interleaved);
  let timedOut = false;
  let interrupted = false;
  let stoppedLeftovers = false;
  let cancelKill: (() => void) | undefined;
  let exited: { code: number | null; signal: string | null } | undefined;

  const child = spawn(sandboxed?.file ?? shell, sandboxed?.args ?? ["-c", command], {
    cwd: options.cwd,
    env: options.env,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const pid = child.pid;
  const stop = () => {
    if (pid !== undefined && !cancelKill) cancelKill = stopGroup(pid);
  };
  child.stdout.on("data", (chunk: Buffer) => stdout.write(chunk));
  child.stderr.on("data", (chunk: Buffer) => stderr.write(chunk));

  const timer = setTimeout(() => {
    // A command that finished in time is not "timed out" because a leftover job still held its output.
    if (exited) return;
    timedOut = true;
    stop();
  }, options.timeout);
  const onAbort = () => {
    interrupted = true;
    stop();
  };
  options.signal.addEventListener("abort", onAbort, { once: true });
  // An abort that came while the shell was being looked up or spawned has already fired.
  if (options.signal.aborted) onAbort();
  let leftoverTimer: NodeJS.Timeout | undefined;
  let holderTimer: NodeJS.Timeout | undefined;

  const exit = await new Promise<{ code: number | null; signal: string | null; error?: Error }>((resolve) => {
    child.once("exit", (code, signal) => {
      exited = { code, signal };
      leftoverTimer = setTimeout(() => {
        stoppedLeftovers = !timedOut && !interrupted;
        stop();
        // A job that left the group (`setsid`) still holds the output: stop reading it.
        holderTimer = setTimeout(() => {
          child.stdout.destroy();
          child.stderr.destroy();
        }, KILL_GRACE_MS + LEFTOVER_GRACE_MS);
      }, LEFTOVER_GRACE_MS);
    });
    child.once("close", (code, signal) => resolve(exited ?? { code, signal }));
    child.once("error", (error) => resolve({ code: null, signal: null, error }));
  });

  clearTimeout(timer);
  clearTimeout(leftoverTimer);
  clearTimeout(holderTimer);
  sandboxed?.release();
  options.signal.removeEventListener("abort", onAbort);
  // Keep the pending SIGKILL only while something of the group survives (e.g. a job ignoring SIGTERM).
  if (cancelKill && (pid === undefined || !signalGroup(pid, 0))) cancelKill();
  stdout.end();
  stderr.end();
  if (exit.error) stderr.write(`Failed to start ${shell}: ${exit.error.message}\n`);
  return {
    exitCode: exit.error ? null : exit.code,
    signal: exit.signal,
    stdout: stdout.toString(),
    stderr: stderr.toString(),
    interleavedOutput: interleaved.toString(),
    executionTime: Math.round(nowMs() - started),
    timedOut,
    interrupted,
    stoppedLeftovers,
  };
}
