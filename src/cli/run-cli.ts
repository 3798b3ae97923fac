import { statSync } from "node:fs";
import { resolve } from "node:path";
import { isatty } from "node:tty";
import { parseArgs } from "./args.js";
import { exitCodeFor, messageOf, writeError } from "./errors.js";
import { EXIT, UsageError } from "./exit-codes.js";
import { NO_INTERACTIVE } from "./help.js";
import { captureLibraryOutput } from "./library-output.js";
import { runList } from "./list-sessions.js";
import { isPrintMode, promptSource, type Terminal } from "./mode.js";
import { runModels } from "./models.js";
import { type PrintOutcome, printsThinking, runPrint } from "./print.js";
import { routeReferenceModel } from "./reference-model.js";
import { Interrupts } from "./signals.js";
import { readPromptFromStdin } from "./stdin.js";
import { toolPayloadShape } from "./tool-payload-shape.js";

/** Kept here (not in reference-commands.ts) so recognising a subcommand loads nothing more. */
const REFERENCE_COMMANDS = new Set([
  "status",
  "whoami",
  "about",
  "create-chat",
  "login",
  "logout",
  "update",
  "upgrade",
  "set-channel",
  "help",
]);

/** Every subcommand cairn answers itself (docs/cli.md lists each with its reference counterpart). */
export const SUBCOMMANDS: readonly string[] = ["models", "ls", "resume", "mcp", "acp", ...REFERENCE_COMMANDS];

/**
 * The CLI after `--version`'s fast path: parse, decide the mode (PM-2), find the prompt, run print
 * mode and turn the outcome into an exit code (README: exit codes). Never throws.
 */
export async function runCli(
  argv: string[],
  version: string,
  interrupts: Interrupts = new Interrupts().install(),
): Promise<number> {
  const libraryOutput = captureLibraryOutput();
  installLastResort(libraryOutput);
  try {
    return await run(argv, version, interrupts);
  } catch (error) {
    if (interrupts.exitCode !== undefined) return interrupted(interrupts.exitCode);
    writeError(messageOf(error));
    return exitCodeFor(error);
  } finally {
    interrupts.dispose();
    libraryOutput.flush(); // after cairn's own lines: the first stderr line is cairn's
  }
}

async function run(argv: string[], version: string, interrupts: Interrupts): Promise<number> {
  // The one subcommand; a prompt that is the single word "models" goes with -p.
  if (argv[0] === "models") return runModels(argv.slice(1));
  if (argv[0] === "ls") return runList(argv.slice(1));
  // The reference CLI's `resume`: the latest session of this directory, as --continue.
  if (argv[0] === "resume") return run(["--continue", ...argv.slice(1)], version, interrupts);
  if (argv[0] === "mcp") return (await import("./mcp-command.js")).runMcp(argv.slice(1));
  // The reference CLI's subcommands: answered here, never sent to a model as a prompt.
  if (argv[0] !== undefined && REFERENCE_COMMANDS.has(argv[0])) {
    const { runReferenceCommand } = await import("./reference-commands.js");
    return runReferenceCommand(argv[0], argv.slice(1), version);
  }
  if (argv[0] === "acp")
    return (await import("../acp/command.js")).runAcp(argv.slice(1), version, interrupts);
  // The agent SDKs' dialect (docs/protocols.md): print mode's contract never reads stream-json input.
  if (speaksAgentSdkProtocol(argv)) {
    const { serveAgentSdkProtocol } = await import("../claude-protocol/serve.js");
    const code = await serveAgentSdkProtocol(argv, interrupts.signal);
    return interrupts.exitCode ?? code;
  }
  const options = parseArgs(argv, version);
  if (options === "handled") return EXIT.success;
  for (const note of options.notes ?? []) writeError(note);
  if (options.listModels) return runModels([]);
  const terminal: Terminal = {
    // isatty(0), not process.stdin.isTTY: the getter builds the stdin stream (about 1 ms at start),
    // which a run whose prompt is an argument never reads.
    stdinIsTTY: isatty(0),
    stdoutIsTTY: process.stdout.isTTY === true,
  };
  if (!isPrintMode(options.print, terminal)) throw new UsageError(NO_INTERACTIVE);
  const prompt = await resolvePrompt(options.prompt, terminal, interrupts.signal);
  if (options.streamPartialOutput && options.outputFormat !== "stream-json") {
    // Documented as ignored (PM-28): wrappers often pass it with every format.
    writeError("--stream-partial-output only applies to --output-format stream-json; ignored.");
  }
  const payloads = toolPayloadShape(options.toolPayloads);
  if (payloads.note) writeError(payloads.note);
  if (options.outputFormat !== "stream-json") {
    if (printsThinking(options))
      writeError(
        "--print-thinking (CAIRN_PRINT_THINKING) only applies to --output-format stream-json; ignored.",
      );
    if (payloads.chosen)
      writeError(
        "--tool-payloads (CAIRN_TOOL_PAYLOADS) only applies to --output-format stream-json; ignored.",
      );
  }
  const cwd = resolve(options.workspace ?? process.cwd());
  for (const dir of options.addDirs) {
    // Granting access to a directory that is not there would do nothing, quietly.
    if (!statSync(resolve(cwd, dir), { throwIfNoEntry: false })?.isDirectory())
      throw new UsageError(`--add-dir ${dir}: no such directory`);
  }
  // The reference CLI's model ids: their matching model, or the default with a note.
  const { note, ...routed } = await routeReferenceModel(options, cwd);
  if (note) writeError(note);
  const { model: _given, ...rest } = options;
  const outcome = await runPrint({ ...rest, ...routed, prompt, cwd }, interrupts.signal);
  return exitCode(outcome, interrupts, options.failOnDenial);
}

