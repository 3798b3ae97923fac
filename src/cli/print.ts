import { statSync } from "node:fs";
import { databaseTranscriptsOf } from "../durable/database-transcripts.js";
import type { ModelCallRetryEvent, RunEndEvent } from "../engine/events.js";
import { type HookRunRecord, hookFailureText } from "../engine/hooks.js";
import type { AssembledRun } from "../run/assemble.js";
import type { SessionEvent } from "../session/events.js";
import { Session } from "../session/session.js";
import { killRunProcessesOnExit } from "../tools/run-processes.js";
import { UsageError } from "../util/exit-codes.js";
import type { CliOptions } from "./args.js";
import { writeError } from "./errors.js";
import { projectionFor } from "./formats/select.js";
import { StdoutWriter } from "./output.js";
import { ProgressLine } from "./progress.js";
import { writeRunReport } from "./run-report.js";
import { cliSessionSetup } from "./session-setup.js";
import { toolPayloadShape } from "./tool-payload-shape.js";

/** `env`: the environment the entry read once and handed down (docs/architecture.md, "Settings"). */
export type PrintOptions = CliOptions & { prompt: string; cwd: string; env: NodeJS.ProcessEnv };

export type PrintOutcome = {
  /** The run's last event; undefined only if the engine stopped without one. */
  end: RunEndEvent | undefined;
  /** The reader of stdout went away before everything was written. */
  stdoutClosed: boolean;
  /** `--report <file>` was asked for and could not be written (said on stderr). */
  reportFailed?: boolean;
};

/**
 * Runs one prompt headless, writing the chosen format's projection of the session's events to
 * stdout (and, for `text` at a terminal, a progress line to stderr). `signal` stops the run
 * (Ctrl-C); a reader closing stdout stops it too. Deciding the exit code is the caller's job.
 */
export async function runPrint(options: PrintOptions, signal: AbortSignal): Promise<PrintOutcome> {
  assertDirectory(options.cwd);
  const writer = new StdoutWriter();
  const store = databaseTranscriptsOf(options.databaseUrl, options.env);
  const session = new Session(cliSessionSetup(options, { answered: false, ...(store ? { store } : {}) }));
  // A call is named on the line as every door shows it: the session's display title.
  const progress =
    options.outputFormat === "text" && process.stderr.isTTY
      ? new ProgressLine(
          process.stderr,
          Date.now,
          (name, input) => session.describe(name, input, { live: false }).title,
        ).start()
      : undefined;
  const stop = (reason: unknown) => session.stopTurns(reason);
  writer.onClosed = stop;
  const forward = () => stop(signal.reason);
  if (signal.aborted) forward();
  else signal.addEventListener("abort", forward, { once: true });
  let cancelExitKill = () => {};
  let outcome: PrintOutcome | undefined;
  try {
    const run = await session.assembly();
    // A forced exit (a second signal) still kills what the run's commands left behind.
    if (run.sandbox) cancelExitKill = killRunProcessesOnExit(run.sandbox.runTag, options.env);
    outcome = await printRun(session, run, options, { writer, progress });
    return outcome;
  } finally {
    signal.removeEventListener("abort", forward);
    // What the run started ends with it, also when it failed or was interrupted: SessionEnd hooks,
    // the transcript, MCP servers (whole process groups), leftover background jobs of its commands.
    for await (const event of session.end()) reportHook(event.record);
    await session.close();
    cancelExitKill();
    // Once the transcript is closed: the report shows the whole run, its end included.
    if (options.report !== undefined && !(await writeRunReport(session, options.report)) && outcome)
      outcome.reportFailed = true;
    await store?.close();
  }
}

type PrintIo = { writer: StdoutWriter; progress: ProgressLine | undefined };

