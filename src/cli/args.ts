import { Command, CommanderError } from "commander";
import type { SettingSource } from "../config/setting-sources.js";
import type { EffortLevel, ThinkingSetting } from "../engine/provider.js";
import type { PermissionMode } from "../permissions/types.js";
import { checkModelName } from "../providers/model-names.js";
import { referenceModel } from "../providers/reference-models.js";
import type { WebSearchBackend } from "../run/web-search-backend.js";
import type { SandboxMode } from "../sandbox/policy.js";
import { UsageError } from "../util/exit-codes.js";
import { printModeOptions } from "./flag-options.js";
import type { OutputFormat } from "./formats/types.js";
import { HELP } from "./help.js";
import { refuseReferenceOnlyFlags } from "./reference-flags.js";
import type { ToolPayloadShape } from "./tool-payload-shape.js";

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

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
  /**
   * `--permission-mode`, or the reference CLI's `--mode plan` / `--plan` (plan) and `--mode ask`
   * (plan, and no shell at all); default: the user config's `defaultMode`, else print mode's own.
   */
  permissionMode?: PermissionMode;
  /** `--new-session-id <uuid>`: the new session's id (a UUIDv4). */
  newSessionId?: string;
  /** `-H/--header "Name: Value"` (repeatable): extra headers on every model request. */
  headers?: Record<string, string>;
  /**
   * stream-json extras of the reference CLI, off by default (the contract: PM-3, PM-24, PM-25):
   * `--tool-payloads` (or CAIRN_TOOL_PAYLOADS; default `full`: tool-payload-shape.ts), `--print-thinking`
   * (or CAIRN_PRINT_THINKING=1).
   */
  toolPayloads?: ToolPayloadShape;
  printThinking: boolean;
  /** `--screen-reader`: the interactive mode in plain lines, without redraws (docs/interactive.md). */
  screenReader: boolean;
  /** `--list-models`: print the models, as `cairn models` does, and exit. */
  listModels: boolean;
  allowedTools: string[];
  disallowedTools: string[];
  addDirs: string[];
  /** `--trust`: the workspace's own hooks (.claude/settings.json, .cursor/hooks.json) may run. */
  trust: boolean;
  /** `--setting-sources user,project,local`: which files load (default: all; docs/agents.md). */
  settingSources?: SettingSource[];
  /** `--sandbox`: the OS sandbox for shell commands (unset: used where it works, quietly). */
  sandbox?: SandboxMode;
  /** `--sandbox-network`: sandboxed commands may use the network. */
  sandboxNetwork: boolean;
  /** `--sandbox-allow-domain` (repeatable): hosts sandboxed commands reach through cairn's proxy. */
  sandboxAllowDomains: string[];
  /** Exit 3 when the run had permission denials (else they are reported but the run may succeed). */
  failOnDenial: boolean;
  /** `--mcp-config` values (a file or inline JSON each), in order. */
  mcpConfigs: string[];
  strictMcpConfig: boolean;
  /** `--approve-mcps`: the project's MCP servers (`.mcp.json`, `.cursor/mcp.json`) may start. */
  approveMcps: boolean;
  /** The prompt from the command line (undefined: none given). */
  prompt?: string;
  /** `--report <file>`: the session's HTML report, written when the run is over (docs/report.md). */
  report?: string;
  /** `--database-url <url>`: sessions kept in a `cairn serve` database (docs/serve.md, "Transcripts"). */
  databaseUrl?: string;
  /** What the flags ask that does not apply, one line each, for stderr (absent: nothing). */
  notes?: string[];
  /**
   * No prompt argument, because a list flag (`--allowedTools <rules...>`) took every word after it,
   * the last one too, as the reference CLI's parser does: why, for the "no prompt" error.
   */
  promptTakenBy?: string;
  /** Long sessions and spend (docs/context.md): --max-budget-usd, --fallback-model, --context-window, --thinking, --max-thinking-tokens, --effort. */
  longSession: LongSessionFlags;
};

export type LongSessionFlags = {
  maxBudgetUsd?: number;
  fallbackModel?: string;
  contextWindow?: number;
  thinking?: ThinkingSetting;
  effort?: EffortLevel;
  /** `--web-search`: the WebSearch backend (docs/tools.md, "WebSearch"). */
  webSearch?: WebSearchBackend;
};

/**
 * Parses argv (without node and script). Returns "handled" when --help or --version printed
 * something; throws UsageError with a one-line message for anything it cannot accept.
 */