async function resolvePrompt(argument: string | undefined, terminal: Terminal, signal: AbortSignal) {
  const source = promptSource(argument, terminal);
  if (source.from === "none") {
    throw new UsageError('No prompt given. Usage: cairn -p "<prompt>", or pipe the prompt on stdin.');
  }
  const text = source.from === "argument" ? source.text : await readPromptFromStdin(signal);
  if (text.trim() === "") {
    throw new UsageError(
      source.from === "stdin" ? "The prompt read from stdin is empty." : "The prompt is empty.",
    );
  }
  return text;
}

function exitCode(outcome: PrintOutcome, interrupts: Interrupts, failOnDenial: boolean): number {
  // A signal that came once the answer was complete (while its output drained to a slow reader)
  // stopped nothing: the result is whole on stdout, and exit 0 says so (PM-14: non-zero, no result).
  const completed = outcome.end !== undefined && !outcome.end.isError && !outcome.stdoutClosed;
  if (interrupts.exitCode !== undefined && !completed) return interrupted(interrupts.exitCode);
  if (outcome.stdoutClosed) {
    writeError("stdout was closed before the output was complete; the run was stopped.");
    return EXIT.failure;
  }
  const end = outcome.end;
  if (!end) {
    writeError("the run ended without a result.");
    return EXIT.failure;
  }
  if (end.isError) {
    writeError(end.errors.join("; ") || `the run failed (${end.subtype}).`);
    return EXIT.failure;
  }
  if (failOnDenial && end.permissionDenials.length > 0) {
    const tools = end.permissionDenials.map((denial) => denial.tool_name).join(", ");
    writeError(`${end.permissionDenials.length} tool call(s) were denied (${tools}); --fail-on-denial.`);
    return EXIT.denied;
  }
  return EXIT.success;
}

function interrupted(code: number): number {
  const what: Record<number, string> = {
    [EXIT.sigint]: "interrupted (SIGINT).",
    [EXIT.sighup]: "hung up (SIGHUP).",
  };
  writeError(what[code] ?? "terminated (SIGTERM).");
  return code;
}

/**
 * Whatever escapes (a bug, an error event nobody listened to) still ends as one line on stderr and
 * exit 1, never a stack trace on the user's terminal; CAIRN_DEBUG=1 shows the stack.
 */
function installLastResort(libraryOutput: { flush(): void }): void {
  const fatal = (error: unknown) => {
    if (process.env.CAIRN_DEBUG && error instanceof Error) process.stderr.write(`${error.stack}\n`);
    writeError(messageOf(error));
    libraryOutput.flush();
    process.exit(EXIT.failure);
  };
  process.on("uncaughtException", fatal);
  process.on("unhandledRejection", fatal);
}

/** `--input-format stream-json` (either spelling) selects the agent-SDK CLI protocol. */
function speaksAgentSdkProtocol(argv: readonly string[]): boolean {
  return argv.some(
    (arg, i) =>
      arg === "--input-format=stream-json" || (arg === "--input-format" && argv[i + 1] === "stream-json"),
  );
}
