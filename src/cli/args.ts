import { Command, CommanderError, Option } from "commander";
import { UsageError } from "./exit-codes.js";
import type { OutputFormat } from "./formats/types.js";

export type CliOptions = {
  print: boolean;
  outputFormat: OutputFormat;
  streamPartialOutput: boolean;
  model?: string;
  apiKey?: string;
  force: boolean;
  workspace?: string;
  maxTurns?: number;
  /** The prompt from the command line (undefined: read it from piped stdin). */
  prompt?: string;
};

const HELP_AFTER = `
Examples:
  cairn -p "Summarise README.md into summary.txt"
  cairn -p "List the TODOs" --output-format stream-json --stream-partial-output
  echo "What does src/index.ts export?" | cairn --output-format json
  cairn -p "Hello" --model replay:examples/demo/scenario.json   (offline replay of a scripted model)

Models: anthropic/<model> or a bare claude-… id (needs ANTHROPIC_API_KEY or --api-key; ANTHROPIC_BASE_URL
points it at any server speaking the Anthropic Messages API), replay:<scenario.json>. Default: $CAIRN_MODEL,
else anthropic/claude-sonnet-5-5 when ANTHROPIC_API_KEY is set.

Print mode is used with -p, or when stdout is not a terminal, or when the prompt is piped on stdin.
A prompt given as an argument wins; stdin is then not read at all.

Exit codes: 0 success, 1 run failed (provider error, max turns, ...), 2 usage error, 130 SIGINT, 143 SIGTERM.
`;

/** Parses argv (without node and script); throws UsageError with a one-line message. */
export function parseArgs(argv: string[], version: string): CliOptions | "handled" {
  const program = new Command()
    .name("cairn")
    .description("A headless coding agent. Runs one prompt with tools on your files and prints the outcome.")
    .argument("[prompt...]", "the prompt (or pipe it on stdin)")
    .option("-p, --print", "run the prompt headless and exit (print mode)", false)
    .addOption(
      new Option("--output-format <format>", "output format in print mode")
        .choices(["text", "json", "stream-json"])
        .default("text"),
    )
    .option("--stream-partial-output", "with stream-json: print text deltas as they arrive", false)
    .option("-m, --model <model>", "model: provider/model, claude-…, or replay:<scenario.json>")
    .option("--api-key <key>", "API key for the model's provider (overrides the environment)")
    .option("-f, --force", "allow every tool call unless explicitly denied", false)
    .option("--yolo", "alias of --force", false)
    .option("--workspace <dir>", "working directory of the agent (default: the current directory)")
    .option("--max-turns <n>", "stop after this many model turns", parsePositiveInt)
    .version(version, "-v, --version", "print the version")
    .helpOption("-h, --help", "show this help")
    .addHelpText("after", HELP_AFTER)
    .exitOverride()
    .configureOutput({ writeErr: () => {} })
    .allowExcessArguments(false);

  try {
    program.parse(argv, { from: "user" });
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === "commander.helpDisplayed" || error.code === "commander.version") return "handled";
      throw new UsageError(error.message.replace(/^error: /, ""));
    }
    throw error;
  }
  const opts = program.opts<{
    print: boolean;
    outputFormat: OutputFormat;
    streamPartialOutput: boolean;
    model?: string;
    apiKey?: string;
    force: boolean;
    yolo: boolean;
    workspace?: string;
    maxTurns?: number;
  }>();
  const words = program.args;
  return {
    print: opts.print,
    outputFormat: opts.outputFormat,
    streamPartialOutput: opts.streamPartialOutput,
    force: opts.force || opts.yolo,
    ...(opts.model !== undefined ? { model: opts.model } : {}),
    ...(opts.apiKey !== undefined ? { apiKey: opts.apiKey } : {}),
    ...(opts.workspace !== undefined ? { workspace: opts.workspace } : {}),
    ...(opts.maxTurns !== undefined ? { maxTurns: opts.maxTurns } : {}),
    ...(words.length > 0 ? { prompt: words.join(" ") } : {}),
  };
}

function parsePositiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0)
    throw new UsageError(`--max-turns must be a positive integer, got "${value}"`);
  return n;
}