export function parseArgs(argv: string[], version: string): CliOptions | "handled" {
  refuseReferenceOnlyFlags(argv);
  const program = new Command().name("cairn").argument("[prompt...]");
  // Every flag from the one table (src/flags/flag-table.ts); --version and --help are commander's.
  for (const option of printModeOptions()) program.addOption(option);
  program
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
    mcpConfig: string[];
    strictMcpConfig: boolean;
    approveMcps: boolean;
    trust: boolean;
    settingSources?: SettingSource[];
    maxBudgetUsd?: number;
    fallbackModel?: string;
    contextWindow?: number;
    thinking?: "adaptive" | "enabled" | "disabled";
    maxThinkingTokens?: number;
    effort?: EffortLevel;
    sandbox?: SandboxMode;
    sandboxNetwork: boolean;
    sandboxAllowDomain: string[];
    webSearch?: WebSearchBackend;
    mode?: "plan" | "ask";
    plan: boolean;
    newSessionId?: string;
    listModels: boolean;
    screenReader: boolean;
    header: string[];
    toolPayloads?: ToolPayloadShape;
    printThinking: boolean;
    report?: string;
    databaseUrl?: string;
  }>();
  if (typeof opts.resume === "string" && opts.continue)
    throw new UsageError(
      "--resume <id> and --continue each pick the session to resume: give one (see cairn --help)",
    );
  if (opts.sandboxNetwork && opts.sandboxAllowDomain.length > 0)
    throw new UsageError(
      "--sandbox-allow-domain limits the network that --sandbox-network opens whole: give one (see cairn --help)",
    );
  if (opts.forkSession && opts.resume === undefined && !opts.continue) {
    throw new UsageError("--fork-session needs --resume <id> or --continue (see cairn --help)");
  }
  // The reference CLI's read-only modes: ask is plan without a shell (it refuses shell calls).
  const referenceMode = opts.plan || opts.mode !== undefined ? "plan" : undefined;
  if (referenceMode && opts.permissionMode !== undefined && opts.permissionMode !== referenceMode)
    throw new UsageError("--mode/--plan and --permission-mode contradict each other (see cairn --help)");
  const notes: string[] = [];
  // A read-only mode with --force/--yolo: the reference accepts both (its consumers' health probes
  // send both), and the read-only mode holds. Said once, so the dropped flag is not a silent one.
  if ((opts.force || opts.yolo) && (referenceMode || opts.permissionMode === "plan")) {
    const readOnly = opts.plan
      ? "--plan"
      : opts.mode !== undefined
        ? `--mode ${opts.mode}`
        : "--permission-mode plan";
    notes.push(`${opts.force ? "--force" : "--yolo"} does not apply: ${readOnly} keeps the run read-only.`);
    opts.force = false;
    opts.yolo = false;
  }
  // --force runs bypassPermissions: a --permission-mode it overrides is said, not dropped silently.
  const forced = opts.force || opts.yolo;
  if (forced && opts.permissionMode !== undefined && opts.permissionMode !== "bypassPermissions") {
    notes.push(
      `--permission-mode ${opts.permissionMode} does not apply: ${opts.force ? "--force" : "--yolo"} runs every call without asking (bypassPermissions).`,
    );
  }
  if (opts.baseUrl !== undefined && !isHttpUrl(opts.baseUrl))
    throw new UsageError(`--base-url must be an http:// or https:// URL, not "${opts.baseUrl}"`);
  if (opts.mode === "ask") opts.disallowedTools = [...(opts.disallowedTools ?? []), "Bash"];
  if (referenceMode) opts.permissionMode = referenceMode;
  if (opts.newSessionId !== undefined) {
    // The reference's own words and exit code (1), which its consumers match.
    if (!UUID_V4.test(opts.newSessionId))
      throw new Error(`Invalid --new-session-id "${opts.newSessionId}": expected a UUIDv4.`);
    if (opts.resume !== undefined || opts.continue)
      throw new UsageError("--new-session-id starts a new session: it cannot go with --resume or --continue");
  }
  // An unknown name fails here, before the prompt is read or anything runs (exit 2). The reference
  // CLI's ids are read when the run starts (reference-model.ts): what they run depends on the keys.
  if (opts.model !== undefined && !referenceModel(opts.model)) checkModelName(opts.model);
  if (opts.fallbackModel !== undefined)
    for (const name of opts.fallbackModel.split(",")) checkModelName(name.trim());
  // The reference CLI's `agent` subcommand is its default command: `agent agent "<prompt>"` is a
  // prompt run (one of its ACP adapters spawns exactly that). A lone word `agent` stays a prompt.
  const words = program.args[0] === "agent" && program.args.length > 1 ? program.args.slice(1) : program.args;
  return {
    print: opts.print,
    outputFormat: opts.outputFormat,
    streamPartialOutput: opts.streamPartialOutput,
    force: opts.force || opts.yolo,
    ...(opts.model !== undefined ? { model: opts.model } : {}),
    ...(opts.apiKey !== undefined ? { apiKey: opts.apiKey } : {}),
    ...(opts.baseUrl !== undefined ? { baseUrl: opts.baseUrl } : {}),
    ...(opts.workspace !== undefined ? { workspace: opts.workspace } : {}),
    ...(opts.report !== undefined ? { report: opts.report } : {}),
    ...(opts.databaseUrl !== undefined ? { databaseUrl: opts.databaseUrl } : {}),
    ...(opts.maxTurns !== undefined ? { maxTurns: opts.maxTurns } : {}),
    ...(opts.resume !== undefined ? { resume: opts.resume } : {}),
    continueLatest: opts.continue || opts.resume === true,
    forkSession: opts.forkSession,
    ...(opts.permissionMode !== undefined ? { permissionMode: opts.permissionMode } : {}),
    allowedTools: opts.allowedTools ?? [],
    disallowedTools: opts.disallowedTools ?? [],
    addDirs: opts.addDir ?? [],
    failOnDenial: opts.failOnDenial,
    mcpConfigs: opts.mcpConfig,
    strictMcpConfig: opts.strictMcpConfig,
    approveMcps: opts.approveMcps,
    trust: opts.trust,
    ...(opts.settingSources !== undefined ? { settingSources: opts.settingSources } : {}),
    ...(opts.newSessionId !== undefined ? { newSessionId: opts.newSessionId.toLowerCase() } : {}),
    listModels: opts.listModels,
    screenReader: opts.screenReader,
    ...(opts.toolPayloads !== undefined ? { toolPayloads: opts.toolPayloads } : {}),
    printThinking: opts.printThinking,
    ...(opts.header.length > 0 ? { headers: parseHeaders(opts.header) } : {}),
    ...(opts.sandbox !== undefined ? { sandbox: opts.sandbox } : {}),
    sandboxNetwork: opts.sandboxNetwork,
    sandboxAllowDomains: opts.sandboxAllowDomain,
    ...(words.length > 0 ? { prompt: words.join(" ") } : {}),
    ...(words.length === 0 ? promptTakenBy(program, argv) : {}),
    ...(notes.length > 0 ? { notes } : {}),
    longSession: {
      ...(opts.maxBudgetUsd !== undefined ? { maxBudgetUsd: opts.maxBudgetUsd } : {}),
      ...(opts.fallbackModel !== undefined ? { fallbackModel: opts.fallbackModel } : {}),
      ...(opts.contextWindow !== undefined ? { contextWindow: opts.contextWindow } : {}),
      ...thinkingFrom(opts.thinking, opts.maxThinkingTokens),
      ...(opts.effort !== undefined ? { effort: opts.effort } : {}),
      ...(opts.webSearch !== undefined ? { webSearch: opts.webSearch } : {}),
    },
  };
}

