import { realpathSync, statSync } from "node:fs";
import { resolve } from "node:path";
import * as z from "zod";
import type { AgentDefinition } from "../agents/definitions.js";
import type { ConfiguredHooks } from "../config/hooks.js";
import { HOOK_EVENTS, type HookEvent } from "../engine/hooks.js";
import { compileMatcher, type HookCallbackMatcher, HookMatcherError } from "../hooks/index.js";
import type { McpSdkServerConfigWithInstance } from "../mcp/sdk-server.js";
import { parseRule, RuleSyntaxError, splitRuleList } from "../permissions/rules.js";
import type { PermissionRule } from "../permissions/types.js";
import { editDistance } from "../providers/close-matches.js";
import type { SandboxSettings as SandboxMappingSettings } from "../sandbox/policy.js";
import { sandboxSettingsFromSdk } from "../sandbox/sdk-option.js";
import { isValidSessionId } from "../sessions/store.js";
import type { OnElicitation, OnUserDialog, ToolConfig } from "./convention-types.js";
import type { PermissionMode } from "./messages.js";
import {
  type FlagSettings,
  mergedSandbox,
  readSettingsOption,
  SettingsOptionError,
} from "./settings-option.js";
import type { SandboxSettings, Settings } from "./settings-types.js";
import { REPLAY_USER_MESSAGES } from "./turn-frames.js";

/**
 * The options of `query()`: names and meaning as in the public agent-SDK convention, plus cairn's own
 * provider settings (`apiKey`, `baseURL`).
 *
 * Every option of the convention is accepted, so programs written for it do not break; the ones cairn
 * does not implement yet are listed in `NOT_YET_SUPPORTED_OPTIONS` and those that make no sense
 * in-process in `NOT_APPLICABLE_OPTIONS` (a one-time process warning names them when used). An
 * unknown option name is ignored with a one-time warning (with the closest known name), as the
 * reference ignores it; a value of the wrong type makes `query()` throw `InvalidOptionsError`
 * synchronously, before any work starts. docs/sdk.md has the full table.
 */

// ---------------------------------------------------------------------------------------------------
// Types used by options
// ---------------------------------------------------------------------------------------------------

/** A rule in the convention's structured form: `{ toolName: "Bash", ruleContent: "npm test:*" }`. */
export type PermissionRuleValue = { toolName: string; ruleContent?: string };
export type PermissionBehavior = "allow" | "deny" | "ask";
/**
 * Where the convention stores a permission update. cairn applies every update to the running query
 * only (as `"session"`); it never writes config files from the SDK.
 */
export type PermissionUpdateDestination =
  | "userSettings"
  | "projectSettings"
  | "localSettings"
  | "session"
  | "cliArg";

/**
 * A change to the permissions, as suggested to `canUseTool` (`suggestions`) and as returned with an
 * `allow` (`updatedPermissions`). cairn applies `addRules` (behavior `allow` or `deny`), `setMode` and
 * `addDirectories` for the rest of the query; the other kinds are accepted and ignored.
 */
export type PermissionUpdate =
  | {
      type: "addRules" | "replaceRules" | "removeRules";
      rules: PermissionRuleValue[];
      behavior: PermissionBehavior;
      destination: PermissionUpdateDestination;
    }
  | { type: "setMode"; mode: PermissionMode; destination: PermissionUpdateDestination }
  | {
      type: "addDirectories" | "removeDirectories";
      directories: string[];
      destination: PermissionUpdateDestination;
    };

/** A permission decision returned by `canUseTool`. */
export type PermissionResult =
  | {
      behavior: "allow";
      /**
       * Run the tool with this input instead of the model's. It is checked again: an input that a
       * deny rule refuses is denied anyway.
       */
      updatedInput?: Record<string, unknown>;
      /**
       * Permission changes for the rest of this query ("always allow" answers): `addRules` with
       * behavior `allow`/`deny`, `setMode`, `addDirectories`. Other kinds are ignored; nothing is
       * written to config files whatever the `destination`.
       */
      updatedPermissions?: PermissionUpdate[];
      toolUseID?: string;
      decisionClassification?: "user_temporary" | "user_permanent" | "user_reject";
    }
  | {
      behavior: "deny";
      /** Told to the model in the tool result. */
      message: string;
      /** Also end the turn (`result` subtype `error_during_execution`). */
      interrupt?: boolean;
      toolUseID?: string;
      decisionClassification?: "user_temporary" | "user_permanent" | "user_reject";
    };

/**
 * Asked about a tool call the permission rules and mode leave open ("ask"): in mode `default`,
 * file edits, shell commands that are neither allowed by a rule nor on the built-in read-only list,
 * paths outside the workspace, unknown tools. Calls that rules or the mode allow or deny never reach
 * it. Resolve `allow` (optionally with `updatedInput`) or `deny` with a message for the model. A
 * rejected promise or `null` counts as `deny` (cairn has no out-of-band answer channel). Without
 * `canUseTool`, "ask" means deny.
 */
export type CanUseTool = (
  toolName: string,
  input: Record<string, unknown>,
  options: {
    /** Aborted when the turn is interrupted or the query closed. */
    signal: AbortSignal;
    /** The `tool_use` block's id. */
    toolUseID: string;
    /** A fresh id per permission request. */
    requestId: string;
    /**
     * Rules that would allow this call, as one `addRules` update (`[]` when there is none to
     * suggest). Return them as `updatedPermissions` to allow such calls for the rest of the query.
     */
    suggestions?: PermissionUpdate[];
    /** The path the question is about, when there is one (a file outside the workspace, …). */
    blockedPath?: string;
    /**
     * Why approval is needed, naming the rule or mode, e.g. `"/etc/hostname is outside the workspace
     * (/work/app); allow it with a rule like Read(//etc/hostname) or …"`.
     */
    decisionReason?: string;
    title?: string;
    displayName?: string;
    description?: string;
    /** The subagent making the call (its agent id, `task_started.task_id`); absent on the main thread. */
    agentID?: string;
  },
) => Promise<PermissionResult | null>;

