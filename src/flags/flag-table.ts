import { PERMISSION_MODES } from "../permissions/types.js";
import { SANDBOX_MODES } from "../sandbox/policy.js";

/**
 * The reference CLIs' flags, in one table that every door reads (docs/architecture.md, "Flags"):
 * print mode builds its parser from it (src/cli/args.ts), the agent-SDK CLI protocol reads the
 * argv the SDKs give it with it (src/claude-protocol/args.ts), `cairn acp` takes its few flags from
 * it (src/acp/command.ts). A flag is here once, with every door that accepts it and the option it
 * sets there; a flag a door accepts but does not apply carries the one line that door reports.
 *
 * The doors:
 * - `print`: `cairn [-p] "<prompt>"` (print mode and the interactive mode): `CliOptions`.
 * - `protocol`: `--input-format stream-json`, the argv the official agent SDKs spawn the CLI with:
 *   the SDK's `Options`.
 * - `acp`: `cairn acp [flags]`: the agent's settings.
 */
export type Door = "print" | "protocol" | "acp";

/** What a flag's value is, checked the same way in every door that takes it. */
export type FlagValue = {
  /** How help and errors name the value: `<n>`, `[id]`, `<rules...>`. */
  arg: string;
  kind:
    | "text"
    /** One of `choices`. */
    | "choice"
    /** A whole number of at least 1 (`--max-turns`). */
    | "positive-integer"
    /** A number of at least `min` (a whole one with `integer`). */
    | "number"
    /** A comma-separated list (the protocol's form; print mode takes them as `variadic`). */
    | "list"
    /** Inline JSON (`{…}`) or the path of a file holding it. */
    | "json";
  choices?: readonly string[];
  min?: number;
  integer?: boolean;
  /** What a door that fills in defaults takes when the flag is not given. */
  default?: string;
  /** May be given without a value (`--resume` alone). */
  optional?: boolean;
  /** Takes every following word up to the next flag, as commander's `<x...>` (print mode). */
  variadic?: boolean;
  /** May be given more than once, each adding to the list (`--mcp-config a --mcp-config b`). */
  repeatable?: boolean;
};

export type FlagSpec = {
  /** The long name, as help shows it. */
  flag: string;
  /** Other spellings: short ones (`-m`) and the reference's camelCase ones (`--allowedTools`). */
  aliases?: readonly string[];
  /** Absent: a switch, never followed by a value. */
  value?: FlagValue;
  /**
   * The doors that accept it, each with the option it sets there (the key in that door's options:
   * `CliOptions`, the SDK's `Options`, ACP's settings). `"-"`: the door accepts it and there is
   * nothing to set (the protocol is always stream-json; it says so by being spoken).
   */
  doors: Partial<Record<Door, string>>;
  /** One line: what it does (cairn --help has the long form). */
  help: string;
  /**
   * A door accepts it but does not apply it: the one line it reports, on stderr, once.
   * `interactive`: the CLI door's interactive mode (no -p at a terminal), which takes print mode's
   * flags but not all of them apply there.
   */
  unapplied?: Partial<Record<Door | "interactive", string>>;
  /**
   * A flag of the reference CLI that cairn does not have (no door takes it): print mode refuses it
   * with this reason and what to do instead (src/cli/reference-flags.ts), so a program written for
   * the reference fails on the first one with a line naming it.
   */
  refused?: string;
};

const PRINT_MODE_ONLY = "only applies to print mode (-p); ignored in the interactive mode";

const OUTPUT_FORMAT_NAMES = ["text", "json", "stream-json"] as const;
const TOOL_PAYLOAD_NAMES = ["contract", "full"] as const;
const EFFORT_LEVEL_NAMES = ["low", "medium", "high", "xhigh", "max"] as const;
const THINKING_MODE_NAMES = ["adaptive", "enabled", "disabled"] as const;

/** Each protocol flag cairn's SDK has no option for yet: the reason it reports. */
const NOT_YET = "not yet supported by cairn (its query() option is not either) and changes nothing";

