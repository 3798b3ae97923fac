import { statSync } from "node:fs";
import { runAgentBatches } from "../engine/agent.js";
import type { ModelCallRetryEvent, RunEndEvent } from "../engine/events.js";
import { splitRuleList } from "../permissions/rules.js";
import { preparePermissionGate } from "../permissions/setup.js";
import { resolveSandboxPolicy } from "../sandbox/policy.js";
import { openSession } from "../sessions/open-session.js";
import { childEnvironment } from "../tools/child-env.js";
import { killRunProcessesOnExit, stopRunProcesses } from "../tools/run-processes.js";
import type { CliOptions } from "./args.js";
import { writeError } from "./errors.js";
import { UsageError } from "./exit-codes.js";
import { projectionFor } from "./formats/select.js";
import { StdoutWriter } from "./output.js";
import { ProgressLine } from "./progress.js";

export type PrintOptions = CliOptions & { prompt: string; cwd: string };

export type PrintOutcome = {
  /** The run's last event; undefined only if the engine stopped without one. */
  end: RunEndEvent | undefined;
  /** The reader of stdout went away before everything was written. */
  stdoutClosed: boolean;
};

/**
 * Runs one prompt headless, writing the chosen format's projection of the engine's events to stdout
 * (and, for `text` at a terminal, a progress line to stderr). `signal` stops the run (Ctrl-C); a
 * reader closing stdout stops it too. Deciding the exit code is the caller's job.
 */
export async function runPrint(options: PrintOptions, signal: AbortSignal): Promise<PrintOutcome> {
  assertDirectory(options.cwd);
  const controller = new AbortController();
  const forward = () => controller.abort(signal.reason);
  if (signal.aborted) forward();
  else signal.addEventListener("abort", forward, { once: true });

  const writer = new StdoutWriter();
  writer.onClosed = (error) => controller.abort(error);
  const projection = projectionFor(options.outputFormat, options.streamPartialOutput);
  const progress =
    options.outputFormat === "text" && process.stderr.isTTY ? new ProgressLine().start() : undefined;

  const session = await openSession({
    cwd: options.cwd,
    ...(typeof options.resume === "string" ? { resume: options.resume } : {}),
    continueLatest: options.continueLatest,
    fork: options.forkSession,
  });
  const toolEnv = childEnvironment(process.env);
  const { gate, warnings } = await preparePermissionGate({
    cwd: options.cwd,
    // Print mode cannot ask: reads and edits inside the workspace are allowed, the rest needs a rule.
    fallbackMode: "acceptEdits",
    ...(options.force ? { mode: "bypassPermissions" as const } : {}),
    ...(options.permissionMode && !options.force ? { mode: options.permissionMode } : {}),
    allowedTools: options.allowedTools,
    disallowedTools: options.disallowedTools,
    addDirs: options.addDirs,
    env: toolEnv,
    source: "--allowedTools/--disallowedTools",
  });
  const sandbox = await resolveSandboxPolicy(
    { ...(options.sandbox ? { mode: options.sandbox } : {}), network: options.sandboxNetwork },
    { roots: gate.roots, env: process.env, onFallback: writeError },
  );
  for (const warning of [...session.warnings, ...warnings]) writeError(warning);
  const cancelExitKill = killRunProcessesOnExit(sandbox.policy.runTag);

  let end: RunEndEvent | undefined;
  try {
    const events = runAgentBatches({
      prompt: options.prompt,
      cwd: options.cwd,
      signal: controller.signal,
      sessionId: session.sessionId,
      history: session.history,
      canUseTool: gate,
      toolEnv,
      sandbox: sandbox.policy,
      // Bare tool names are also taken off the list offered to the model.
      disallowedTools: options.disallowedTools.flatMap(splitRuleList).filter((rule) => !rule.includes("(")),
      ...(options.model !== undefined ? { model: options.model } : {}),
      ...(options.apiKey !== undefined ? { apiKey: options.apiKey } : {}),
      ...(options.baseUrl !== undefined ? { baseURL: options.baseUrl } : {}),
      ...(options.maxTurns !== undefined ? { maxTurns: options.maxTurns } : {}),
      // Reported in system/init: the reference CLI says "default" for its print-mode default.
      permissionMode: options.force ? "bypassPermissions" : (options.permissionMode ?? "default"),
    });
    // A batch is every event of one network chunk (or one other event): its output is one write.
    for await (const batch of events) {
      let output = "";
      for (const event of batch) {
        session.writer?.recordEvent(event);
        if (event.type === "run_end") {
          end = event;
          progress?.stop(); // erased before the answer appears
        } else progress?.update(event);
        if (event.type === "model_call_retry") process.stderr.write(`${describeRetry(event)}\n`);
        output += projection.project(event);
      }
      writer.write(output);
      const blocked = writer.ready();
      if (blocked) await blocked;
    }
  } finally {
    session.writer?.close();
    await stopRunProcesses(sandbox.policy.runTag);
    cancelExitKill();
    await sandbox.policy.probing; // its fallback warning, if any, is said before cairn exits
    progress?.stop();
    await writer.flush();
    signal.removeEventListener("abort", forward);
  }
  return { end, stdoutClosed: writer.closed };
}

/** One stderr line per retry, so a slow run says why it is waiting (stdout stays the protocol's). */
function describeRetry(event: ModelCallRetryEvent): string {
  const cause = event.errorStatus !== null ? `HTTP ${event.errorStatus}` : event.error;
  const wait = (event.delayMs / 1000).toFixed(1);
  return `cairn: model call failed (${cause}); retrying in ${wait} s (attempt ${event.attempt} of ${event.maxRetries + 1})`;
}

function assertDirectory(dir: string): void {
  try {
    if (statSync(dir).isDirectory()) return;
  } catch {
    // fall through to the error below
  }
  throw new UsageError(`Workspace ${dir} is not a directory.`);
}
