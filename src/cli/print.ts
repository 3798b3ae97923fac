import { statSync } from "node:fs";
import type { ModelCallRetryEvent, RunEndEvent } from "../engine/events.js";
import { runAgentLoopBatches } from "../engine/loop.js";
import { assembleRun } from "../run/assemble.js";
import { openSession } from "../sessions/open-session.js";
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
  const progress =
    options.outputFormat === "text" && process.stderr.isTTY ? new ProgressLine().start() : undefined;

  const run = await assembleRun({
    cwd: options.cwd,
    permissions: {
      // Print mode cannot ask: reads and edits inside the workspace are allowed, the rest needs a rule.
      // The reference CLI calls that print-mode default "default".
      fallbackMode: "acceptEdits",
      fallbackReportedAs: "default",
      ...(options.force ? { mode: "bypassPermissions" as const } : {}),
      ...(options.permissionMode && !options.force ? { mode: options.permissionMode } : {}),
      allowedTools: options.allowedTools,
      disallowedTools: options.disallowedTools,
      addDirs: options.addDirs,
      source: "--allowedTools/--disallowedTools",
    },
    ...(options.model !== undefined ? { model: options.model } : {}),
    ...(options.apiKey !== undefined ? { apiKey: options.apiKey } : {}),
    ...(options.baseUrl !== undefined ? { baseURL: options.baseUrl } : {}),
    ...options.longSession,
  });
  const session = await openSession({
    cwd: options.cwd,
    ...(typeof options.resume === "string" ? { resume: options.resume } : {}),
    continueLatest: options.continueLatest,
    fork: options.forkSession,
  });
  for (const warning of [...session.warnings, ...run.warnings]) writeError(warning);
  // The run's tools: the gate applied the rules to what they declare; stream-json shows their payloads.
  const projection = projectionFor(options.outputFormat, options.streamPartialOutput, run.tools);

  let end: RunEndEvent | undefined;
  try {
    const events = runAgentLoopBatches(
      run.loopOptions({
        prompt: options.prompt,
        signal: controller.signal,
        sessionId: session.sessionId,
        history: session.history,
        ...(options.maxTurns !== undefined ? { maxTurns: options.maxTurns } : {}),
      }),
    );
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
        if (event.type === "model_fallback")
          process.stderr.write(
            `cairn: ${event.from} is unavailable (${event.error}); continuing with ${event.to}\n`,
          );
        output += projection.project(event);
      }
      writer.write(output);
      const blocked = writer.ready();
      if (blocked) await blocked;
    }
  } finally {
    session.writer?.close();
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
