import { Command, CommanderError, Option } from "commander";
import { PERMISSION_MODES, type PermissionMode } from "../permissions/types.js";
import { SANDBOX_MODES, type SandboxMode } from "../sandbox/policy.js";
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
  /** `--resume <id>`; `true` for `--resume` without an id (= `--continue`). */
  resume?: string | true;
  continueLatest: boolean;
  forkSession: boolean;
  /** `--permission-mode`; default: the user config's `defaultMode`, else print mode's own default. */
  permissionMode?: PermissionMode;
  allowedTools: string[];
  disallowedTools: string[];
  addDirs: string[];
  /** `--sandbox`: the OS sandbox for shell commands (default `auto`). */
  sandbox?: SandboxMode;
  /** `--sandbox-network`: sandboxed commands may use the network. */
  sandboxNetwork: boolean;
  /** Exit 3 when the run had permission denials (else they are reported but the run may succeed). */
  failOnDenial: boolean;
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
    .option("-r, --resume [id]")
    .option("-c, --continue", "", false)
    .option("--fork-session", "", false)
    .addOption(new Option("--permission-mode <mode>").choices(PERMISSION_MODES))
    .option("--allowed-tools, --allowedTools <rules...>")
    .option("--disallowed-tools, --disallowedTools <rules...>")
    .option("--add-dir <dir...>")
    .option("--fail-on-denial", "", false)
    .addOption(new Option("--sandbox <mode>").choices(SANDBOX_MODES))
    .option("--sandbox-network", "", false)
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
    resume?: string | true;
    continue: boolean;
    forkSession: boolean;
    permissionMode?: PermissionMode;
    allowedTools?: string[];
    disallowedTools?: string[];
    addDir?: string[];
    failOnDenial: boolean;
    sandbox?: SandboxMode;
    sandboxNetwork: boolean;
  }>();
  if (opts.forkSession && opts.resume === undefined && !opts.continue) {
    throw new UsageError("--fork-session needs --resume <id> or --continue (see cairn --help)");
  }
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
    ...(opts.resume !== undefined ? { resume: opts.resume } : {}),
    continueLatest: opts.continue || opts.resume === true,
    forkSession: opts.forkSession,
    ...(opts.permissionMode !== undefined ? { permissionMode: opts.permissionMode } : {}),
    allowedTools: opts.allowedTools ?? [],
    disallowedTools: opts.disallowedTools ?? [],
    addDirs: opts.addDir ?? [],
    failOnDenial: opts.failOnDenial,
    ...(opts.sandbox !== undefined ? { sandbox: opts.sandbox } : {}),
    sandboxNetwork: opts.sandboxNetwork,
    ...(words.length > 0 ? { prompt: words.join(" ") } : {}),
  };
}

function parsePositiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0)
    throw new UsageError(`--max-turns must be a positive integer, got "${value}"`);
  return n;
}