/** `systemPrompt`: replace cairn's prompt, or use it (the "preset") with an addition. */
export type SystemPromptOption =
  | string
  | string[]
  | { type: "custom"; prompt: string | string[]; snapshot?: boolean }
  | {
      type: "preset";
      preset: "claude_code";
      append?: string;
      excludeDynamicSections?: boolean;
      snapshot?: boolean;
    };

/** Structured output: the final answer as JSON matching `schema` (a JSON Schema object). */
export type OutputFormat = { type: "json_schema"; schema: Record<string, unknown> };

/** Extended thinking: mapped to each provider's own parameter (docs/context.md). */
export type ThinkingConfig =
  | { type: "adaptive"; display?: "summarized" | "omitted" }
  | { type: "enabled"; budgetTokens?: number; display?: "summarized" | "omitted" }
  | { type: "disabled" };

export type EffortLevel = "low" | "medium" | "high" | "xhigh" | "max";
export type SettingSource = "user" | "project" | "local";

export type { AgentDefinition } from "../agents/definitions.js";
export type {
  BaseHookInput,
  ConfigChangeHookInput,
  CwdChangedHookInput,
  DirectoryAddedHookInput,
  ElicitationHookInput,
  ElicitationResultHookInput,
  FileChangedHookInput,
  HookEvent,
  HookInput,
  HookJSONOutput,
  HookPermissionDecision,
  InstructionsLoadedHookInput,
  MessageDisplayHookInput,
  NotificationHookInput,
  PermissionDeniedHookInput,
  PermissionRequestHookInput,
  PostCompactHookInput,
  PostModelSwitchHookInput,
  PostToolBatchHookInput,
  PostToolBatchToolCall,
  PostToolUseFailureHookInput,
  PostToolUseHookInput,
  PreCompactHookInput,
  PreModelSwitchHookInput,
  PreSkillShellCommandHookInput,
  PreToolUseHookInput,
  SessionEndHookInput,
  SessionStartHookInput,
  SetupHookInput,
  StopFailureHookInput,
  StopHookInput,
  SubagentStartHookInput,
  SubagentStopHookInput,
  TaskCompletedHookInput,
  TaskCreatedHookInput,
  TeammateIdleHookInput,
  UserPromptExpansionHookInput,
  UserPromptSubmitHookInput,
  WorktreeCreateHookInput,
  WorktreeRemoveHookInput,
} from "../engine/hooks.js";
export { HOOK_EVENTS } from "../engine/hooks.js";
export type { HookCallback, HookCallbackMatcher } from "../hooks/index.js";

/** Environment variables, as in `process.env`. */
export type EnvOption = { [name: string]: string | undefined };

// ---------------------------------------------------------------------------------------------------
// Options
// ---------------------------------------------------------------------------------------------------

/**
 * Options of `query()`. Supported options are documented here; "accepted, not yet supported" ones are
 * validated for type and otherwise ignored (with a one-time process warning); "not applicable" ones
 * are ignored silently because cairn runs the engine in-process.
 */
/** An MCP server of `options.mcpServers` (the convention's `McpServerConfig`). */
export type McpServerConfig =
  | McpStdioServerConfig
  | McpSSEServerConfig
  | McpHttpServerConfig
  | McpSdkServerConfigWithInstance;
export type McpStdioServerConfig = {
  type?: "stdio";
  command: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
  timeout?: number;
};
export type McpSSEServerConfig = {
  type: "sse";
  url: string;
  headers?: Record<string, string>;
  timeout?: number;
};
export type McpHttpServerConfig = {
  type: "http";
  url: string;
  headers?: Record<string, string>;
  timeout?: number;
};

