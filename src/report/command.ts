import { parseArgs } from "node:util";
import { EXIT, UsageError } from "../util/exit-codes.js";
import {
  DEFAULT_MAX_OUTPUT_CHARS,
  DEFAULT_MAX_TEXT_CHARS,
  type ReportSource,
  renderReport,
} from "./render-report.js";
import { writeReportFile } from "./write-report-file.js";

export const REPORT_HELP = `Usage: cairn report <session-id | transcript.jsonl | -> [options]

Writes a session's report: one self-contained HTML page (prompt and answer, a timeline of turns
with model, tool and cairn time, every tool call with its input, result and permission decision,
diffs, commands and their output, subagents, compactions, retries and errors, tokens and cost per
model). It loads nothing from the network. See docs/report.md.

Arguments:
  session-id             a session of this directory (or any other) in cairn's session store
  transcript.jsonl       a transcript file (its subagents' transcripts beside it are read too)
  -                      a transcript read from stdin

Options:
  -o, --output <file>    write the report to <file> (default: stdout)
  --redact               leave out file contents and command output, for sharing
  --max-text-chars <n>   keep at most <n> characters of each text (default ${DEFAULT_MAX_TEXT_CHARS})
  --max-output-chars <n> keep at most <n> characters of all tool results together; past it each
                         result is cut shorter (default ${DEFAULT_MAX_OUTPUT_CHARS})
  -h, --help             show this help
`;

/**
 * `cairn report …`: returns the exit code, having said what went wrong in one line on stderr. (It
 * runs apart from the CLI's bundle, whose error classes are not this module's: src/util/import-apart.ts.)
 */
export async function runReportCommand(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  try {
    return await reportCommand(argv, env);
  } catch (error) {
    process.stderr.write(`cairn: ${(error as Error).message}\n`);
    return error instanceof UsageError ? EXIT.usage : EXIT.failure;
  }
}

async function reportCommand(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    throw new UsageError(`report: ${(error as Error).message}`);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(REPORT_HELP);
    return EXIT.success;
  }
  if (positionals.length !== 1)
    throw new UsageError(
      positionals.length === 0
        ? "report: name a session id, a transcript file or - (stdin); see cairn report --help"
        : `report: one session at a time (got ${positionals.length}: ${positionals.join(" ")})`,
    );
  const maxTextChars = wholeNumber(values["max-text-chars"], "--max-text-chars", 100);
  const maxOutputChars = wholeNumber(values["max-output-chars"], "--max-output-chars", 1000);
  const html = await renderReport(await sourceOf(positionals[0]!, env), {
    redact: values.redact === true,
    ...(maxTextChars !== undefined ? { maxTextChars } : {}),
    ...(maxOutputChars !== undefined ? { maxOutputChars } : {}),
  });
  if (values.output) await writeReportFile(values.output, html);
  else process.stdout.write(html);
  return EXIT.success;
}

function wholeNumber(value: string | undefined, flag: string, least: number): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!Number.isInteger(number) || number < least)
    throw new UsageError(`report: ${flag} takes a whole number of at least ${least} (got ${value})`);
  return number;
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      output: { type: "string", short: "o" },
      redact: { type: "boolean" },
      "max-text-chars": { type: "string" },
      "max-output-chars": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
}

async function sourceOf(argument: string, env: NodeJS.ProcessEnv): Promise<ReportSource> {
  if (argument === "-") return { jsonl: await readStdin() };
  if (argument.endsWith(".jsonl") || argument.includes("/")) return { file: argument };
  return { sessionId: argument, env };
}

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY)
    throw new UsageError("report: - reads a transcript from stdin, which is a terminal");
  process.stdin.setEncoding("utf8");
  let text = "";
  for await (const chunk of process.stdin) text += chunk as string;
  return text;
}