/** The one prompt, from its session's first event to the last byte written. */
async function printRun(
  session: Session,
  run: AssembledRun,
  options: PrintOptions,
  { writer, progress }: PrintIo,
): Promise<PrintOutcome> {
  // A custom command whose model cannot be used fails before a session is started for nothing.
  const expansion = await run.expandPrompt(options.prompt);
  // The run's tools: the gate applied the rules to what they declare; stream-json shows their payloads.
  const projection = projectionFor(options.outputFormat, options.streamPartialOutput, run.tools, {
    fullPayloads: fullPayloads(options),
    thinking: printsThinking(options),
  });
  /**
   * One batch's output. A function of its own, apart from this long async function: its loop is
   * the hot code of a streamed answer, and V8 then optimises this small function early and
   * cheaply instead of the whole of printRun, late and at length on the machine's other core.
   */
  const printBatch = (batch: SessionEvent[]): string => {
    let output = "";
    for (const event of batch) {
      // Nearly every event of a streamed answer is a delta, which needs none of the checks below:
      // one test instead of five per delta.
      if (event.type === "stream") {
        progress?.update(event);
        output += projection.project(event);
        continue;
      }
      if (event.type === "session_notice") {
        writeError(event.content);
        continue;
      }
      if (event.type === "permission_request" || event.type === "permission_mode_changed") continue;
      progress?.update(event);
      if (event.type === "model_call_retry") process.stderr.write(`${describeRetry(event)}\n`);
      if (event.type === "turn_end" && event.stopReason !== null && CUT_SHORT[event.stopReason])
        process.stderr.write(`cairn: ${CUT_SHORT[event.stopReason]}\n`);
      if (event.type === "hook_result") reportHook(event.record);
      if (event.type === "model_fallback")
        process.stderr.write(
          `cairn: ${event.from} is unavailable (${event.error}); continuing with ${event.to}\n`,
        );
      output += projection.project(event);
    }
    return output;
  };
  let end: RunEndEvent | undefined;
  try {
    const batches = session.promptBatches(
      { text: options.prompt },
      {
        expansion: expansion ?? null,
        ...(options.maxTurns !== undefined ? { maxTurns: options.maxTurns } : {}),
      },
    );
    // A batch is every event of one network chunk (or one other event): its output is one write.
    while (true) {
      const step = await batches.next();
      if (step.done) {
        end = step.value;
        break;
      }
      writer.write(printBatch(step.value));
      const blocked = writer.ready();
      if (blocked) await blocked;
    }
    if (end) {
      progress?.stop(); // erased before the answer appears
      writer.write(projection.project(end));
    }
  } finally {
    progress?.stop();
    await writer.flush();
  }
  return { end, stdoutClosed: writer.closed };
}

/** What a hook said to the user, or why it failed: one stderr line (stdout stays the protocol's). */
function reportHook(record: HookRunRecord): void {
  if (record.error) writeError(hookFailureText(record));
  if (record.systemMessage) writeError(`${record.event} hook ${record.hookName}: ${record.systemMessage}`);
}

/** One stderr line per retry, so a slow run says why it is waiting (stdout stays the protocol's). */
/** Stops after which the answer on stdout is not the whole one the model meant: said on stderr. */
const CUT_SHORT: Partial<Record<string, string>> = {
  max_tokens: "the model stopped at its output limit (max_tokens): the answer may be cut short",
  refusal: "the model refused to answer (stop reason: refusal)",
};

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

/** `--tool-payloads`, else CAIRN_TOOL_PAYLOADS, else full: the reference CLI's further payload fields (docs/events.md). */
export function fullPayloads(options: Pick<PrintOptions, "toolPayloads" | "env">): boolean {
  return toolPayloadShape(options.toolPayloads, options.env).shape === "full";
}

/** `--print-thinking`, or CAIRN_PRINT_THINKING=1: the reference CLI's thinking events (docs/events.md). */
export function printsThinking(options: Pick<PrintOptions, "printThinking" | "env">): boolean {
  return options.printThinking || options.env.CAIRN_PRINT_THINKING === "1";
}