export type Options = {
  // --- supported -------------------------------------------------------------------------------

  /** Cancel the query: the current turn ends with an error `result` and the iterator finishes. */
  abortController?: AbortController;
  /**
   * More directories the agent may read and edit besides `cwd` (relative ones resolve against `cwd`),
   * like the CLI's `--add-dir`.
   */
  additionalDirectories?: string[];
  /**
   * Accepted for compatibility. The convention requires it for `bypassPermissions`; cairn does not
   * (choosing the mode is the opt-in).
   */
  allowDangerouslySkipPermissions?: boolean;
  /**
   * MCP servers: `{ name: { command, args?, env?, cwd? } }` (stdio), `{ name: { type: "http" | "sse",
   * url, headers? } }`, or an in-process server from `createSdkMcpServer()`. The model sees their tools
   * as `mcp__<name>__<tool>`; allow them with rules like `mcp__name` or `mcp__name__tool`. They are
   * added to the servers of the config files (docs/mcp.md) unless `strictMcpConfig` is set.
   */
  mcpServers?: Record<string, McpServerConfig>;
  /** Only the servers of `mcpServers`: none from `~/.cairn/config.json`, `.mcp.json` and the like. */
  strictMcpConfig?: boolean;
  /**
   * Allow rules: calls they match run without asking. Either spelling: bare tool names (`"Bash"`,
   * `"Read"`), `"Bash(git status:*)"`, `"Read(./src/**)"`, `"Edit(docs/**)"`, `"Shell(git)"`; an entry
   * may hold several rules separated by commas or spaces. Like the convention, this does not restrict
   * which tools exist (see `tools` and `disallowedTools`). A malformed rule throws from `query()`.
   */
  allowedTools?: string[];
  /**
   * Asked when the rules and the mode leave a call open ("ask"). Without it, "ask" means deny: the
   * call does not run, the model reads why, and the call is listed in `result.permission_denials`.
   */
  canUseTool?: CanUseTool;
  /**
   * Continue the most recent session of `cwd` (its history is sent to the model; its transcript
   * grows). With no earlier session a new one starts, with a `system`/`informational` note.
   */
  continue?: boolean;
  /** Working directory of the session (default `process.cwd()`); must be an existing directory. */
  cwd?: string;
  /**
   * Deny rules, in the same spellings as `allowedTools`; a deny beats any allow. A bare tool name
   * (`"Write"`) also removes the tool from the model's tool set; a rule with content
   * (`"Bash(rm:*)"`) denies only the matching calls.
   */
  disallowedTools?: string[];
  /**
   * The environment for this query, replacing `process.env` (not merged), as in the convention: it
   * resolves the model and its key (`ANTHROPIC_API_KEY`, `ANTHROPIC_BASE_URL`, `CAIRN_MODEL`) and
   * `CAIRN_HOME` (transcripts and the user config), and, with credentials removed, is the environment
   * of the commands tools run. Pass `{ ...process.env, EXTRA: "x" }` to add variables.
   */
  env?: EnvOption;
  /**
   * With `resume` or `continue`: write to a new session (fresh id) that starts with a copy of the
   * history; the original transcript is not touched. No effect without them.
   */
  forkSession?: boolean;
  /** Emit `stream_event` messages with the raw streaming events (default false). */
  includePartialMessages?: boolean;
  /** Maximum model calls per turn; reaching it ends the turn with `error_max_turns`. */
  maxTurns?: number;
  /**
   * Structured output: the turn's final answer as JSON matching `schema`, delivered in
   * `result.structured_output`. The model answers through a `StructuredOutput` tool whose input
   * schema is `schema` (a non-object schema is wrapped as `{ output: … }`); the input is validated
   * with Ajv (draft-07 by default; 2019-09 and 2020-12 per `$schema`), and an invalid call or a turn
   * ended without the call is retried, three attempts in all, before the turn ends with
   * `error_max_structured_output_retries`. An invalid schema throws from `query()`.
   */
  outputFormat?: OutputFormat;
  /**
   * The model: `provider/model` (`"anthropic/claude-sonnet-5-5"`), a bare catalog id
   * (`"claude-…"`, `"gpt-…"`), an alias (`"sonnet"`, `"opus"`, `"haiku"`: the current model of that
   * family, reported by its full id in `system`/`init`), `"default"` / `"auto"`, or
   * `replay:<scenario.json>`. Default: `CAIRN_MODEL`, else the default Anthropic model when
   * `ANTHROPIC_API_KEY` (or `apiKey`) is set — the same resolution as the CLI. An unknown name
   * rejects the first `next()` with a `ConfigError` naming close matches.
   */
  model?: string;
  /**
   * How tool calls are approved (see `PermissionMode`). Default: `permissions.defaultMode` of the
   * user config (`$CAIRN_HOME/config.json`), else `"default"`.
   */
  permissionMode?: PermissionMode;
  /**
   * Write the session's transcript (default `true`): `$CAIRN_HOME/sessions/<workspace>/<id>.jsonl`,
   * mode 0600. `false` writes nothing (a `resume` still reads the earlier transcript).
   */
  persistSession?: boolean;
  /** The session's custom title (what `renameSession()` sets; `listSessions()` reports it as `summary`). */
  title?: string;
  /** cairn's diagnostics (the lines `stderr` gets) also on this process's stderr. */
  debug?: boolean;
  /** cairn's diagnostics (the lines `stderr` gets) appended to this file (implies `debug`). */
  debugFile?: string;
  /**
   * Save each file's content before Write or Edit first changes it in a turn, so that
   * `Query.rewindFiles(userMessageId)` can put the files back as they were when that user message
   * was sent (docs/multimodal.md, "File checkpoints"). Bash's changes are not tracked. Default false.
   */
  enableFileCheckpointing?: boolean;
  /**
   * Resume this session: same id, its history is sent to the model, its transcript grows. An
   * unknown id makes the first `next()` reject with `SessionNotFoundError` naming the id.
   */
  resume?: string;
  /**
   * Keep the session in this `cairn serve` PostgreSQL database instead of `$CAIRN_HOME` (default:
   * `CAIRN_DATABASE_URL` of `env`; never `DATABASE_URL`): `resume` opens a session stored there
   * (an agent id `bc-…` names its conversation), and the new turns are stored there. A session
   * whose agent has a run under way in `cairn serve` is refused (`SessionLockedError`); an unknown
   * id is `SessionNotFoundError` (docs/serve.md, "Transcripts").
   */
  databaseUrl?: string;
  /**
   * The id of a new session (default: a fresh UUID): letters, digits, `.`, `_`, `-`. An id that
   * already has a transcript is an error; use `resume` to continue it. Not combinable with
   * `resume` / `continue`.
   */
  sessionId?: string;
  /**
   * The system prompt. A string (or strings, joined by blank lines) replaces cairn's built-in prompt;
   * `{ type: "preset", preset: "claude_code", append }` keeps cairn's prompt and appends to it.
   * Omitted: cairn's built-in prompt (unlike the convention, where omitted means empty).
   */
  systemPrompt?: SystemPromptOption;
  /**
   * The base set of built-in tools: names to keep (`[]` disables all), or the preset (all of them).
   * `disallowedTools` then removes from that set.
   */
  tools?: string[] | { type: "preset"; preset: "claude_code" };
  /**
   * Hook callbacks by event (docs/hooks.md): `{ PreToolUse: [{ matcher: "Write|Edit", hooks: [fn] }] }`.
   * `matcher` is a regular expression the tool name (or the event's other target) must match;
   * `timeout` is in seconds (default 60); `onFailure: "block"` makes a failing callback block. They
   * run with the config files' command hooks, before them.
   */
  hooks?: Partial<Record<HookEvent, HookCallbackMatcher[]>>;
  /** Emit `system` messages `hook_started` / `hook_progress` / `hook_response` for every hook that runs. */
  includeHookEvents?: boolean;
  /**
   * Which files load (docs/agents.md, "Which files load"): `user` (the user's config files,
   * instruction files, commands, skills), `project` (the workspace's config, hook and MCP files,
   * AGENTS.md / CLAUDE.md, commands, skills), `local` (`.claude/settings.local.json`,
   * `CLAUDE.local.md`). Omitted: all three, as in the convention; `[]`: none. Naming `"project"`
   * also trusts the workspace's own hooks (`.claude/settings.json`, `.cursor/hooks.json`), which
   * otherwise do not run.
   */
  settingSources?: SettingSource[];
  /**
   * The skills enabled for the session (docs/agents.md, "Skills"): omitted or `"all"`: every skill
   * found; a list: only those; `[]`: none (no `Skill` tool).
   */
  skills?: string[] | "all";
  /**
   * Local plugins (docs/agents.md, "Plugins"): each folder's `commands/` and `skills/` load as
   * `<plugin>:<name>`; its hooks and MCP servers are reported as not applied.
   */
  plugins?: { type: "local"; path: string; skipMcpDiscovery?: boolean }[];

  /**
   * Subagents the main agent may delegate to through the Agent tool (legacy name `Task`), by name
   * (docs/agents.md): `{ description, prompt, tools?, disallowedTools?, model?, maxTurns? }`. They
   * win over agent files of the same name; `model` is an alias (`sonnet`), an id, or `inherit`. A
   * subagent gets at most the query's tools and goes through its permission mode, rules, hooks and
   * sandbox. Other definition keys are accepted and named in a warning.
   */
  agents?: Record<string, AgentDefinition>;
  /**
   * Run the main thread as this agent (built-in, agent file or `agents`): its prompt replaces cairn's
   * first paragraph (an explicit `systemPrompt` wins), its tools narrow the query's, its model is used
   * unless `model` is set. An unknown name rejects the first `next()` with a `ConfigError`.
   */
  agent?: string;
  /**
   * Also yield subagents' text and thinking (`assistant` and, with `includePartialMessages`,
   * `stream_event` messages with `parent_tool_use_id`), for a nested transcript. By default, as in
   * the convention, only their tool calls and results come (with `parent_tool_use_id`, `agent_id`,
   * `subagent_type`, `task_description`). Unset: `CLAUDE_CODE_FORWARD_SUBAGENT_TEXT=1` in `env`
   * turns it on, as it does the convention's CLI.
   */
  forwardSubagentText?: boolean;

  /**
   * The OS sandbox for shell commands (docs/security.md, "Sandbox"), in the convention's shape:
   * `{ enabled: false }` turns it off; `{ enabled: true }` requires it (`failIfUnavailable` defaults
   * to `true` then, as in the reference); otherwise (the default, or `failIfUnavailable: false`) it
   * is used where bubblewrap runs, with a warning where it cannot.
   * `filesystem.allowWrite` adds writable directories; `filesystem.denyRead` / `denyWrite` (and
   * `credentials` with mode `deny`) hold for the shell commands in the sandbox and for cairn's own
   * file tools in every mode; `network.allowAll: true` (cairn's own key) gives commands the network.
   * A key cairn cannot honour without weakening what it promises is an error; one that would only
   * loosen the sandbox is named in a warning.
   */
  sandbox?: SandboxSettings;

  /**
   * Settings at the flag tier (a settings object, its JSON text, or a settings file's path):
   * `permissions` (rules, `defaultMode`, `additionalDirectories`, `disableBypassPermissionsMode`),
   * `sandbox` (the `sandbox` option merged over it), `hooks`, `model`, `fallbackModel` and `env` are
   * applied; the query's own options win where both set something. Other keys: one warning.
   */
  settings?: string | Settings;

  // --- cairn's own ------------------------------------------------------------------------------

  /** The provider API key for this query; overrides the key from `env` / `process.env`. */
  apiKey?: string;
  /** The provider base URL for this query (any server speaking the provider's API). */
  baseURL?: string;
  /** The model's context window in tokens, over the catalog's (docs/context.md); for models it does not know. */
  contextWindow?: number;

  // --- long sessions and spend (docs/context.md) -------------------------------------------------

  /** Reasoning effort: Anthropic `output_config.effort`, OpenAI `reasoning.effort` (`max` → `xhigh`). */
  effort?: EffortLevel;
  /** Takes over when the model is overloaded or unavailable after retries (the first of a comma-separated list). */
  fallbackModel?: string;
  /** The turn ends with `error_max_budget_usd` once the query's cost passes this many USD. */
  maxBudgetUsd?: number;
  /** Deprecated in the convention; use `thinking`. 0 disables thinking, N enables it with that budget. */
  maxThinkingTokens?: number;
  /** Extended thinking (Anthropic `thinking`); ignored with a warning where the model has no such parameter. */
  thinking?: ThinkingConfig;

  // --- diagnostics, resuming, provider extras ------------------------------------------------------

  /**
   * cairn's diagnostics for this query, one line (with its newline) per call: the warnings also
   * reported as `system`/`informational` messages (config, MCP, sandbox, session notes) and the
   * notes about options it ignores. The convention passes the CLI child's stderr here.
   */
  stderr?: (data: string) => void;
  /**
   * With `resume` / `continue`: the conversation goes on from this message (its `uuid` from
   * `getSessionMessages()`); later messages are left out of the history and of the session from
   * now on (they stay in the transcript file, before a boundary record).
   */
  resumeSessionAt?: string;
  /** Anthropic beta features, sent as the `anthropic-beta` header of every request; other providers: a warning. */
  betas?: string[];
  /**
   * An MCP tool (`mcp__server__tool`) that answers the permission questions `canUseTool` would get:
   * it is called with `{ tool_name, input, tool_use_id }` and answers with text holding
   * `{ "behavior": "allow", "updatedInput"? }` or `{ "behavior": "deny", "message" }`. Not together
   * with `canUseTool`.
   */
  permissionPromptToolName?: string;

  // --- accepted, not yet supported ---------------------------------------------------------------

  resumeDropsTurn?: string;
  sessionStore?: unknown;
  sessionStoreFlush?: "batched" | "eager";
  loadTimeoutMs?: number;
  agentProgressSummaries?: boolean;
  managedSettings?: Settings;
  mcpServersDelivery?: "argv" | "initialize";
  onElicitation?: OnElicitation;
  onUserDialog?: OnUserDialog;
  perTaskStopAffordance?: boolean;
  permissionPrompts?: "host" | "none";
  planModeInstructions?: string;
  pluginDelivery?: "argv" | "initialize";
  projectConfigRoot?: string;
  promptSuggestions?: boolean;
  supportedDialogKinds?: string[];
  taskBudget?: { total: number };
  toolAliases?: Record<string, string>;
  toolConfig?: ToolConfig;
  verbatimPrompts?: boolean;

  // --- not applicable: cairn runs the engine in-process -----------------------------------------

  /** No CLI process: any runtime name or path (`"node"`, `process.execPath`) is accepted and has no effect. */
  executable?: "bun" | "deno" | "node" | (string & {});
  /** No CLI process: accepted, no effect. */
  executableArgs?: string[];
  /**
   * The CLI's extra flags. `"replay-user-messages"` is applied: each prompt is echoed back as a
   * `user` message with `isReplay: true` right after its turn's `system`/`init`, as the convention's
   * CLI does with that flag (src/sdk/turn-frames.ts). No CLI process for the others: ignored, with
   * a one-time warning naming them.
   */
  extraArgs?: Record<string, string | null>;
  /** No CLI process: ignored. */
  pathToClaudeCodeExecutable?: string;
  /** No CLI process: ignored. */
  spawnClaudeCodeProcess?(options: unknown): unknown;
};