function isHttpUrl(value: string): boolean {
  try {
    const { protocol, host } = new URL(value);
    return (protocol === "http:" || protocol === "https:") && host !== "";
  } catch {
    return false;
  }
}

/** As the convention: `--max-thinking-tokens 0` disables thinking, N enables it with that budget. */
function thinkingFrom(
  mode: "adaptive" | "enabled" | "disabled" | undefined,
  budget: number | undefined,
): { thinking?: ThinkingSetting } {
  if (budget !== undefined) {
    if (mode === "disabled" || mode === "adaptive")
      throw new UsageError(
        `--max-thinking-tokens cannot be combined with --thinking ${mode} (see cairn --help)`,
      );
    return { thinking: budget === 0 ? { type: "disabled" } : { type: "enabled", budgetTokens: budget } };
  }
  return mode === undefined ? {} : { thinking: { type: mode } };
}

/** `Name: Value` each, as curl takes them; a later value of the same name wins. */
function parseHeaders(values: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const value of values) {
    const colon = value.indexOf(":");
    const name = colon === -1 ? "" : value.slice(0, colon).trim();
    // RFC 9110 token characters: anything else would be refused by the HTTP client mid-run.
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name) || /[\r\n\0]/.test(value))
      throw new UsageError(`--header takes "Name: Value", got "${value}" (see cairn --help)`);
    headers[name] = value.slice(colon + 1).trim();
  }
  return headers;
}

/**
 * No prompt argument, and a list flag took two words or more (`--allowedTools "Bash(x:*)" "fix
 * it"`): its last word was most likely meant as the prompt. The reference CLI parses the same way
 * (its `--allowedTools <tools...>` takes the prompt too, and it then says the input is missing);
 * cairn keeps the parse and says what happened.
 */
function promptTakenBy(program: Command, argv: readonly string[]): { promptTakenBy?: string } {
  for (const option of program.options) {
    const values = program.getOptionValue(option.attributeName()) as unknown;
    if (!option.variadic || !Array.isArray(values) || values.length < 2) continue;
    const spellings = option.flags.split(/[ ,]+/).filter((word) => word.startsWith("-"));
    const flag = argv.findLast((word) => spellings.includes(word)) ?? spellings[0]; // as the user spelled it
    return {
      promptTakenBy: `${flag} takes every word after it, so it took ${JSON.stringify(values.at(-1))} too; give the prompt before ${flag}, or end its list with --`,
    };
  }
  return {};
}
