import { statSync } from "node:fs";
import { resolve } from "node:path";
import { isatty } from "node:tty";
import { databaseTranscriptsOf } from "../durable/database-transcripts.js";
import { flagsOf } from "../flags/flag-table.js";
import type { InteractiveLaunch } from "../session/launch.js";
import { EXIT, UsageError } from "../util/exit-codes.js";
import type { Interrupts } from "../util/signals.js";
import { parseArgs } from "./args.js";
import { interrupted, writeError } from "./errors.js";
import { runList } from "./list-sessions.js";
import { isPrintMode, promptSource, type Terminal } from "./mode.js";
import { runModels } from "./models.js";
import { type PrintOutcome, printsThinking, runPrint } from "./print.js";
import { routeReferenceModel } from "./reference-model.js";
import { cliSessionSetup } from "./session-setup.js";
import { readPromptFromStdin } from "./stdin.js";
import { REFERENCE_COMMANDS } from "./subcommands.js";
import { toolPayloadShape } from "./tool-payload-shape.js";

/** Starts the interactive mode; resolves with the exit code. */
export type StartInteractive = (launch: InteractiveLaunch) => Promise<number>;

/**
 * The CLI door: its own subcommands (`models`, `ls`, `mcp`, the reference CLI's) and print mode
 * (PM-2: parse, decide the mode, find the prompt, run, turn the outcome into an exit code). The
 * entry (src/entry/run-cairn.ts) chose this door and turns what it throws into a line on stderr and
 * an exit code (README: exit codes).
 */
export async function runCli(
  argv: string[],
  version: string,
  interrupts: Interrupts,
  env: NodeJS.ProcessEnv,
  startInteractive?: StartInteractive,
): Promise<number> {
  // The one subcommand; a prompt that is the single word "models" goes with -p.
  if (argv[0] === "models") return runModels(argv.slice(1), env);
  if (argv[0] === "ls") return runList(argv.slice(1), env);
  if (argv[0] === "mcp") return (await import("./mcp-command.js")).runMcp(argv.slice(1), env);
  // The reference CLI's subcommands: answered here, never sent to a model as a prompt.
  if (argv[0] !== undefined && REFERENCE_COMMANDS.has(argv[0])) {
    const { runReferenceCommand } = await import("./reference-commands.js");
    return runReferenceCommand(argv[0], argv.slice(1), version, env);
  }
  const options = parseArgs(argv, version);
  if (options === "handled") return EXIT.success;
  for (const note of options.notes ?? []) writeError(note);
  if (options.listModels) return runModels([], env);
  const terminal: Terminal = {
    // isatty(0), not process.stdin.isTTY: the getter builds the stdin stream (about 1 ms at start),
    // which a run whose prompt is an argument never reads.
    stdinIsTTY: isatty(0),
    stdoutIsTTY: process.stdout.isTTY === true,
  };
  const interactive = !isPrintMode(options.print, terminal);
  if (interactive) {
    if (!startInteractive)
      throw new UsageError('cairn cannot start its interactive mode here; run: cairn -p "<prompt>"');
    for (const note of printModeOnly(argv)) writeError(note);
  } else if (options.screenReader) {
    writeError("--screen-reader only applies to the interactive mode; ignored.");
  }
  const prompt = interactive
    ? options.prompt
    : await resolvePrompt(options.prompt, terminal, interrupts.signal, options.promptTakenBy);
  if (!interactive && options.streamPartialOutput && options.outputFormat !== "stream-json") {
    // Documented as ignored (PM-28): wrappers often pass it with every format.
    writeError("--stream-partial-output only applies to --output-format stream-json; ignored.");
  }
  const payloads = toolPayloadShape(options.toolPayloads, env);
  if (payloads.note) writeError(payloads.note);
  if (!interactive && options.outputFormat !== "stream-json") {
    if (printsThinking({ ...options, env }))
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
  const { note, ...routed } = await routeReferenceModel(options, cwd, env);
  if (note) writeError(note);
  const { model: _given, ...rest } = options;
  if (interactive && startInteractive) {
    // Sessions in a cairn serve database, as print mode keeps them (docs/serve.md, "Transcripts").
    const store = databaseTranscriptsOf(options.databaseUrl, env);
    const setup = cliSessionSetup(
      { ...rest, ...routed, cwd, env },
      { answered: true, ...(store ? { store } : {}) },
    );
    try {
      return await startInteractive({
        setup,
        prompt,
        screenReader: options.screenReader,
        maxTurns: options.maxTurns,
        interrupts,
      });
    } finally {
      await store?.close();
    }
  }
  const outcome = await runPrint(
    { ...rest, ...routed, prompt: prompt as string, cwd, env },
    interrupts.signal,
  );
  return exitCode(outcome, interrupts, options.failOnDenial);
}

async function resolvePrompt(
  argument: string | undefined,
  terminal: Terminal,
  signal: AbortSignal,
  takenBy: string | undefined,
) {
  const source = promptSource(argument, terminal);
  // A list flag took the words meant as the prompt (args.ts): the error says so.
  const why = takenBy ? ` (${takenBy})` : "";
  if (source.from === "none") {
    throw new UsageError(`No prompt given${why}. Usage: cairn -p "<prompt>", or pipe the prompt on stdin.`);
  }
  const text = source.from === "argument" ? source.text : await readPromptFromStdin(signal);
  if (text.trim() === "") {
    throw new UsageError(
      source.from === "stdin" ? `The prompt read from stdin is empty${why}.` : "The prompt is empty.",
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
  if (outcome.reportFailed) return EXIT.failure;
  return EXIT.success;
}

/** Print mode's own flags, given to the interactive mode: each said once, with the table's reason. */
function printModeOnly(argv: readonly string[]): string[] {
  return flagsOf("print")
    .filter((spec) => spec.unapplied?.interactive !== undefined)
    .filter((spec) => argv.some((arg) => arg === spec.flag || arg.startsWith(`${spec.flag}=`)))
    .map((spec) => `${spec.flag} ${spec.unapplied!.interactive}.`);
}