// ---------------------------------------------------------------------------------------------------
// Validation
// ---------------------------------------------------------------------------------------------------

/** Thrown synchronously by `query()` for an unknown option or an option of the wrong type. */
export class InvalidOptionsError extends TypeError {
  override name = "InvalidOptionsError";
  constructor(
    message: string,
    /** The offending option (`"maxTurns"`, `"systemPrompt.append"`), or `""` for the whole object. */
    readonly option: string,
  ) {
    super(message);
  }
}

const PERMISSION_MODES = ["default", "acceptEdits", "bypassPermissions", "plan", "dontAsk", "auto"] as const;

const fn = z.custom<(...args: never[]) => unknown>(
  (value) => typeof value === "function",
  "expected a function",
);
const stringList = z.array(z.string());
const record = z.record(z.string(), z.unknown());
const positiveInt = z.number().int().positive();
const nonNegative = z.number().nonnegative();

/** Options cairn implements. */
const SUPPORTED = {
  abortController: z.custom<AbortController>(
    (value) => value instanceof AbortController,
    "expected an AbortController",
  ),
  additionalDirectories: stringList,
  allowDangerouslySkipPermissions: z.boolean(),
  sandbox: record,
  settings: z.union([z.string(), record]),
  allowedTools: stringList,
  canUseTool: fn,
  continue: z.boolean(),
  cwd: z.string().min(1),
  disallowedTools: stringList,
  env: z.record(z.string(), z.union([z.string(), z.undefined()], { error: "expected a string" })),
  includePartialMessages: z.boolean(),
  maxTurns: positiveInt,
  model: z.string().min(1),
  permissionMode: z.enum(PERMISSION_MODES),
  forkSession: z.boolean(),
  persistSession: z.boolean(),
  title: z.string(),
  debug: z.boolean(),
  debugFile: z.string(),
  enableFileCheckpointing: z.boolean(),
  resume: z.string().min(1),
  databaseUrl: z.string().min(1),
  sessionId: z.string().refine(isValidSessionId, {
    error:
      "expected a session id: letters, digits, '.', '_' or '-', starting with a letter or digit, at most 128 characters",
  }),
  systemPrompt: z.union(
    [
      z.string(),
      stringList,
      z.strictObject({
        type: z.literal("custom"),
        prompt: z.union([z.string(), stringList]),
        snapshot: z.boolean().optional(),
      }),
      z.strictObject({
        type: z.literal("preset"),
        preset: z.literal("claude_code"),
        append: z.string().optional(),
        excludeDynamicSections: z.boolean().optional(),
        snapshot: z.boolean().optional(),
      }),
    ],
    {
      error:
        'expected a string, an array of strings, { type: "custom", prompt } or { type: "preset", preset: "claude_code", append? }',
    },
  ),
  tools: z.union(
    [stringList, z.strictObject({ type: z.literal("preset"), preset: z.literal("claude_code") })],
    { error: 'expected an array of tool names or { type: "preset", preset: "claude_code" }' },
  ),
  outputFormat: z.strictObject({ type: z.literal("json_schema"), schema: record }),
  hooks: z.partialRecord(
    z.enum(HOOK_EVENTS, { error: `expected a hook event: ${HOOK_EVENTS.join(", ")}` }),
    z.array(
      z.strictObject({
        matcher: z.string().optional(),
        hooks: z.array(fn),
        timeout: z.number().positive().optional(),
        onFailure: z.enum(["continue", "block"]).optional(),
      }),
    ),
  ),
  includeHookEvents: z.boolean(),
  agents: z.record(
    z.string(),
    z.looseObject({
      description: z.string(),
      prompt: z.string(),
      tools: stringList.optional(),
      disallowedTools: stringList.optional(),
      model: z.string().optional(),
      maxTurns: positiveInt.optional(),
      omitClaudeMd: z.boolean().optional(),
    }),
  ),
  forwardSubagentText: z.boolean(),
  agent: z.string().min(1),
  settingSources: z.array(z.enum(["user", "project", "local"])),
  skills: z.union([stringList, z.literal("all")]),
  plugins: z.array(
    z.strictObject({
      type: z.literal("local"),
      path: z.string().min(1),
      skipMcpDiscovery: z.boolean().optional(),
    }),
  ),
  apiKey: z.string().min(1),
  baseURL: z.url(),
  mcpServers: z.record(z.string(), record),
  strictMcpConfig: z.boolean(),
  contextWindow: z.number().int().min(1024),
  effort: z.enum(["low", "medium", "high", "xhigh", "max"]),
  fallbackModel: z.string(),
  maxBudgetUsd: nonNegative,
  maxThinkingTokens: nonNegative,
  stderr: fn,
  resumeSessionAt: z.string().min(1),
  betas: stringList,
  permissionPromptToolName: z.string().min(1),
  thinking: z.discriminatedUnion("type", [
    z.object({ type: z.literal("adaptive") }),
    z.object({ type: z.literal("enabled"), budgetTokens: nonNegative.optional() }),
    z.object({ type: z.literal("disabled") }),
  ]),
} satisfies Record<string, z.ZodType>;

