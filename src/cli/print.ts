import { statSync } from "node:fs";
import type { EngineEvent, ModelCallRetryEvent, RunEndEvent } from "../engine/events.js";
import { type HookRunRecord, hookFailureText } from "../engine/hooks.js";
import { runAgentLoopBatches } from "../engine/loop.js";
import { parseMcpConfigFlags } from "../mcp/sources.js";
import { type AssembledRun, assembleRun } from "../run/assemble.js";
import { resolveSandboxPolicy } from "../sandbox/policy.js";
import { openSession } from "../sessions/open-session.js";
import { killRunProcessesOnExit } from "../tools/run-processes.js";
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
    ...(options.settingSources ? { settingSources: options.settingSources } : {}),
    ...(options.headers ? { headers: options.headers } : {}),
    hooks: {
      trust: options.trust,
      trustHint: "pass --trust, or add the workspace to trustedWorkspaces in the user config",
    },
    sandbox: async (roots, env) => {
      const { policy, warning } = await resolveSandboxPolicy(
        { ...(options.sandbox ? { mode: options.sandbox } : {}), network: options.sandboxNetwork },
        { roots, env },
      );
      return { policy, warnings: warning ? [warning] : [] };
    },
    mcp: {
      explicit: parseMcpConfigFlags(options.mcpConfigs, options.cwd),
      strict: options.strictMcpConfig,
      approveProject: options.approveMcps,
      // A server's own stderr is its log: shown with CAIRN_DEBUG=1; what happens to it, always.
      onLog: (server, line, kind) => {
        if (kind === "event" || process.env.CAIRN_DEBUG) writeError(`MCP server ${server}: ${line}`);
      },
    },
    ...options.longSession,
  });
  // A forced exit (a second signal) still kills what the run's commands left behind.
  const cancelExitKill = run.sandbox ? killRunProcessesOnExit(run.sandbox.runTag) : () => {};
  try {
    return await printRun(run, options, { controller, writer, progress, signal, forward });
  } finally {
    // What the run started ends with it, also when it failed or was interrupted: MCP servers (whole
    // process groups), leftover background jobs of its commands.
    await run.close();
    cancelExitKill();
  }
}

type PrintIo = {
  controller: AbortController;
  writer: StdoutWriter;
  progress: ProgressLine | undefined;
  signal: AbortSignal;
  forward: () => void;
};

/** The assembled run, from opening its session to the last byte written. */
async function printRun(
  run: AssembledRun,
  options: PrintOptions,
  { controller, writer, progress, signal, forward }: PrintIo,
): Promise<PrintOutcome> {
  // A custom command whose model cannot be used fails before a session is started for nothing.
  const expansion = await run.expandPrompt(options.prompt);
  const session = await openSession({
    cwd: options.cwd,
    ...(options.newSessionId !== undefined ? { sessionId: options.newSessionId } : {}),
    ...(typeof options.resume === "string" ? { resume: options.resume, createMissing: true } : {}),
    continueLatest: options.continueLatest,
    fork: options.forkSession,
  });
  for (const warning of [...session.warnings, ...run.warnings]) writeError(warning);
  for (const server of run.mcp.states())
    if (server.status !== "connected")
      writeError(`MCP server ${server.name} ${server.status}: ${server.error}`);
  // The run's tools: the gate applied the rules to what they declare; stream-json shows their payloads.
  const projection = projectionFor(options.outputFormat, options.streamPartialOutput, run.tools, {
    fullPayloads: fullPayloads(options),
    thinking: printsThinking(options),
  });

  let end: RunEndEvent | undefined;
  try {
    const events = runAgentLoopBatches(
      await run.loopOptions({
        prompt: options.prompt,
        expansion: expansion ?? null,
        signal: controller.signal,
        sessionId: session.sessionId,
        history: session.history,
        ...(options.maxTurns !== undefined ? { maxTurns: options.maxTurns } : {}),
        transcriptPath: session.writer?.path ?? "",
        sessionStart: session.history.length > 0 ? "resume" : "startup",
      }),
    );
    /**
     * One batch's output. A function of its own, apart from this long async function: its loop is
     * the hot code of a streamed answer, and V8 then optimises this small function early and
     * cheaply instead of the whole of printRun, late and at length on the machine's other core.
     */
    const printBatch = (batch: EngineEvent[]): string => {
      let output = "";
      for (const event of batch) {
        // Nearly every event of a streamed answer is a delta, which the transcript does not record
        // and which needs none of the checks below: one test instead of five per delta.
        if (event.type === "stream") {
          progress?.update(event);
          output += projection.project(event);
          continue;
        }
        session.writer?.recordEvent(event);
        if (event.type === "run_end") {
          end = event;
          progress?.stop(); // erased before the answer appears
        } else progress?.update(event);
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
    // A batch is every event of one network chunk (or one other event): its output is one write.
    for await (const batch of events) {
      writer.write(printBatch(batch));
      const blocked = writer.ready();
      if (blocked) await blocked;
    }
    // The session ends with the run: SessionEnd hooks still run when the run failed or was interrupted.
    if (run.hooks?.has("SessionEnd")) {
      const verdict = await run.hooks.run(
        { hook_event_name: "SessionEnd", reason: "other" },
        { signal: AbortSignal.timeout(SESSION_END_LIMIT_MS) },
      );
      for (const record of verdict.records) {
        session.writer?.recordEvent({ type: "hook_result", turn: end?.numTurns ?? 0, record });
        reportHook(record);
      }
    }
  } finally {
    session.writer?.close();
    progress?.stop();
    await writer.flush();
    signal.removeEventListener("abort", forward);
  }
  return { end, stdoutClosed: writer.closed };
}

/** SessionEnd hooks get this long in all, whatever their own timeouts (the run is over). */
const SESSION_END_LIMIT_MS = 60_000;

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

/** `--tool-payloads`, else CAIRN_TOOL_PAYLOADS: the reference CLI's further payload fields (docs/events.md). */
export function fullPayloads(options: Pick<PrintOptions, "toolPayloads">): boolean {
  return (options.toolPayloads ?? process.env.CAIRN_TOOL_PAYLOADS) === "full";
}

/** `--print-thinking`, or CAIRN_PRINT_THINKING=1: the reference CLI's thinking events (docs/events.md). */
export function printsThinking(options: Pick<PrintOptions, "printThinking">): boolean {
  return options.printThinking || process.env.CAIRN_PRINT_THINKING === "1";
}
