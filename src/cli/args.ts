import { Command, CommanderError, Option } from "commander";
import { UsageError } from "./exit-codes.js";
import { OUTPUT_FORMATS, type OutputFormat } from "./formats/types.js";
import { HELP } from "./help.js";

export type CliOptions = {
  /** `-p` was given (print mode may also be inferred: mode.ts). */
  print: boolean;
  outputFormat: OutputFormat;
  streamPartialOutput: boolean;
  model?: string;
  apiKey?: string;
  baseUrl?: string;
  force: boolean;
  workspace?: string;
  maxTurns?: number;
  /** The prompt from the command line (undefined: none given). */
  prompt?: string;
};

/**
 * Parses argv (without node and script). Returns "handled" when --help or --version printed
 * something; throws UsageError with a one-line message for anything it cannot accept.
 */
export function parseArgs(argv: string[], version: string): CliOptions | "handled" {
  const program = new Command()
    .name("cairn")
    .argument("[prompt...]")
    .option("-p, --print", "", false)
    .addOption(new Option("--output-format <format>").choices(OUTPUT_FORMATS).default("text"))
    .option("--stream-partial-output", "", false)
    .option("-m, --model <model>")
    .option("--api-key <key>")
    .option("--base-url <url>")
    .option("-f, --force", "", false)
    .option("--yolo", "", false)
    .option("--workspace <dir>")
    .option("--max-turns <n>", "", parsePositiveInt)
    .version(version, "-v, --version")
    .helpOption("-h, --help")
    .configureHelp({ formatHelp: () => HELP })
    .exitOverride()
    .configureOutput({ writeErr: () => {} })
    .allowExcessArguments(false);

  try {
    program.parse(argv, { from: "user" });
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === "commander.helpDisplayed" || error.code === "commander.version") return "handled";
      throw new UsageError(`${error.message.replace(/^error: /, "")} (see cairn --help)`);
    }
    throw error;
  }
  const opts = program.opts<{
    print: boolean;
    outputFormat: OutputFormat;
    streamPartialOutput: boolean;
    model?: string;
    apiKey?: string;
    baseUrl?: string;
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
    ...(opts.baseUrl !== undefined ? { baseUrl: opts.baseUrl } : {}),
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