/** Options of the convention cairn accepts but does not implement yet (a warning names them). */
export const NOT_YET_SUPPORTED_OPTIONS = {
  resumeDropsTurn: z.string(),
  sessionStore: z.unknown(),
  sessionStoreFlush: z.enum(["batched", "eager"]),
  loadTimeoutMs: nonNegative,
  agentProgressSummaries: z.boolean(),
  managedSettings: record,
  mcpServersDelivery: z.enum(["argv", "initialize"]),
  onElicitation: fn,
  onUserDialog: fn,
  perTaskStopAffordance: z.boolean(),
  permissionPrompts: z.enum(["host", "none"]),
  planModeInstructions: z.string(),
  pluginDelivery: z.enum(["argv", "initialize"]),
  projectConfigRoot: z.string(),
  promptSuggestions: z.boolean(),
  supportedDialogKinds: stringList,
  taskBudget: z.object({ total: nonNegative }),
  toolAliases: z.record(z.string(), z.string()),
  toolConfig: record,
  verbatimPrompts: z.boolean(),
} satisfies Record<string, z.ZodType>;

/**
 * Options of the convention that configure the CLI child process, which cairn does not have: accepted
 * (any runtime name or path, e.g. `process.execPath`), with a one-time warning that they have no effect.
 */
export const NOT_APPLICABLE_OPTIONS = {
  executable: z.string(),
  executableArgs: stringList,
  extraArgs: z.record(z.string(), z.union([z.string(), z.null()])),
  pathToClaudeCodeExecutable: z.string(),
  spawnClaudeCodeProcess: fn,
} satisfies Record<string, z.ZodType>;

