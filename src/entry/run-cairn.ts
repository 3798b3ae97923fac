import { exitCodeFor, interrupted, messageOf, writeError } from "../cli/errors.js";
import { captureLibraryOutput } from "../cli/library-output.js";
import { CLI_SUBCOMMANDS } from "../cli/subcommands.js";
import { EXIT } from "../util/exit-codes.js";
import { importApart } from "../util/import-apart.js";
import type { Interrupts } from "../util/signals.js";

/** Every subcommand cairn answers itself (docs/cli.md lists each with its reference counterpart). */
export const SUBCOMMANDS: readonly string[] = [
  "resume",
  "acp",
  "report",
  "serve",
  "worker",
  ...CLI_SUBCOMMANDS,
];

/**
 * The `cairn` executable after `--version`'s fast path: picks the door, runs it, and turns whatever
 * escapes it into one line on stderr and an exit code (README: exit codes). Never throws.
 */
export async function runCairn(argv: string[], version: string, interrupts: Interrupts): Promise<number> {
  // The one read of the process's environment: each door is handed it (docs/architecture.md,
  // "Settings"; the lint rule noProcessEnv keeps it so).
  const env = process.env;
  const libraryOutput = captureLibraryOutput(env);
  installLastResort(libraryOutput, env);
  try {
    return await runDoor(argv, version, interrupts, env);
  } catch (error) {
    if (interrupts.exitCode !== undefined) return interrupted(interrupts.exitCode);
    writeError(messageOf(error));
    return exitCodeFor(error);
  } finally {
    interrupts.dispose();
    libraryOutput.flush(); // after cairn's own lines: the first stderr line is cairn's
  }
}

/**
 * Which door runs: `cairn acp` (ACP, for editors), `--input-format stream-json` (the agent-SDK CLI
 * protocol the official SDKs speak, docs/protocols.md), else the CLI's own subcommands, print
 * mode and the interactive mode (src/interactive/). A door is loaded when it is chosen, so a print-mode run loads nothing of ACP or the
 * protocol; and only this module knows them all: no door imports another (test/layering.test.ts).
 */
async function runDoor(
  argv: string[],
  version: string,
  interrupts: Interrupts,
  env: NodeJS.ProcessEnv,
): Promise<number> {
  // The reference CLI's `resume`: the latest session of this directory, as --continue.
  if (argv[0] === "resume") return runDoor(["--continue", ...argv.slice(1)], version, interrupts, env);
  if (argv[0] === "acp")
    return (await import("../acp/command.js")).runAcp(argv.slice(1), version, interrupts, env);
  // `cairn report`: a session's HTML report (docs/report.md); its code loads only here and for --report.
  if (argv[0] === "report") {
    const report = new URL("../report/command.js", import.meta.url);
    return (
      await importApart<typeof import("../report/command.js")>(report, import.meta.url)
    ).runReportCommand(argv.slice(1), env);
  }
  // The Cloud Agents API and its workers (docs/serve.md): their code, DBOS and pg load only here,
  // kept apart from the CLI's bundle like the report's.
  if (argv[0] === "serve" || argv[0] === "worker") {
    const serve = await importApart<typeof import("../serve/command.js")>(
      new URL("../serve/command.js", import.meta.url),
      import.meta.url,
    );
    return serve.runServeCommand(argv[0], argv.slice(1), version, interrupts, env);
  }
  // Print mode's contract never reads stream-json input; the CLI's subcommands read no input at all.
  const subcommand = argv[0] !== undefined && CLI_SUBCOMMANDS.includes(argv[0]);
  if (!subcommand && speaksAgentSdkProtocol(argv)) {
    const { serveAgentSdkProtocol } = await import("../claude-protocol/serve.js");
    const code = await serveAgentSdkProtocol(argv, interrupts.signal, env);
    return interrupts.exitCode ?? code;
  }
  // The interactive mode is the CLI's without -p at a terminal: the CLI door decides from its
  // flags, and is handed the loader, so that no other run evaluates the interactive code.
  return (await import("../cli/run-cli.js")).runCli(argv, version, interrupts, env, async (launch) =>
    (await import("../interactive/run-interactive.js")).runInteractive(launch),
  );
}

/** `--input-format stream-json` (either spelling) selects the agent-SDK CLI protocol. */
function speaksAgentSdkProtocol(argv: readonly string[]): boolean {
  return argv.some(
    (arg, i) =>
      arg === "--input-format=stream-json" || (arg === "--input-format" && argv[i + 1] === "stream-json"),
  );
}

/**
 * Whatever escapes (a bug, an error event nobody listened to) still ends as one line on stderr and
 * exit 1, never a stack trace on the user's terminal; CAIRN_DEBUG=1 shows the stack.
 */
function installLastResort(libraryOutput: { flush(): void }, env: NodeJS.ProcessEnv): void {
  const fatal = (error: unknown) => {
    if (env.CAIRN_DEBUG && error instanceof Error) process.stderr.write(`${error.stack}\n`);
    writeError(messageOf(error));
    libraryOutput.flush();
    process.exit(EXIT.failure);
  };
  process.on("uncaughtException", fatal);
  process.on("unhandledRejection", fatal);
}
