import { resolve } from "node:path";
import { ConfigError } from "../providers/types.js";
import { parseArgs } from "./args.js";
import { EXIT, UsageError } from "./exit-codes.js";
import { runPrint } from "./print.js";
import { readPromptFromStdin } from "./stdin.js";

/** Parses the command line, resolves the prompt, runs print mode; returns the exit code. */
export async function runCli(argv: string[], version: string): Promise<number> {
  try {
    const options = parseArgs(argv, version);
    if (options === "handled") return EXIT.success;
    const stdinPiped = !process.stdin.isTTY;
    let prompt = options.prompt;
    if (prompt === undefined) {
      if (!stdinPiped) {
        throw new UsageError(
          'No prompt given. Usage: cairn -p "<prompt>" [--output-format text|json|stream-json] (interactive mode is not available yet; see cairn --help).',
        );
      }
      prompt = await readPromptFromStdin();
      if (prompt.trim() === "") throw new UsageError("The prompt read from stdin is empty.");
    }
    if (options.streamPartialOutput && options.outputFormat !== "stream-json") {
      process.stderr.write(
        "cairn: --stream-partial-output only applies to --output-format stream-json; ignored.\n",
      );
    }
    const cwd = resolve(options.workspace ?? process.cwd());
    return await runPrint({ ...options, prompt, cwd });
  } catch (error) {
    return reportStartupError(error);
  }
}

function reportStartupError(error: unknown): number {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`cairn: ${message}\n`);
  if (error instanceof UsageError || error instanceof ConfigError) return EXIT.usage;
  return EXIT.failure;
}