export const SUPPORTED_OPTIONS = Object.keys(SUPPORTED) as (keyof typeof SUPPORTED)[];

const ALL_SCHEMAS: Record<string, z.ZodType> = {
  ...SUPPORTED,
  ...NOT_YET_SUPPORTED_OPTIONS,
  ...NOT_APPLICABLE_OPTIONS,
};

/**
 * Options as `query()` uses them after validation: defaults applied, paths absolute, unknown keys
 * dropped; `optionNotes` are the warnings about ignored options (for the `stderr` callback).
 */
export type ResolvedOptions = Omit<Options, "env"> & {
  cwd: string;
  /** `options.env`, else the process's environment: resolved here once, the SDK's one read of it. */
  env: NodeJS.ProcessEnv;
  includePartialMessages: boolean;
  optionNotes: string[];
  /** Rules of the `settings` option (and the sandbox's deny lists), for the permission gate. */
  settingsRules: PermissionRule[];
  /** Command hooks of the `settings` option. */
  settingsHooks?: ConfiguredHooks;
  /** The `settings` option disables `bypassPermissions`. */
  bypassDisabled: boolean;
};

/**
 * The environment an SDK call runs with: the caller's `env`, else the process's. The SDK reads the
 * process's environment here and nowhere else (the lint rule `noProcessEnv`; docs/architecture.md).
 */
export function sdkEnvironment(given: NodeJS.ProcessEnv | undefined): NodeJS.ProcessEnv {
  return given ?? process.env;
}

/**
 * Validates `options` (throws `InvalidOptionsError` naming the first bad value) and applies defaults.
 * Warns once per process for each unknown, not-yet-supported or not-applicable option that is set.
 */