const NO_WORKTREES =
  "cairn does not create git worktrees: make one (git worktree add) and pass --workspace <dir>";

export const FLAGS: readonly FlagSpec[] = [
  // --- what runs and what it prints ---------------------------------------------------------------
  {
    flag: "--print",
    aliases: ["-p"],
    doors: { print: "print", protocol: "-" },
    help: "Run the prompt headless and exit.",
  },
  {
    flag: "--output-format",
    value: { arg: "<format>", kind: "choice", choices: OUTPUT_FORMAT_NAMES, default: "text" },
    doors: { print: "outputFormat", protocol: "-" },
    unapplied: { interactive: PRINT_MODE_ONLY },
    help: "What to print: text, json or stream-json (default: text).",
  },
  {
    flag: "--input-format",
    value: { arg: "<format>", kind: "choice", choices: ["text", "stream-json"] },
    // stream-json selects the protocol (src/entry/); text, the reference's default, is nothing.
    doors: { print: "-", protocol: "-" },
    help: "stream-json: speak the agent-SDK CLI protocol on stdio (docs/protocols.md).",
  },
  { flag: "--verbose", doors: { protocol: "-" }, help: "The SDKs always pass it: stream-json is complete." },
  {
    flag: "--stream-partial-output",
    doors: { print: "streamPartialOutput" },
    unapplied: { interactive: PRINT_MODE_ONLY },
    help: "With stream-json: also print the answer's text while it is written.",
  },
  {
    flag: "--include-partial-messages",
    doors: { protocol: "includePartialMessages" },
    help: "The answer's text as it is written (stream_event messages).",
  },
  {
    flag: "--include-hook-events",
    doors: { protocol: "includeHookEvents" },
    help: "Hook events as messages.",
  },
  {
    flag: "--forward-subagent-text",
    doors: { protocol: "forwardSubagentText" },
    help: "Also the subagents' text and thinking.",
  },
  {
    flag: "--replay-user-messages",
    doors: { protocol: "replayUserMessages" },
    help: "Each prompt echoed back as a user message.",
  },
  {
    flag: "--print-thinking",
    doors: { print: "printThinking" },
    unapplied: { interactive: PRINT_MODE_ONLY },
    help: "With stream-json: the model's thinking.",
  },
  {
    flag: "--tool-payloads",
    value: { arg: "<shape>", kind: "choice", choices: TOOL_PAYLOAD_NAMES },
    doors: { print: "toolPayloads" },
    unapplied: { interactive: PRINT_MODE_ONLY },
    help: "With stream-json: full or contract tool payloads.",
  },
  { flag: "--list-models", doors: { print: "listModels" }, help: "List the models and exit." },
  { flag: "--screen-reader", doors: { print: "screenReader" }, help: "The interactive mode as plain lines." },
  {
    flag: "--report",
    value: { arg: "<file>", kind: "text" },
    doors: { print: "report" },
    unapplied: { interactive: PRINT_MODE_ONLY },
    help: "Write the session's HTML report to <file> when the run is over.",
  },
  {
    flag: "--fail-on-denial",
    doors: { print: "failOnDenial" },
    unapplied: { interactive: PRINT_MODE_ONLY },
    help: "Exit 3 when any tool call was denied.",
  },

  // --- the model -----------------------------------------------------------------------------------
  {
    flag: "--model",
    aliases: ["-m"],
    value: { arg: "<model>", kind: "text" },
    doors: { print: "model", protocol: "model", acp: "model" },
    help: "The model (see cairn models).",
  },
  {
    flag: "--api-key",
    value: { arg: "<key>", kind: "text" },
    doors: { print: "apiKey" },
    help: "API key for the model's provider.",
  },
  {
    flag: "--base-url",
    value: { arg: "<url>", kind: "text" },
    doors: { print: "baseUrl" },
    help: "Where the model's provider is reached.",
  },
  {
    flag: "--header",
    aliases: ["-H"],
    value: { arg: "<header>", kind: "text", repeatable: true },
    doors: { print: "headers" },
    help: 'An extra "Name: Value" header on every model request; repeatable.',
  },
  {
    flag: "--fallback-model",
    value: { arg: "<model>", kind: "text" },
    doors: { print: "fallbackModel", protocol: "fallbackModel" },
    help: "The model to use when the model is overloaded or unavailable.",
  },
  {
    flag: "--context-window",
    value: { arg: "<tokens>", kind: "number", min: 1024, integer: true },
    doors: { print: "contextWindow" },
    help: "The model's context window.",
  },
  {
    flag: "--thinking",
    value: { arg: "<mode>", kind: "choice", choices: THINKING_MODE_NAMES },
    doors: { print: "thinking", protocol: "thinking" },
    help: "adaptive, enabled or disabled thinking.",
  },
  {
    flag: "--max-thinking-tokens",
    value: { arg: "<n>", kind: "number", min: 0, integer: true },
    doors: { print: "thinking", protocol: "maxThinkingTokens" },
    help: "A thinking budget (0 disables thinking).",
  },
  {
    flag: "--effort",
    value: { arg: "<level>", kind: "choice", choices: EFFORT_LEVEL_NAMES },
    doors: { print: "effort", protocol: "effort" },
    help: "Reasoning effort.",
  },
  {
    flag: "--web-search",
    value: { arg: "<backend>", kind: "choice", choices: ["provider", "searxng", "off"] },
    doors: { print: "webSearch" },
    help: "Which search WebSearch uses: the provider's own (default), SearXNG, or none.",
  },
  {
    flag: "--betas",
    value: { arg: "<betas>", kind: "list" },
    doors: { protocol: "betas" },
    help: "Anthropic beta features (the anthropic-beta header).",
  },

  // --- how long, how much ----------------------------------------------------------------------------
  {
    flag: "--max-turns",
    value: { arg: "<n>", kind: "positive-integer" },
    doors: { print: "maxTurns", protocol: "maxTurns", acp: "maxTurns" },
    help: "Give up after n model turns.",
  },
  {
    flag: "--max-budget-usd",
    value: { arg: "<usd>", kind: "number", min: 0 },
    doors: { print: "maxBudgetUsd", protocol: "maxBudgetUsd" },
    help: "Give up once the run has cost more than usd.",
  },
  {
    flag: "--task-budget",
    value: { arg: "<budget>", kind: "text" },
    doors: { protocol: "taskBudget" },
    help: "A task budget.",
    unapplied: { protocol: NOT_YET },
  },

  // --- permissions ----------------------------------------------------------------------------------
  {
    flag: "--force",
    aliases: ["-f"],
    doors: { print: "force" },
    help: "Allow every tool call unless a rule denies it.",
  },
  { flag: "--yolo", doors: { print: "force" }, help: "The same as --force." },
  {
    flag: "--permission-mode",
    value: { arg: "<mode>", kind: "choice", choices: PERMISSION_MODES },
    doors: { print: "permissionMode", protocol: "permissionMode" },
    help: "default, acceptEdits, plan or bypassPermissions.",
  },
  {
    flag: "--mode",
    value: { arg: "<mode>", kind: "choice", choices: ["plan", "ask"] },
    doors: { print: "permissionMode" },
    help: "The reference CLI's read-only modes: plan, or ask (plan without a shell).",
  },
  { flag: "--plan", doors: { print: "permissionMode" }, help: "The same as --mode plan." },
  {
    flag: "--allow-dangerously-skip-permissions",
    doors: { protocol: "-" },
    help: "Lets bypassPermissions be chosen; cairn needs no such permission.",
  },
  {
    flag: "--permission-prompt-tool",
    value: { arg: "<tool>", kind: "text" },
    doors: { protocol: "permissionPromptStdio" },
    help: "stdio: calls that would ask go to the host as can_use_tool.",
  },
  {
    flag: "--permission-prompts",
    value: { arg: "<who>", kind: "text" },
    doors: { protocol: "permissionPrompts" },
    help: "Who answers permission prompts.",
    unapplied: { protocol: NOT_YET },
  },
  {
    flag: "--allowed-tools",
    aliases: ["--allowedTools"],
    value: { arg: "<rules...>", kind: "list", variadic: true },
    doors: { print: "allowedTools", protocol: "allowedTools" },
    help: "Allow rules: Read, Bash(git log:*), Write(docs/**), ...",
  },
  {
    flag: "--disallowed-tools",
    aliases: ["--disallowedTools"],
    value: { arg: "<rules...>", kind: "list", variadic: true },
    doors: { print: "disallowedTools", protocol: "disallowedTools" },
    help: "Deny rules, same syntax; deny always wins.",
  },
  {
    flag: "--tools",
    value: { arg: "<tools>", kind: "list" },
    doors: { protocol: "tools" },
    help: "The built-in tools the model is given (default: all).",
  },
  {
    flag: "--add-dir",
    value: { arg: "<dir...>", kind: "text", variadic: true },
    doors: { print: "addDirs", protocol: "additionalDirectories" },
    help: "More directories the agent may read and edit.",
  },
  {
    flag: "--trust",
    doors: { print: "trust" },
    help: "Run the workspace's own hooks (.claude/settings.json, .cursor/hooks.json).",
  },

  // --- sessions ---------------------------------------------------------------------------------------
  {
    flag: "--resume",
    aliases: ["-r"],
    value: { arg: "[id]", kind: "text", optional: true },
    doors: { print: "resume", protocol: "resume" },
    help: "Continue session <id>; without an id, the latest one here.",
  },
  {
    flag: "--continue",
    aliases: ["-c"],
    doors: { print: "continueLatest", protocol: "continue" },
    help: "Continue the latest session of this directory.",
  },
  {
    flag: "--database-url",
    value: { arg: "<url>", kind: "text" },
    doors: { print: "databaseUrl", protocol: "databaseUrl" },
    help: "Keep sessions in this cairn serve PostgreSQL database (or CAIRN_DATABASE_URL): --resume opens one stored there.",
  },
  {
    flag: "--fork-session",
    doors: { print: "forkSession", protocol: "forkSession" },
    help: "With --resume/--continue: continue under a new session id.",
  },
  {
    flag: "--new-session-id",
    value: { arg: "<uuid>", kind: "text" },
    doors: { print: "newSessionId" },
    help: "Start the new session under this id (a UUIDv4).",
  },
  {
    flag: "--session-id",
    value: { arg: "<uuid>", kind: "text" },
    doors: { protocol: "sessionId" },
    help: "The new session's id.",
  },
  {
    flag: "--no-session-persistence",
    doors: { protocol: "persistSession" },
    help: "Write no transcript.",
  },
  {
    flag: "--resume-session-at",
    value: { arg: "<message-id>", kind: "text" },
    doors: { protocol: "resumeSessionAt" },
    help: "Resume the conversation up to this assistant message.",
  },
  {
    flag: "--resume-drops-turn",
    value: { arg: "<message-id>", kind: "text" },
    doors: { protocol: "resumeDropsTurn" },
    help: "Resume without the turn of this message.",
    unapplied: { protocol: NOT_YET },
  },
  {
    flag: "--session-mirror",
    doors: { protocol: "-" },
    help: "Mirror the session to the host.",
    unapplied: {
      protocol: "cairn keeps the session's transcript itself (the host's SessionStore is not yet supported)",
    },
  },
  {
    flag: "--workspace",
    value: { arg: "<dir>", kind: "text" },
    doors: { print: "workspace" },
    help: "The directory to work in (default: the current directory).",
  },

  // --- what a run loads ------------------------------------------------------------------------------
  {
    flag: "--setting-sources",
    value: { arg: "<sources>", kind: "list" },
    doors: { print: "settingSources", protocol: "settingSources" },
    help: "Which files load: user,project,local.",
  },
  {
    flag: "--settings",
    value: { arg: "<settings>", kind: "json" },
    doors: { protocol: "settings" },
    help: "A settings file or inline JSON (the SDK passes its sandbox option here too).",
  },
  {
    flag: "--managed-settings",
    value: { arg: "<settings>", kind: "json" },
    doors: { protocol: "managedSettings" },
    help: "Settings a policy imposes.",
    unapplied: { protocol: NOT_YET },
  },
  {
    flag: "--managed-settings-in-initialize",
    doors: { protocol: "-" },
    help: "Managed settings come with initialize.",
    unapplied: { protocol: NOT_YET },
  },
  {
    flag: "--project-config-root",
    value: { arg: "<dir>", kind: "text" },
    doors: { protocol: "projectConfigRoot" },
    help: "Where the project's configuration is.",
    unapplied: { protocol: NOT_YET },
  },
  {
    flag: "--mcp-config",
    value: { arg: "<config>", kind: "json", repeatable: true },
    doors: { print: "mcpConfigs", protocol: "mcpServers" },
    help: 'MCP servers: a file or JSON {"mcpServers": {...}}; repeatable.',
  },
  {
    flag: "--strict-mcp-config",
    doors: { print: "strictMcpConfig", protocol: "strictMcpConfig" },
    help: "Only the servers of --mcp-config.",
  },
  {
    flag: "--approve-mcps",
    doors: { print: "approveMcps" },
    help: "Let the project's MCP servers (.mcp.json, .cursor/mcp.json) start.",
  },
  {
    flag: "--plugin-dir",
    value: { arg: "<dir>", kind: "text", repeatable: true },
    doors: { protocol: "plugins" },
    help: "A local plugin.",
  },
  {
    flag: "--plugin-dir-no-mcp",
    value: { arg: "<dir>", kind: "text", repeatable: true },
    doors: { protocol: "plugins" },
    help: "A local plugin, without its MCP servers.",
  },
  {
    flag: "--json-schema",
    value: { arg: "<schema>", kind: "text" },
    doors: { protocol: "outputFormat" },
    help: "The JSON schema of the structured output.",
  },
  {
    flag: "--system-prompt",
    value: { arg: "<prompt>", kind: "text" },
    doors: { protocol: "systemPrompt" },
    help: "Replaces cairn's system prompt.",
  },
  {
    flag: "--append-system-prompt",
    value: { arg: "<prompt>", kind: "text" },
    doors: { protocol: "systemPrompt" },
    help: "Added to cairn's system prompt.",
  },
  {
    flag: "--agent",
    value: { arg: "<name>", kind: "text" },
    doors: { protocol: "agent" },
    help: "Run the main thread as this agent.",
  },

  // --- the sandbox -------------------------------------------------------------------------------------
  {
    flag: "--sandbox",
    value: { arg: "<mode>", kind: "choice", choices: SANDBOX_MODES },
    doors: { print: "sandbox" },
    help: "auto, enabled or disabled: the OS sandbox under shell commands.",
  },
  {
    flag: "--sandbox-network",
    doors: { print: "sandboxNetwork" },
    help: "Sandboxed commands may use the network.",
  },
  {
    flag: "--sandbox-allow-domain",
    value: { arg: "<domain>", kind: "text", repeatable: true },
    doors: { print: "sandboxAllowDomains" },
    help: "A host sandboxed commands may reach through cairn's proxy; repeatable.",
  },

  // --- diagnostics and the protocol's own ---------------------------------------------------------------
  {
    flag: "--debug",
    doors: { protocol: "debug" },
    help: "cairn's diagnostics also on stderr.",
  },
  {
    flag: "--debug-file",
    value: { arg: "<file>", kind: "text" },
    doors: { protocol: "debugFile" },
    help: "cairn's diagnostics appended to this file.",
  },
  {
    flag: "--thinking-display",
    value: { arg: "<display>", kind: "text" },
    doors: { protocol: "-" },
    help: "How thinking is shown.",
    unapplied: {
      protocol: "cairn passes the model's thinking on as it comes (summarised or not is the model's)",
    },
  },
  {
    flag: "--channels",
    value: { arg: "<channels>", kind: "text" },
    doors: { protocol: "-" },
    help: "Message channels.",
    unapplied: { protocol: "cairn has no message channels" },
  },
  {
    flag: "--await-initialize",
    doors: { protocol: "-" },
    help: "Wait for initialize before the first turn.",
    unapplied: {
      protocol: "cairn always starts a session at initialize or its first prompt, whichever comes first",
    },
  },
  {
    flag: "--initialize-fields",
    value: { arg: "<fields>", kind: "text" },
    doors: { protocol: "-" },
    help: "Which fields initialize answers with.",
    unapplied: { protocol: "cairn's initialize response always carries every field it has" },
  },

  // --- the reference CLI's, which cairn does not have -----------------------------------------------
  // `-c` is not here: in cairn it is --continue (the agent SDKs' convention), not --cloud.
  {
    flag: "--auto-review",
    doors: {},
    help: "The reference's classifier approval mode.",
    refused:
      "cairn has no classifier approval mode: allow what a run may do with --allowedTools rules, or pass --force",
  },
  {
    flag: "--worktree",
    aliases: ["-w"],
    doors: {},
    help: "A git worktree for the run.",
    refused: NO_WORKTREES,
  },
  { flag: "--worktree-base", doors: {}, help: "The worktree's base ref.", refused: NO_WORKTREES },
  {
    flag: "--skip-worktree-setup",
    doors: {},
    help: "Skip the worktree's setup scripts.",
    refused: "cairn does not create git worktrees, so there is no setup to skip",
  },
  {
    flag: "--cloud",
    doors: {},
    help: "Start as a cloud agent.",
    refused: "cairn has no cloud agent: it runs here, on this machine",
  },
  {
    flag: "--name",
    aliases: ["-n"],
    doors: {},
    help: "The session's name.",
    refused: "cairn sessions have no names: create-chat or --new-session-id gives a session id to --resume",
  },
  {
    flag: "--endpoint",
    doors: {},
    help: "A custom API endpoint.",
    refused: "cairn talks to your model provider: give its address with --base-url",
  },
  {
    flag: "--insecure",
    doors: {},
    help: "Skip TLS verification.",
    refused:
      "cairn never turns TLS verification off: trust the server's certificate with NODE_EXTRA_CA_CERTS",
  },
  {
    flag: "--auth-token",
    doors: {},
    help: "An account token.",
    refused: "cairn has no account to authenticate: use --api-key or the provider's key variable",
  },
  {
    flag: "--background",
    aliases: ["-b"],
    doors: {},
    help: "Leave the interactive mode in the background.",
    refused: "cairn's interactive mode cannot be left in the background: run the prompt with -p",
  },
  {
    flag: "--fullscreen",
    doors: {},
    help: "A full-screen interactive mode.",
    refused:
      "cairn's interactive mode is always inline, in the terminal's own scrollback (docs/interactive.md)",
  },
  {
    flag: "--with-diffs",
    doors: {},
    help: "Diffs in the output.",
    refused: "stream-json carries the diffs (diffString, before/after contents) by default",
  },
  {
    flag: "--prompt",
    doors: {},
    help: "The prompt, as a flag.",
    refused: 'give the prompt as an argument: cairn -p "<prompt>"',
  },
];

/** The flags a door accepts. */
export function flagsOf(door: Door): FlagSpec[] {
  return FLAGS.filter((spec) => spec.doors[door] !== undefined);
}

/** The flag a spelling (`--max-turns`, `-m`, `--allowedTools`) names in a door, if it accepts it. */
export function findFlag(door: Door, spelling: string): FlagSpec | undefined {
  return FLAGS.find(
    (spec) => spec.doors[door] !== undefined && (spec.flag === spelling || spec.aliases?.includes(spelling)),
  );
}