export function validateOptions(options: unknown): ResolvedOptions {
  if (options === undefined || options === null) options = {};
  if (typeof options !== "object" || Array.isArray(options)) {
    throw new InvalidOptionsError(`cairn query(): options must be an object, got ${describe(options)}.`, "");
  }
  const given = { ...(options as Record<string, unknown>) };
  const notes: string[] = [];
  for (const key of Object.keys(given)) {
    if (key in ALL_SCHEMAS) continue;
    const hint = suggest(key);
    // The reference ignores keys it does not know (one official demo passes appendSystemPrompt).
    notes.push(
      warnOnce(
        key,
        `cairn query(): unknown option "${key}" ignored.${hint ? ` Did you mean "${hint}"?` : ""} See docs/sdk.md for the options.`,
        "CAIRN_SDK_OPTION_UNKNOWN",
      ),
    );
    delete given[key];
  }
  for (const [key, value] of Object.entries(given)) {
    if (value === undefined) continue;
    const parsed = ALL_SCHEMAS[key]!.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const path = [key, ...issue.path.map(String)].join(".");
      // zod says "Invalid input: expected string, received number"; the value is described below.
      const problem = issue.message.replace(/^Invalid input: /, "").replace(/, received \w+$/, "");
      throw new InvalidOptionsError(
        `cairn query(): invalid option "${path}": ${problem} (got ${describe(valueAt(value, issue.path))}).`,
        path,
      );
    }
  }
  const cwd = resolve(typeof given.cwd === "string" ? given.cwd : process.cwd());
  if (!isDirectory(cwd)) {
    throw new InvalidOptionsError(`cairn query(): invalid option "cwd": ${cwd} is not a directory.`, "cwd");
  }
  if (given.sessionId !== undefined && (given.resume !== undefined || given.continue === true)) {
    throw new InvalidOptionsError(
      `cairn query(): invalid option "sessionId": it names a new session and cannot be combined with ${given.resume !== undefined ? '"resume"' : '"continue"'} (a resumed session keeps its id; a fork gets a fresh one).`,
      "sessionId",
    );
  }
  if (given.resumeSessionAt !== undefined && given.resume === undefined && given.continue !== true) {
    throw new InvalidOptionsError(
      'cairn query(): invalid option "resumeSessionAt": it needs "resume" (or "continue") naming the session to resume.',
      "resumeSessionAt",
    );
  }
  if (given.permissionPromptToolName !== undefined && given.canUseTool !== undefined) {
    throw new InvalidOptionsError(
      'cairn query(): invalid option "permissionPromptToolName": it answers the questions canUseTool answers; pass one of them.',
      "permissionPromptToolName",
    );
  }
  for (const key of ["allowedTools", "disallowedTools"] as const) {
    const list = given[key] as string[] | undefined;
    list?.forEach((entry, index) => {
      try {
        for (const rule of splitRuleList(entry)) parseRule(rule, "allow", key);
      } catch (error) {
        if (!(error instanceof RuleSyntaxError)) throw error;
        throw new InvalidOptionsError(
          `cairn query(): invalid option "${key}.${index}": ${error.message}; see docs/security.md, "Rules" (got ${describe(entry)}).`,
          `${key}.${index}`,
        );
      }
    });
  }
  checkHookMatchers(given.hooks as Options["hooks"]);
  const flag = given.settings === undefined ? undefined : flagSettings(given, cwd, notes);
  given.sandbox = mergedSandbox(flag?.sandbox, given.sandbox as Record<string, unknown> | undefined);
  const sandbox = given.sandbox as Record<string, unknown> | undefined;
  const mapping = sandboxSettingsFromSdk(sandbox, { cwd });
  const refused = mapping.refused[0];
  if (refused) {
    throw new InvalidOptionsError(
      `cairn query(): invalid option "sandbox.${refused.key}": ${refused.reason}.`,
      `sandbox.${refused.key}`,
    );
  }
  if (flag?.bypassDisabled && given.permissionMode === "bypassPermissions") {
    throw new InvalidOptionsError(
      `cairn query(): invalid option "permissionMode": bypassPermissions is disabled by ${flag.source} (permissions.disableBypassPermissionsMode).`,
      "permissionMode",
    );
  }
  for (const key of Object.keys(given)) {
    if (given[key] === undefined) continue;
    if (key in NOT_YET_SUPPORTED_OPTIONS) {
      notes.push(
        warnOnce(
          key,
          `cairn query(): option "${key}" is accepted but not yet supported; it has no effect (cairn does not implement it yet; docs/sdk.md, "Accepted, not yet supported", says when it arrives).`,
          "CAIRN_SDK_OPTION_NOT_YET_SUPPORTED",
        ),
      );
    } else if (key === "extraArgs") {
      const ignored = Object.keys(given.extraArgs as object).filter((flag) => flag !== REPLAY_USER_MESSAGES);
      if (ignored.length > 0)
        notes.push(
          warnOnce(
            key,
            `cairn query(): option "extraArgs" has no effect for ${ignored.map((flag) => `--${flag}`).join(", ")}: cairn runs the agent in this process, there is no CLI child process to configure (of the CLI's flags, only --${REPLAY_USER_MESSAGES} applies).`,
            "CAIRN_SDK_OPTION_NOT_APPLICABLE",
          ),
        );
    } else if (key in NOT_APPLICABLE_OPTIONS) {
      notes.push(
        warnOnce(
          key,
          `cairn query(): option "${key}" has no effect: cairn runs the agent in this process, there is no CLI child process to configure.`,
          "CAIRN_SDK_OPTION_NOT_APPLICABLE",
        ),
      );
    }
  }
  return {
    ...(given as Options),
    cwd,
    env: sdkEnvironment(given.env as NodeJS.ProcessEnv | undefined),
    includePartialMessages: given.includePartialMessages === true,
    optionNotes: notes,
    settingsRules: [...(flag?.rules ?? []), ...sandboxDenyRules(mapping.settings)],
    ...(flag?.hooks ? { settingsHooks: flag.hooks } : {}),
    bypassDisabled: flag?.bypassDisabled === true,
  };
}

/**
 * Reads the `settings` option and folds what it sets into `given` under the options it does not
 * override (settings-option.ts); names the keys it does not apply in one note.
 */
function flagSettings(given: Record<string, unknown>, cwd: string, notes: string[]): FlagSettings {
  let flag: FlagSettings;
  try {
    flag = readSettingsOption(given.settings as string | Record<string, unknown>, cwd);
  } catch (error) {
    if (!(error instanceof SettingsOptionError)) throw error;
    throw new InvalidOptionsError(
      `cairn query(): invalid option "${error.path}": ${error.message}.`,
      error.path,
    );
  }
  if (flag.defaultMode !== undefined && given.permissionMode === undefined) {
    const mode = SUPPORTED.permissionMode.safeParse(flag.defaultMode);
    if (!mode.success) {
      throw new InvalidOptionsError(
        `cairn query(): invalid option "settings.permissions.defaultMode": not a permission mode (got ${describe(flag.defaultMode)}).`,
        "settings.permissions.defaultMode",
      );
    }
    given.permissionMode = mode.data;
  }
  if (flag.additionalDirectories.length > 0)
    given.additionalDirectories = [
      ...((given.additionalDirectories as string[] | undefined) ?? []),
      ...flag.additionalDirectories,
    ];
  if (
    given.sandbox !== undefined &&
    typeof given.settings === "string" &&
    !given.settings.trim().startsWith("{")
  ) {
    throw new InvalidOptionsError(
      'cairn query(): invalid option "sandbox": it cannot be combined with a settings file path (as in the reference); give the settings as an object, or put the sandbox in the file.',
      "sandbox",
    );
  }
  if (given.model === undefined && flag.model !== undefined) given.model = flag.model;
  if (given.fallbackModel === undefined && flag.fallbackModel !== undefined)
    given.fallbackModel = flag.fallbackModel;
  if (flag.env)
    given.env = {
      ...((given.env as Record<string, string | undefined> | undefined) ?? process.env),
      ...flag.env,
    };
  if (flag.ignored.length > 0) {
    notes.push(
      warnOnce(
        "settings",
        `cairn query(): option "settings": not applied: ${flag.ignored.join(", ")} (cairn applies permissions, sandbox, hooks, model, fallbackModel and env from it; docs/sdk.md, "Settings").`,
        "CAIRN_SDK_SETTINGS_NOT_APPLIED",
      ),
    );
  }
  return flag;
}

/**
 * The sandbox's deny lists as deny rules (`Read(//path)`, `Edit(//path)`): the permission checker
 * then refuses the read-only shell commands and redirections that name those paths, which is what
 * protects them where the OS sandbox cannot run. The file tools refuse them by themselves.
 */
function sandboxDenyRules(settings: SandboxMappingSettings): PermissionRule[] {
  const rules: PermissionRule[] = [];
  const add = (paths: readonly string[] | undefined, tool: "Read" | "Edit", key: string) => {
    for (const absolute of new Set((paths ?? []).flatMap((p) => [p, realOrSelf(p)])))
      rules.push(parseRule(`${tool}(/${escapeGlob(absolute)})`, "deny", `SDK sandbox.${key}`));
  };
  add(settings.readDenied, "Read", "filesystem.denyRead");
  add(settings.writeDenied, "Edit", "filesystem.denyWrite");
  return rules;
}

/** A literal path as a rule pattern: the characters a glob gives meaning to, escaped. */
function escapeGlob(literal: string): string {
  return literal.replace(/[()!+@*?[\]{}]/g, (char) => `\\${char}`);
}

function realOrSelf(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

/** A matcher that is not a regular expression would match nothing: an error, not a hook that never runs. */
function checkHookMatchers(hooks: Options["hooks"]): void {
  for (const [event, matchers] of Object.entries(hooks ?? {})) {
    matchers?.forEach((group, index) => {
      try {
        compileMatcher(group.matcher, `hooks.${event}.${index}`);
      } catch (error) {
        if (!(error instanceof HookMatcherError)) throw error;
        throw new InvalidOptionsError(
          `cairn query(): invalid option ${error.message}.`,
          `hooks.${event}.${index}.matcher`,
        );
      }
    });
  }
}

const warned = new Set<string>();

/** A process warning, once per option name and process; returns the text (for the query's `stderr`). */
function warnOnce(key: string, message: string, code: string): string {
  if (!warned.has(key)) {
    warned.add(key);
    process.emitWarning(message, { code, detail: "See docs/sdk.md for what each option does in cairn." });
  }
  return message;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let current = value;
  for (const key of path) {
    if (current === null || typeof current !== "object") return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (value === undefined) return "undefined";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "function") return "a function";
  if (typeof value === "object") return `an object (${(value as object).constructor?.name ?? "Object"})`;
  if (typeof value === "string") return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  return `${typeof value} ${String(value)}`;
}

/** The known option closest to a misspelt one (case-insensitive, or within two edits). */
function suggest(key: string): string | undefined {
  const names = Object.keys(ALL_SCHEMAS);
  const lower = key.toLowerCase().replace(/[_-]/g, "");
  const exact = names.find((name) => name.toLowerCase() === lower);
  if (exact) return exact;
  let best: { name: string; distance: number } | undefined;
  for (const name of names) {
    const distance = editDistance(lower, name.toLowerCase());
    if (distance <= 2 && (!best || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}
