import { randomUUID } from "node:crypto";
import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve as resolvePath } from "node:path";
import type { SlashCommand } from "../agents/commands.js";
import { type Customization, loadCustomization, slashCommandsOf } from "../agents/customization.js";
import type { AgentDefinition, AgentInfo } from "../agents/definitions.js";
import { isAgentToolName } from "../agents/subagent-tools.js";
import { type LoadedConfig, loadConfig } from "../config/load.js";
import type { RunEndEvent } from "../engine/events.js";
import { runAgentLoop } from "../engine/loop.js";
import { addCost, addUsage, type ConversationMessage, emptyUsage, type Usage } from "../engine/messages.js";
import type { ThinkingSetting } from "../engine/provider.js";
import { estimateTokens } from "../engine/tokens.js";
import { entriesFromOptions } from "../mcp/sources.js";
import { splitRuleList } from "../permissions/rules.js";
import { MODEL_CATALOG } from "../providers/catalog.js";
import { type AgentsSpec, loadRunAgents, offeredAgents } from "../run/agents.js";
import { type AssembledRun, assembleRun, type RunSpec, resolveModelFor } from "../run/assemble.js";
import type { RunModel } from "../run/model.js";
import { sdkSandboxPolicy } from "../sandbox/sdk-option.js";
import type { RewindFilesResult } from "../sessions/checkpoints.js";
import { type OpenedSession, openSession } from "../sessions/open-session.js";
import { SessionStore, TRANSCRIPT_EXTENSION } from "../sessions/store.js";
import { SessionWriteError } from "../sessions/writer.js";
import { builtinTools } from "../tools/index.js";
import type { Tool } from "../tools/types.js";
import { unlessAborted } from "../util/unless-aborted.js";
import { SYSTEM_PROMPT_DYNAMIC_BOUNDARY } from "./constants.js";
import type {
  AccountInfo,
  SDKControlGetContextUsageResponse,
  SDKControlInitializeResponse,
  SDKControlMcpReadResourceResponse,
  SDKControlReadFileResponse,
  SDKControlReloadOutputStylesResponse,
  SDKControlReloadPluginsResponse,
  SDKControlReloadSkillsResponse,
} from "./control-types.js";
import { QueryFileCheckpoints } from "./file-checkpointing.js";
import type {
  PermissionMode,
  SDKInformationalMessage,
  SDKMessage,
  SDKStatusMessage,
  SDKUserMessage,
} from "./messages.js";
import {
  InvalidOptionsError,
  type McpServerConfig,
  type Options,
  type ResolvedOptions,
  validateOptions,
} from "./options.js";
import { SdkPermissions } from "./permissions.js";
import { createSdkProjection, hookMessages, type SdkProjection, type SdkRunEnd } from "./project.js";
import { type UserPrompt, userPrompt } from "./prompt-content.js";
import { notApplied, readWorkspaceFile } from "./query-extras.js";
import { QueryInput } from "./query-input.js";
import { resumedAt } from "./resume-at.js";
import { setSessionTitle } from "./sessions.js";
import {
  compileOutputFormat,
  MAX_STRUCTURED_OUTPUT_RETRIES,
  STRUCTURED_OUTPUT_DECLARATION,
  STRUCTURED_OUTPUT_INSTRUCTIONS,
  STRUCTURED_OUTPUT_NUDGE,
  STRUCTURED_OUTPUT_TOOL,
  type StructuredOutputRun,
} from "./structured-output.js";
import { ToolProgress } from "./tool-progress.js";

/** What `interrupt()` resolves to: cairn queues nothing, so there is never anything still queued. */
export type SDKControlInterruptResponse = { still_queued: string[]; cancelled?: string[] };
/** What `setPermissionMode()` resolves to: the mode now in effect. */
export type SDKControlSetPermissionModeResponse = { mode: PermissionMode };
export type { SlashCommand } from "../agents/commands.js";
export type ModelInfo = {
  value: string;
  resolvedModel?: string;
  displayName: string;
  description: string;
  supportsEffort?: boolean;
  supportedEffortLevels?: string[];
  supportsAdaptiveThinking?: boolean;
  supportsFastMode?: boolean;
  supportsAutoMode?: boolean;
};
export type { AgentInfo } from "../agents/definitions.js";
export type McpServerStatus = {
  name: string;
  status: "connected" | "failed" | "needs-auth" | "pending" | "disabled";
  serverInfo?: { name: string; version: string };
  error?: string;
  scope?: string;
  tools?: {
    name: string;
    description?: string;
    annotations?: { readOnly?: boolean; destructive?: boolean; openWorld?: boolean };
  }[];
};

/**
 * A running query: iterate it (`for await`) to receive the messages, and control it with the methods
 * below. The engine runs in this process; the first message arrives as soon as the model is resolved.
 *
 * Ending the iteration early (`break`, `return()`, `throw()`) cancels the run: the model request is
 * aborted, running tools are stopped, and no timers, sockets or child processes are left behind.
 */
export interface Query extends AsyncGenerator<SDKMessage, void> {
  /**
   * Stops the current turn: the model request and running tools are aborted and the turn ends with a
   * `result` of subtype `error_during_execution` (`errors: ["The run was interrupted."]`). With
   * streaming input, the next user message then starts the next turn. Resolves `undefined` (cairn
   * queues nothing to report).
   */
  interrupt(): Promise<SDKControlInterruptResponse | undefined>;
  /**
   * Changes the permission mode at once: the next tool call is checked in the new mode, also inside
   * the running turn (the next turn's `system`/`init` reports it). Resolves `{ mode }`.
   */
  setPermissionMode(mode: PermissionMode): Promise<SDKControlSetPermissionModeResponse | undefined>;
  /**
   * Changes the model from the next turn on (the next user message in streaming-input mode). Takes
   * the names `options.model` takes, aliases (`"opus"`) and `"default"` / `"auto"` (the configured
   * default) included; `undefined` returns to `options.model`. Rejects with the configuration error
   * if the model cannot be used (unknown name, with close matches; unknown provider; missing key).
   */
  setModel(model?: string): Promise<void>;
  /**
   * Ends the query now: the current turn is aborted without a `result`, the prompt iterable is
   * released, and the iterator finishes. Idempotent.
   */
  close(): void;
  /**
   * Sets the thinking budget from the next turn on: 0 disables thinking, N enables it with N tokens,
   * null returns to `options.thinking` / `options.maxThinkingTokens`. Deprecated in the convention.
   */
  setMaxThinkingTokens(
    maxThinkingTokens: number | null,
    /** Accepted; cairn always streams thinking as it comes. */
    thinkingDisplay?: "summarized" | "omitted" | "highlights" | null,
  ): Promise<void>;
  /**
   * cairn's own `/compact [instructions]`, then the custom commands and skills of the workspace and
   * user (docs/agents.md), as the enabled `settingSources` load them.
   */
  supportedCommands(): Promise<SlashCommand[]>;
  /** The models of cairn's catalog (any other `provider/model` id works too). */
  supportedModels(): Promise<ModelInfo[]>;
  /** No subagents yet: `[]`. */
  supportedAgents(): Promise<AgentInfo[]>;
  /** The query's MCP servers: status, tools, errors (`[]` before the first turn starts). */
  mcpServerStatus(): Promise<McpServerStatus[]>;
  /** Closes an MCP server and connects it again; its tools count from the next turn. */
  reconnectMcpServer(serverName: string): Promise<void>;
  /** Disables (closes) or enables an MCP server; its tools go or come back from the next turn. */
  toggleMcpServer(serverName: string, enabled: boolean): Promise<void>;
  /**
   * Replaces the servers given by `options.mcpServers` (servers of config files stay); resolves which
   * were added and removed and which failed to start.
   */
  setMcpServers(servers: Record<string, McpServerConfig>): Promise<McpSetServersResult>;
  /**
   * With `enableFileCheckpointing`: puts the files Write and Edit changed back as they were when the
   * user message `userMessageId` (its `uuid`) was sent — changed files restored, created ones removed.
   * `dryRun` only reports what would change. Bash's changes are not tracked (docs/multimodal.md).
   */
  rewindFiles(userMessageId: string, options?: { dryRun?: boolean }): Promise<RewindFilesResult>;

  // --- the rest of the convention's methods (docs/sdk.md, "The Query object") ---------------------

  /** What the convention's CLI answers to `initialize`: commands, agents, models, output styles, account. */
  initializationResult(): Promise<SDKControlInitializeResponse>;
  /** As `initializationResult()` (there is no CLI to initialize again). */
  reinitialize(): Promise<SDKControlInitializeResponse>;
  /** `{}` (no account: keys come from the environment); `apiProvider: "firstParty"` for Anthropic models once a turn started. */
  accountInfo(): Promise<AccountInfo>;
  /**
   * More user messages for this query, each a turn after the ones before; resolves once `stream`
   * is read to its end. With a string prompt it must be called before the first `result`.
   */
  streamInput(stream: AsyncIterable<SDKUserMessage>): Promise<void>;
  /** cairn runs no background tasks: rejects, naming the id. */
  stopTask(taskId: string): Promise<void>;
  /** `false`: nothing to move to the background (commands run in the foreground). */
  backgroundTasks(toolUseId?: string): Promise<boolean>;
  /** An estimate of the conversation's tokens against the model's context window. */
  getContextUsage(options?: { detail?: "summary" | "full" }): Promise<SDKControlGetContextUsageResponse>;
  /** Reads a file (relative paths against `cwd`); `null` when it cannot be read. */
  readFile(
    path: string,
    options?: { maxBytes?: number; encoding?: "utf-8" | "base64" },
  ): Promise<SDKControlReadFileResponse | null>;
  /** No-op: cairn's Edit and Write do not require an earlier Read. */
  seedReadState(path: string, mtime: number): Promise<void>;
  /** Reads a resource of one of the query's MCP servers. */
  readMcpResource(serverName: string, uri: string): Promise<SDKControlMcpReadResourceResponse>;
  /** Resolves a `warning`: cairn has no per-server permission mode (use rules like `mcp__server`). */
  setMcpPermissionModeOverride(
    serverName: string,
    mode: "default" | "auto" | null,
  ): Promise<{ warning?: string }>;
  /** Not applied (cairn's settings come from its config files and the options): a one-time warning. */
  applyFlagSettings(settings: Record<string, unknown>): Promise<void>;
  /** Not applied (the SDK never writes config files): a one-time warning. */
  updateSettings(source: "localSettings" | "userSettings", settings: Record<string, unknown>): Promise<void>;
  /** `{ available_output_styles: ["default"] }`: cairn has one output style. */
  reloadOutputStyles(): Promise<SDKControlReloadOutputStylesResponse>;
  /** Nothing to reload yet: `{ plugins: [] }`. */
  reloadPlugins(options?: Record<string, unknown>): Promise<SDKControlReloadPluginsResponse>;
  /** Nothing to reload yet: `{ skills: [] }`. */
  reloadSkills(): Promise<SDKControlReloadSkillsResponse>;
  /** The convention's experimental usage report: `{}`. */
  usage_EXPERIMENTAL_MAY_CHANGE_DO_NOT_RELY_ON_THIS_API_YET(options?: {
    skipBehaviors?: boolean;
  }): Promise<Record<string, unknown>>;
}

export type McpSetServersResult = { added: string[]; removed: string[]; errors: Record<string, string> };

export type QueryParams = {
  /**
   * A single prompt (one turn), or an async iterable of user messages (streaming-input mode: one turn
   * and one `result` per message, in one continuing conversation, until the iterable ends).
   */
  prompt: string | AsyncIterable<SDKUserMessage>;
  options?: Options;
};

/**
 * Runs the agent on a prompt and streams its messages (the SDK entry point).
 *
 * Throws synchronously (`InvalidOptionsError`, a `TypeError`) for an unknown or ill-typed option,
 * a malformed permission rule, or a bad prompt. Problems found when the first turn starts reject the
 * first `next()` before any message: the model cannot be resolved (no API key, unknown provider:
 * `ConfigError`), a config file is malformed (`ConfigFileError`), `resume` names no session (`SessionNotFoundError`),
 * `sessionId` already has a transcript (`SessionWriteError`). Everything that goes wrong
 * during a turn (provider failure after retries, abort, `maxTurns`) ends the turn with an error
 * `result` instead, and the iterator finishes normally.
 */
export function query(params: QueryParams): Query {
  if (params === null || typeof params !== "object") {
    throw new TypeError("cairn query(): expected { prompt, options }.");
  }
  const { prompt } = params;
  if (typeof prompt === "string") {
    if (prompt.length === 0) throw new TypeError("cairn query(): prompt must not be empty.");
  } else if (!isAsyncIterable(prompt)) {
    throw new TypeError("cairn query(): prompt must be a string or an AsyncIterable of user messages.");
  }
  const options = validateOptions(params.options);
  const tools = selectTools(options);
  const structuredOutput = options.outputFormat ? compileOutputFormat(options.outputFormat) : undefined;
  return new QueryRun(prompt, options, tools, structuredOutput);
}

/** SessionEnd hooks get this long in all, whatever their own timeouts (the query is over). */
const SESSION_END_LIMIT_MS = 60_000;
const STOPPED: unique symbol = Symbol("stopped");
/** Abort reason when a run is ended because the structured output can no longer come. */
const STRUCTURED_OUTPUT_EXHAUSTED = new Error("The structured output retries are used up.");

type Notice = { tag: "config" | "session" | "mcp" | "sandbox"; content: string };

class QueryRun implements Query {
  private readonly generator: AsyncGenerator<SDKMessage, void>;
  /** The conversation: a resumed session's history, then every turn of this query. */
  private readonly history: ConversationMessage[] = [];
  /** Opened when the first turn starts (so a query that never runs writes nothing). */
  private session: OpenedSession | undefined;
  /** The id of the session if this query starts a new one. */
  private readonly newSessionId: string;
  private readonly permissions: SdkPermissions;
  /** Warnings and notes to report as `system`/`informational` after the next `system`/`init`. */
  private readonly notices: Notice[] = [];
  /** Aborted by the caller's abortController, close(), return() and throw(): no further turns. */
  private readonly stop = new AbortController();
  private currentRun: AbortController | undefined;
  /** close(), return() or throw(): no further messages at all. */
  private closed = false;
  /** Set by `setModel()`; undefined: the model the run was assembled with. */
  private model: RunModel | undefined;
  private assembling: Promise<AssembledRun> | undefined;
  /** Set by `setMaxThinkingTokens()`. */
  private thinking: ThinkingSetting | undefined;
  /** What the turns of this query have cost so far (undefined once a cost was unknown). */
  private spentUsd: number | undefined = 0;
  /** Every model call of the query so far, per model: results report these, not the turn's alone. */
  private readonly spentByModel = new Map<string, { usage: Usage; costUsd: number | undefined }>();
  private configLoading: Promise<LoadedConfig> | undefined;
  private customizationLoading: Promise<Customization> | undefined;
  private assembled: AssembledRun | undefined;
  /** The query is over: what it started (MCP servers) ends. */
  private ended = false;
  private sessionEnded = false;
  /** SessionStart fires with the query's first engine run. */
  private sessionStarted = false;
  private readonly fileCheckpoints: QueryFileCheckpoints;
  /** The user message of the running turn (its `uuid`, or one given to it): its file checkpoint. */
  private userMessageId: string | undefined;
  /** The iteration began: drive() runs its clean-up. */
  private started = false;
  /** A mode set by setPermissionMode() during a turn, to report as system/status. */
  private modeChange: PermissionMode | undefined;
  /** The user messages of the turns after the first: the prompt iterable and `streamInput()` streams. */
  private readonly input: QueryInput<SDKUserMessage>;
  private readonly promptIterator: AsyncIterator<SDKUserMessage> | undefined;

  constructor(
    private readonly prompt: string | AsyncIterable<SDKUserMessage>,
    private readonly options: ResolvedOptions,
    private readonly tools: Tool[],
    private readonly structuredOutput: (() => StructuredOutputRun) | undefined,
  ) {
    this.newSessionId = options.sessionId ?? randomUUID();
    this.permissions = new SdkPermissions(options);
    this.fileCheckpoints = new QueryFileCheckpoints(options.enableFileCheckpointing === true, (id) =>
      this.transcriptPath(id),
    );
    this.promptIterator = typeof prompt === "string" ? undefined : prompt[Symbol.asyncIterator]();
    this.input = new QueryInput(this.promptIterator);
    this.generator = this.drive();
  }

  next(...args: [] | [unknown]): Promise<IteratorResult<SDKMessage, void>> {
    return this.generator.next(...args);
  }

  return(value?: void | PromiseLike<void>): Promise<IteratorResult<SDKMessage, void>> {
    this.shutDown();
    return this.generator.return(value);
  }

  throw(error: unknown): Promise<IteratorResult<SDKMessage, void>> {
    this.shutDown();
    return this.generator.throw(error);
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.return();
  }

  async interrupt(): Promise<SDKControlInterruptResponse | undefined> {
    this.currentRun?.abort(new Error("Interrupted by Query.interrupt()."));
    return undefined;
  }

  async setPermissionMode(mode: PermissionMode): Promise<SDKControlSetPermissionModeResponse | undefined> {
    validateOptions({ permissionMode: mode, cwd: this.options.cwd });
    this.permissions.setMode(mode);
    // Inside a turn, a system/status message reports it; the next turn's system/init does otherwise.
    if (this.currentRun) this.modeChange = mode;
    return { mode };
  }

  async setModel(model?: string): Promise<void> {
    if (model === undefined) {
      // Before the first turn the assembly resolves the default itself; after it, resolve it now.
      this.model = this.assembling
        ? await resolveModelFor(this.runSpec(), await this.config(), this.options.model)
        : undefined;
      return;
    }
    validateOptions({ model, cwd: this.options.cwd });
    this.model = await resolveModelFor(this.runSpec(), await this.config(), model);
  }

  close(): void {
    if (this.closed) return;
    this.shutDown();
    this.generator.return().catch(() => {});
  }

  async setMaxThinkingTokens(
    maxThinkingTokens: number | null,
    _thinkingDisplay?: "summarized" | "omitted" | "highlights" | null,
  ): Promise<void> {
    if (maxThinkingTokens === null) {
      this.thinking = undefined;
      return;
    }
    validateOptions({ maxThinkingTokens, cwd: this.options.cwd });
    this.thinking = thinkingFromBudget(maxThinkingTokens);
  }

  async supportedCommands(): Promise<SlashCommand[]> {
    return slashCommandsOf(await this.customization());
  }

  async supportedModels(): Promise<ModelInfo[]> {
    return MODEL_CATALOG.map((entry) => ({
      value: `${entry.provider}/${entry.id}`,
      displayName: entry.displayName,
      description: `${entry.displayName}: ${entry.contextWindow.toLocaleString("en-US")}-token context, up to ${entry.maxOutput.toLocaleString("en-US")} output tokens`,
    }));
  }

  async supportedAgents(): Promise<AgentInfo[]> {
    // Without assembling the run: the agent-SDK protocol asks before its MCP servers can start.
    if (this.assembled) return this.assembled.agents.map((agent) => ({ ...agent }));
    const { cwd, env, allowedTools, disallowedTools, settingSources } = this.options;
    const [config, customization] = await Promise.all([this.config(), this.customization()]);
    const agents = await loadRunAgents(
      {
        cwd,
        env: (env ?? process.env) as NodeJS.ProcessEnv,
        home: homedir(),
        sources: settingSources ?? config.sources,
        plugins: customization.plugins,
      },
      agentsSpec(this.options),
      {
        ...(allowedTools ? { allowedTools } : {}),
        ...(disallowedTools ? { disallowedTools } : {}),
      },
    );
    return offeredAgents(agents);
  }

  async mcpServerStatus(): Promise<McpServerStatus[]> {
    return (this.assembled?.mcp.states() ?? []).map((server) => ({
      name: server.name,
      status: server.status,
      ...(server.serverInfo ? { serverInfo: server.serverInfo } : {}),
      ...(server.error ? { error: server.error } : {}),
      scope: server.source.level,
      tools: server.tools.map((tool) => ({
        name: tool.name,
        ...(tool.description ? { description: tool.description } : {}),
        annotations: {
          ...(tool.annotations?.readOnlyHint !== undefined
            ? { readOnly: tool.annotations.readOnlyHint }
            : {}),
          ...(tool.annotations?.destructiveHint !== undefined
            ? { destructive: tool.annotations.destructiveHint }
            : {}),
          ...(tool.annotations?.openWorldHint !== undefined
            ? { openWorld: tool.annotations.openWorldHint }
            : {}),
        },
      })),
    }));
  }

  async reconnectMcpServer(serverName: string): Promise<void> {
    const assembled = await this.assembly();
    const state = await assembled.mcp.reconnect(serverName);
    await this.toolsChanged(assembled);
    if (state.status === "failed") throw new Error(`MCP server ${serverName} failed: ${state.error}`);
  }

  async toggleMcpServer(serverName: string, enabled: boolean): Promise<void> {
    const assembled = await this.assembly();
    await assembled.mcp.setEnabled(serverName, enabled);
    await this.toolsChanged(assembled);
  }

  async setMcpServers(servers: Record<string, McpServerConfig>): Promise<McpSetServersResult> {
    const entries = entriesFromOptions(servers);
    const assembled = await this.assembly();
    const result = await assembled.mcp.replaceLevel("sdk", entries);
    await this.toolsChanged(assembled);
    return result;
  }

  rewindFiles(userMessageId: string, options?: { dryRun?: boolean }): Promise<RewindFilesResult> {
    // Before any turn, a resumed session's checkpoints (a fork starts without any).
    const sessionId = this.session?.sessionId ?? (this.options.forkSession ? undefined : this.options.resume);
    return this.fileCheckpoints.rewind(sessionId, userMessageId, options);
  }

  async initializationResult(): Promise<SDKControlInitializeResponse> {
    const [commands, agents, models, account] = await Promise.all([
      this.supportedCommands(),
      this.supportedAgents(),
      this.supportedModels(),
      this.accountInfo(),
    ]);
    return {
      commands,
      agents,
      output_style: "default",
      available_output_styles: ["default"],
      models,
      account,
      hooks_applied: true,
      hook_on_failure_supported: true,
      claude_code_version: cairnVersion(),
    };
  }

  reinitialize(): Promise<SDKControlInitializeResponse> {
    return this.initializationResult();
  }

  async accountInfo(): Promise<AccountInfo> {
    return this.assembled?.model.provider.wire === "anthropic-messages" ? { apiProvider: "firstParty" } : {};
  }

  streamInput(stream: AsyncIterable<SDKUserMessage>): Promise<void> {
    return this.input.add(stream);
  }

  async stopTask(taskId: string): Promise<void> {
    throw new Error(`cairn Query.stopTask(): no task ${taskId} (cairn runs no background tasks).`);
  }

  async backgroundTasks(_toolUseId?: string): Promise<boolean> {
    return false;
  }

  async getContextUsage(): Promise<SDKControlGetContextUsageResponse> {
    const assembled = await this.assembly();
    const model = this.model ?? assembled.model;
    const tokens = estimateTokens(this.history);
    const maxTokens = this.options.contextWindow ?? model.contextWindow ?? 0;
    return {
      categories: [{ name: "Messages", tokens }],
      totalTokens: tokens,
      maxTokens,
      percentage: maxTokens > 0 ? Math.round((tokens / maxTokens) * 1000) / 10 : 0,
      model: model.model,
    };
  }

  readFile(
    path: string,
    options?: { maxBytes?: number; encoding?: "utf-8" | "base64" },
  ): Promise<SDKControlReadFileResponse | null> {
    return readWorkspaceFile(this.options.cwd, path, options);
  }

  async seedReadState(_path: string, _mtime: number): Promise<void> {}

  async readMcpResource(serverName: string, uri: string): Promise<SDKControlMcpReadResourceResponse> {
    const assembled = await this.assembly();
    const tool = assembled.tools.find((candidate) => candidate.name === "ReadMcpResource");
    const outcome = tool
      ? await tool.execute(
          { server: serverName, uri },
          { cwd: this.options.cwd, signal: this.stop.signal, toolUseId: randomUUID() },
        )
      : undefined;
    if (!outcome || outcome.isError) {
      throw new Error(
        `cairn Query.readMcpResource(): ${outcome?.content ?? `no MCP server publishes resources`}`,
      );
    }
    // The MCP server's `resources/read` contents, as it answered them.
    return { contents: (outcome.data?.contents as SDKControlMcpReadResourceResponse["contents"]) ?? [] };
  }

  async setMcpPermissionModeOverride(serverName: string): Promise<{ warning?: string }> {
    return {
      warning: `cairn has no per-server permission mode; allow the server's tools with a rule like mcp__${serverName}.`,
    };
  }

  async applyFlagSettings(_settings: Record<string, unknown>): Promise<void> {
    notApplied("applyFlagSettings", "cairn's settings come from its config files and the query's options.");
  }

  async updateSettings(): Promise<void> {
    notApplied("updateSettings", "the SDK never writes cairn's config files.");
  }

  async reloadOutputStyles(): Promise<SDKControlReloadOutputStylesResponse> {
    return { available_output_styles: ["default"] };
  }

  async reloadPlugins(): Promise<SDKControlReloadPluginsResponse> {
    return { plugins: [] };
  }

  async reloadSkills(): Promise<SDKControlReloadSkillsResponse> {
    return { skills: [] };
  }

  async usage_EXPERIMENTAL_MAY_CHANGE_DO_NOT_RELY_ON_THIS_API_YET(): Promise<Record<string, unknown>> {
    return {};
  }

  /** The tool list changed: tools, system prompt and gate are worked out again for the next turn. */
  private async toolsChanged(assembled: AssembledRun): Promise<void> {
    await assembled.refreshTools();
    this.permissions.rebuild();
  }

  private shutDown(): void {
    this.closed = true;
    this.stop.abort(new Error("The query was closed."));
    // Never iterated: drive()'s clean-up will not run, but a method (getContextUsage(), the MCP
    // ones) may have assembled the run and started its MCP servers.
    if (!this.started) {
      this.ended = true;
      this.assembled?.close().catch(() => {});
    }
  }

  private async *drive(): AsyncGenerator<SDKMessage, void> {
    this.started = true;
    const userSignal = this.options.abortController?.signal;
    const onUserAbort = () => this.stop.abort(userSignal?.reason);
    if (userSignal?.aborted) onUserAbort();
    else userSignal?.addEventListener("abort", onUserAbort, { once: true });
    for (const note of this.options.optionNotes) this.diagnostic(note);
    let exhausted = false;
    try {
      if (typeof this.prompt === "string") yield* this.turn({ text: this.prompt });
      while (!this.stop.signal.aborted) {
        const next = await this.untilStopped(this.input.next());
        if (next === STOPPED) break;
        if (next.done) {
          exhausted = true;
          break;
        }
        yield* this.turn(promptOf(next.value), next.value.uuid);
      }
      if (exhausted || typeof this.prompt === "string") yield* this.endSession();
    } finally {
      // Release the caller's iterable; don't wait, it may be blocked on its own input.
      const iterator = this.promptIterator;
      if (!this.input.promptExhausted && iterator?.return) Promise.resolve(iterator.return()).catch(() => {});
      userSignal?.removeEventListener("abort", onUserAbort);
      this.stop.abort(new Error("The query ended."));
      // Closed or aborted: SessionEnd hooks still run, though nobody reads their messages now.
      for await (const _ of this.endSession()) {
      }
      // Also on break, close() and abort: everything recorded so far is fsynced, MCP servers end.
      this.session?.writer?.close();
      this.ended = true;
      await this.assembled?.close();
    }
  }

  /**
   * One turn: one prompt through the engine, projected to SDK messages. With `outputFormat` a turn may
   * take more than one engine run: when the model ends without delivering the structured output, it
   * is asked again (in the same conversation) until the retries run out; the turn still has one
   * `system`/`init` and one `result`, with the runs' numbers added up.
   */
  private async *turn(prompt: UserPrompt, userMessageId?: string): AsyncGenerator<SDKMessage, void> {
    this.userMessageId = userMessageId ?? randomUUID();
    const run = new AbortController();
    const onStop = () => run.abort(this.stop.signal.reason);
    if (this.stop.signal.aborted) onStop();
    else this.stop.signal.addEventListener("abort", onStop, { once: true });
    this.currentRun = run;
    const projection = createSdkProjection({
      includePartialMessages: this.options.includePartialMessages,
      includeHookEvents: this.options.includeHookEvents === true,
      forwardSubagentText: this.options.forwardSubagentText === true,
      version: cairnVersion(),
    });
    const structured = this.structuredOutput?.();
    let combined: RunEndEvent | undefined;
    try {
      let next: UserPrompt | undefined = prompt;
      while (next !== undefined) {
        const maxTurns =
          this.options.maxTurns === undefined ? undefined : this.options.maxTurns - (combined?.numTurns ?? 0);
        const end = yield* this.engineRun(next, run, projection, structured, {
          announce: combined === undefined,
          maxTurns,
        });
        if (!end) return; // closed
        combined = combined ? mergeRunEnds(combined, end) : end;
        this.spentUsd = addCost(this.spentUsd, end.totalCostUsd ?? undefined);
        this.addSpentByModel(end);
        next = undefined;
        if (structured && !structured.accepted && !structured.exhausted && end.subtype === "success") {
          structured.missed();
          if (!structured.exhausted && (maxTurns === undefined || maxTurns - end.numTurns > 0)) {
            next = { text: STRUCTURED_OUTPUT_NUDGE };
          }
        }
      }
      if (combined)
        yield* projection.project(
          this.withQueryTotals(finishRun(combined, structured, this.options.maxTurns)),
        );
    } finally {
      this.stop.signal.removeEventListener("abort", onStop);
      if (this.currentRun === run) this.currentRun = undefined;
    }
  }

  private addSpentByModel(end: RunEndEvent): void {
    for (const [model, usage] of Object.entries(end.modelUsage)) {
      const spent = this.spentByModel.get(model) ?? { usage: emptyUsage(), costUsd: 0 };
      spent.usage = addUsage(spent.usage, usage);
      spent.costUsd = addCost(spent.costUsd, end.modelCostUsd[model] ?? undefined);
      this.spentByModel.set(model, spent);
    }
  }

  /**
   * A turn's result with the query's totals so far (the convention: `total_cost_usd` and
   * `modelUsage` are cumulative for the `query()` call, read the latest, never summed; `usage` stays
   * the turn's). With streaming input each result used to cover its own turn only.
   */
  private withQueryTotals<T extends RunEndEvent | SdkRunEnd>(end: T): T {
    const models = [...this.spentByModel];
    return {
      ...end,
      totalCostUsd: this.spentUsd ?? null,
      modelUsage: Object.fromEntries(models.map(([model, spent]) => [model, spent.usage])),
      modelCostUsd: Object.fromEntries(models.map(([model, spent]) => [model, spent.costUsd ?? null])),
    };
  }

  /**
   * One engine run, projected, except its `run_end` (returned for the turn to finish) and, unless
   * `announce`, its `system`/`init`. Returns undefined when the query was closed mid-run.
   */
  private async *engineRun(
    prompt: UserPrompt,
    run: AbortController,
    projection: SdkProjection,
    structured: StructuredOutputRun | undefined,
    options: { announce: boolean; maxTurns: number | undefined },
  ): AsyncGenerator<SDKMessage, RunEndEvent | undefined> {
    const assembled = await this.assembly();
    const model = this.model ?? assembled.model;
    // The session is opened once the model is known to resolve, so a misconfigured query leaves no
    // empty transcript behind (and `continue` does not later pick one). A resumed session is opened
    // before the run, since its history goes to the model; a new session's transcript is created
    // right after its `system`/`init` has been delivered, so the first message does not wait for the
    // file system (creating a transcript fsyncs the file and its directory).
    if (this.closed) return undefined;
    let session = this.session;
    if (!session && this.resumesSession()) session = await this.openSessionOnce();
    if (!session) this.checkNewSessionId();
    if (this.closed) return undefined;
    let writer = session?.writer;
    const sessionId = session?.sessionId ?? this.newSessionId;
    const sessionStart = this.sessionStarted ? undefined : this.history.length > 0 ? "resume" : "startup";
    const beforeFileChange = this.fileCheckpoints.begin(sessionId, this.userMessageId ?? randomUUID());
    this.sessionStarted = true;
    const engine = runAgentLoop(
      await assembled.loopOptions({
        prompt: prompt.text,
        ...(prompt.content ? { promptContent: prompt.content } : {}),
        signal: run.signal,
        sessionId,
        transcriptPath: this.transcriptPath(sessionId),
        ...(sessionStart ? { sessionStart } : {}),
        history: this.history,
        model,
        canUseTool: this.permissions.canUseTool,
        permissionMode: this.permissions.mode ?? "default",
        ...(structured ? { extraTools: [structured.tool] } : {}),
        ...(options.maxTurns !== undefined ? { maxTurns: options.maxTurns } : {}),
        ...(this.thinking ? { thinking: this.thinking } : {}),
        ...(beforeFileChange ? { beforeFileChange } : {}),
        // The budget is the query's: a later turn gets what the earlier ones left.
        ...(this.options.maxBudgetUsd !== undefined && this.spentUsd !== undefined
          ? { maxBudgetUsd: Math.max(0, this.options.maxBudgetUsd - this.spentUsd) }
          : {}),
      }),
    );
    let finished = false;
    const progress = new ToolProgress((this.options.env ?? process.env) as NodeJS.ProcessEnv);
    try {
      while (true) {
        const step = yield* progress.during(engine.next(), sessionId);
        if (step.done) {
          finished = true;
          return undefined;
        }
        const event = step.value;
        // Every event reaches the transcript, also while the query is being closed.
        writer?.recordEvent(event);
        if (this.closed) return undefined;
        progress.observe(event);
        if (this.modeChange !== undefined) {
          yield this.statusMessage(sessionId, this.modeChange);
          this.modeChange = undefined;
        }
        if (event.type === "run_end") {
          finished = true;
          await engine.return(event);
          return event;
        }
        if (event.type === "run_start") {
          if (options.announce) {
            for (const message of projection.project(event)) yield message;
            yield* this.flushNotices(event.sessionId);
          }
          if (!session) {
            session = await this.openSessionOnce();
            writer = session.writer;
            writer?.recordEvent(event);
          }
          continue;
        }
        for (const message of projection.project(event)) yield message;
        // An accepted structured output ends the run by itself (a terminal tool outcome). When the
        // attempts are used up, no further model call can help: stop the run.
        if (
          structured &&
          event.type === "tool_end" &&
          event.name === STRUCTURED_OUTPUT_TOOL &&
          structured.exhausted &&
          !structured.accepted
        ) {
          run.abort(STRUCTURED_OUTPUT_EXHAUSTED);
        }
      }
    } finally {
      if (!finished) {
        // Cancelled mid-run (break, return(), close()): abort the request and tools, then let the
        // engine's own finally blocks close the stream.
        run.abort(new Error("The query was closed."));
        await engine.return(undefined as never).catch(() => {});
      }
    }
  }

  /**
   * SessionEnd, once per query that ran a turn: its hooks' records go to the transcript and, while
   * someone still reads, out as hook messages.
   */
  private async *endSession(): AsyncGenerator<SDKMessage, void> {
    if (this.sessionEnded || !this.assembling) return;
    this.sessionEnded = true;
    const hooks = (await this.assembling.catch(() => undefined))?.hooks;
    if (!hooks?.has("SessionEnd")) return;
    const verdict = await hooks.run(
      { hook_event_name: "SessionEnd", reason: "other" },
      { signal: AbortSignal.timeout(SESSION_END_LIMIT_MS) },
    );
    const sessionId = this.session?.sessionId ?? this.newSessionId;
    for (const record of verdict.records) {
      const event = { type: "hook_result" as const, turn: 0, record };
      this.session?.writer?.recordEvent(event);
      if (!this.closed) yield* hookMessages(record, sessionId, this.options.includeHookEvents === true);
    }
  }

  /** The transcript a session id is written to (`""` when nothing is persisted). */
  private transcriptPath(sessionId: string): string {
    const { persistSession, cwd, env } = this.options;
    if (persistSession === false) return "";
    const store = new SessionStore({ env: (env ?? process.env) as NodeJS.ProcessEnv });
    return join(store.dirFor(cwd), `${sessionId}${TRANSCRIPT_EXTENSION}`);
  }

  /**
   * The run assembled once per query, when the first turn starts: config, gate, tools and system
   * prompt (a config error rejects here, before any message).
   */
  private assembly(): Promise<AssembledRun> {
    this.assembling ??= (async () => {
      const assembled = await assembleRun({
        ...this.runSpec(),
        config: await this.config(),
        customization: await this.customization(),
        ...(this.model ? { resolvedModel: this.model } : {}),
      });
      this.assembled = assembled;
      // Closed while the servers were starting: they end now, nobody will use them.
      if (this.ended) await assembled.close();
      this.permissions.adopt(assembled);
      this.notices.push(...assembled.warnings.map((content): Notice => ({ tag: "config", content })));
      for (const server of assembled.mcp.states())
        if (server.status !== "connected")
          this.notices.push({
            tag: "mcp",
            content: `MCP server ${server.name} ${server.status}: ${server.error}`,
          });
      return assembled;
    })();
    return this.assembling;
  }

  /** The config files, loaded once per query (the `settingSources` decide which). */
  private config(): Promise<LoadedConfig> {
    const { cwd, env, settingSources } = this.options;
    this.configLoading ??= loadConfig({
      cwd,
      ...(env ? { env: env as NodeJS.ProcessEnv } : {}),
      ...(settingSources ? { sources: settingSources } : {}),
    });
    return this.configLoading;
  }

  /** Commands and skills, loaded once per query: `supportedCommands()` may ask before the first turn. */
  private customization(): Promise<Customization> {
    const { cwd, env, settingSources, skills, plugins } = this.options;
    this.customizationLoading ??= this.config().then((config) =>
      loadCustomization({
        cwd,
        env: (env ?? process.env) as NodeJS.ProcessEnv,
        sources: settingSources ?? config.sources,
        ...(skills !== undefined ? { skills } : {}),
        ...(plugins ? { plugins } : {}),
      }),
    );
    return this.customizationLoading;
  }

  private runSpec(): RunSpec {
    const { apiKey, baseURL, env, cwd, model, contextWindow, maxBudgetUsd, fallbackModel, effort, betas } =
      this.options;
    const thinking = optionsThinking(this.options);
    return {
      cwd,
      ...(contextWindow !== undefined ? { contextWindow } : {}),
      ...(maxBudgetUsd !== undefined ? { maxBudgetUsd } : {}),
      ...(fallbackModel !== undefined ? { fallbackModel } : {}),
      ...(effort !== undefined ? { effort } : {}),
      ...(betas !== undefined ? { betas } : {}),
      ...(thinking ? { thinking } : {}),
      ...(apiKey !== undefined ? { apiKey } : {}),
      ...(baseURL !== undefined ? { baseURL } : {}),
      ...(env !== undefined ? { env: env as NodeJS.ProcessEnv } : {}),
      ...(model !== undefined ? { model } : {}),
      permissions: this.permissions.setup(),
      tools: this.tools,
      // An explicit tool list offers the Skill tool only when it names it (as in the convention).
      skillTool: !Array.isArray(this.options.tools) || this.options.tools.includes("Skill"),
      agents: agentsSpec(this.options),
      sandbox: async (roots, env) => {
        const { policy, warnings } = await sdkSandboxPolicy(this.options.sandbox, roots, env);
        for (const content of warnings) this.notices.push({ tag: "sandbox", content });
        return { policy, warnings: [] };
      },
      mcp: {
        explicit: entriesFromOptions(this.options.mcpServers),
        strict: this.options.strictMcpConfig === true,
        approveProject: false,
        onLog: (server, line, kind) => {
          if (kind === "event") this.notices.push({ tag: "mcp", content: `MCP server ${server}: ${line}` });
        },
      },
      hooks: {
        ...(this.options.hooks ? { callbacks: this.options.hooks } : {}),
        ...(this.options.settingsHooks ? { files: [this.options.settingsHooks] } : {}),
        trust: this.options.settingSources?.includes("project") === true,
        trustHint:
          'add "project" to the settingSources option, or the workspace to trustedWorkspaces in the user config',
      },
      ...(this.structuredOutput ? { extraTools: [STRUCTURED_OUTPUT_DECLARATION] } : {}),
      ...systemPromptSettings(
        this.options.systemPrompt,
        this.structuredOutput ? STRUCTURED_OUTPUT_INSTRUCTIONS : undefined,
      ),
    };
  }

  /**
   * The session this query writes to: new, resumed (same id, history loaded), the latest of `cwd`
   * (`continue`), or a fork. Opened once, when the first turn starts.
   */
  private async openSessionOnce(): Promise<OpenedSession> {
    if (this.session) return this.session;
    const { cwd, env, resume, forkSession, persistSession } = this.options;
    const session = await openSession({
      cwd,
      // Used when a new session is started (also by `continue` with no earlier session).
      sessionId: this.newSessionId,
      ...(resume !== undefined ? { resume } : {}),
      continueLatest: this.options.continue === true,
      fork: forkSession === true,
      persist: persistSession !== false,
      env: (env ?? process.env) as NodeJS.ProcessEnv,
    });
    this.session = session;
    if (this.options.title !== undefined && session.writer)
      setSessionTitle(this.transcriptPath(session.sessionId), this.options.title);
    const { resumeSessionAt } = this.options;
    if (resumeSessionAt === undefined) this.history.push(...session.history);
    else this.history.push(...resumedAt(session, resumeSessionAt, this.options.resume));
    this.notices.push(...session.warnings.map((content): Notice => ({ tag: "session", content })));
    return session;
  }

  private resumesSession(): boolean {
    return this.options.resume !== undefined || this.options.continue === true;
  }

  /**
   * A new session's id must not have a transcript yet. Checked before the run, so the error comes
   * before any message (creating the transcript, after `system`/`init`, would fail on it anyway).
   */
  private checkNewSessionId(): void {
    const { sessionId } = this.options;
    const file = sessionId === undefined ? "" : this.transcriptPath(sessionId);
    if (file && existsSync(file)) {
      throw new SessionWriteError(file, new Error(`session ${sessionId} already exists; resume it instead`));
    }
  }

  private statusMessage(sessionId: string, permissionMode: PermissionMode): SDKStatusMessage {
    return {
      type: "system",
      subtype: "status",
      status: null,
      permissionMode,
      uuid: randomUUID(),
      session_id: sessionId,
    };
  }

  /**
   * One line of diagnostics to the `stderr` option, and with `debug` / `debugFile` to this process's
   * stderr or that file (a throwing callback or an unwritable file is not the run's problem).
   */
  private diagnostic(text: string): void {
    const line = `${text}\n`;
    const { stderr, debug, debugFile } = this.options;
    try {
      stderr?.(line);
    } catch {}
    try {
      if (debugFile !== undefined)
        appendFileSync(resolvePath(this.options.cwd, debugFile), line, { mode: 0o600 });
      else if (debug) process.stderr.write(line);
    } catch {}
  }

  private *flushNotices(sessionId: string): Generator<SDKInformationalMessage> {
    for (const notice of this.notices.splice(0)) {
      this.diagnostic(`cairn: ${notice.content}`);
      yield {
        type: "system",
        subtype: "informational",
        content: notice.content,
        level: "warning",
        tag: notice.tag,
        uuid: randomUUID(),
        session_id: sessionId,
      };
    }
  }

  private untilStopped<T>(promise: Promise<T>): Promise<T | typeof STOPPED> {
    return unlessAborted(this.stop.signal, promise, () => STOPPED);
  }
}

/**
 * The subagents (docs/agents.md): the `agents` option over the agent files. A `tools` list offers
 * the Agent tool only when it names it (`Agent`, legacy `Task`).
 */
function agentsSpec(options: ResolvedOptions): AgentsSpec {
  const listed = Array.isArray(options.tools) ? options.tools.some(isAgentToolName) : undefined;
  return {
    ...(options.agents ? { definitions: options.agents as Record<string, AgentDefinition> } : {}),
    ...(options.agent !== undefined ? { main: options.agent } : {}),
    ...(listed !== undefined ? { enabled: listed } : {}),
  };
}

/** The built-in tools after `tools` (base set) and `disallowedTools`. */
function selectTools(options: ResolvedOptions): Tool[] {
  let tools = builtinTools();
  if (Array.isArray(options.tools)) {
    const known = new Set(tools.map((tool) => tool.name));
    // The run assembly adds the Skill tool when skills are enabled (docs/agents.md), and the Agent
    // tool with the run's subagents (agentsSpec).
    const unknown = options.tools.filter(
      (name) => !known.has(name) && name !== "Skill" && !isAgentToolName(name),
    );
    if (unknown.length > 0) {
      throw new InvalidOptionsError(
        `cairn query(): invalid option "tools": no built-in tool named ${unknown.map((name) => `"${name}"`).join(", ")}. Built-in tools: ${[...known].join(", ")}.`,
        "tools",
      );
    }
    const keep = new Set(options.tools);
    tools = tools.filter((tool) => keep.has(tool.name));
  }
  // A bare name removes the tool; a rule with content ("Bash(rm:*)") only denies matching calls.
  const removed = new Set(
    (options.disallowedTools ?? [])
      .flatMap((entry) => splitRuleList(entry))
      .filter((rule) => !rule.includes("(")),
  );
  return tools.filter((tool) => !removed.has(tool.name));
}

function systemPromptSettings(
  option: Options["systemPrompt"],
  instructions: string | undefined,
): { systemPrompt?: string; appendSystemPrompt?: string } {
  const add = (text: string | undefined) =>
    instructions === undefined ? text : text ? `${text}\n\n${instructions}` : instructions;
  if (option === undefined) return instructions ? { appendSystemPrompt: instructions } : {};
  if (typeof option === "string" || Array.isArray(option)) return { systemPrompt: add(joinPrompt(option))! };
  if (option.type === "custom") return { systemPrompt: add(joinPrompt(option.prompt))! };
  const append = add(option.append);
  return append !== undefined ? { appendSystemPrompt: append } : {};
}

/** Adds a later engine run of the same turn to the earlier ones. */
function mergeRunEnds(a: RunEndEvent, b: RunEndEvent): RunEndEvent {
  const modelUsage: Record<string, Usage> = { ...a.modelUsage };
  for (const [model, usage] of Object.entries(b.modelUsage)) {
    modelUsage[model] = addUsage(modelUsage[model] ?? emptyUsage(), usage);
  }
  return {
    ...b,
    result: a.result + b.result,
    durationMs: a.durationMs + b.durationMs,
    durationApiMs: a.durationApiMs + b.durationApiMs,
    numTurns: a.numTurns + b.numTurns,
    usage: addUsage(a.usage, b.usage),
    modelUsage,
    errors: [...a.errors, ...b.errors],
    permissionDenials: [...a.permissionDenials, ...b.permissionDenials],
  };
}

/** The turn's outcome once structured output is taken into account. */
function finishRun(
  end: RunEndEvent,
  structured: StructuredOutputRun | undefined,
  maxTurns: number | undefined,
): SdkRunEnd {
  if (!structured) return end;
  if (structured.accepted) {
    return {
      ...end,
      subtype: "success",
      isError: false,
      aborted: false,
      errors: [],
      structuredOutput: structured.value,
    };
  }
  if (structured.exhausted) {
    return {
      ...end,
      subtype: "error_max_structured_output_retries",
      isError: true,
      aborted: false,
      errors: [
        `The model did not deliver output matching the schema in ${MAX_STRUCTURED_OUTPUT_RETRIES + 1} attempts.`,
      ],
    };
  }
  if (end.subtype === "success") {
    // The model ended without the output and the turn budget ran out before it could be asked again.
    return {
      ...end,
      subtype: "error_max_turns",
      isError: true,
      errors: [`Reached the maximum number of turns (${maxTurns}) without structured output.`],
    };
  }
  return end;
}

/** `thinking` wins over the deprecated `maxThinkingTokens`; `display` is cairn's to ignore (thinking is always streamed). */
function optionsThinking(options: ResolvedOptions): ThinkingSetting | undefined {
  const { thinking, maxThinkingTokens } = options;
  if (thinking) {
    if (thinking.type === "enabled") {
      return thinking.budgetTokens !== undefined
        ? { type: "enabled", budgetTokens: thinking.budgetTokens }
        : { type: "enabled" };
    }
    return { type: thinking.type };
  }
  return maxThinkingTokens !== undefined ? thinkingFromBudget(maxThinkingTokens) : undefined;
}

function thinkingFromBudget(budget: number): ThinkingSetting {
  return budget === 0 ? { type: "disabled" } : { type: "enabled", budgetTokens: budget };
}

function joinPrompt(prompt: string | string[]): string {
  if (typeof prompt === "string") return prompt;
  return prompt.filter((part) => part !== SYSTEM_PROMPT_DYNAMIC_BOUNDARY).join("\n\n");
}

/** The prompt of a streaming-input user message: text, images and documents (src/sdk/prompt-content.ts). */
function promptOf(message: SDKUserMessage): UserPrompt {
  if (!message || typeof message !== "object" || message.type !== "user" || !message.message) {
    throw new TypeError(
      'cairn query(): each message of the prompt iterable must be { type: "user", message: { role: "user", content } }.',
    );
  }
  return userPrompt(message.message.content, "cairn query(): message");
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return (
    value !== null &&
    typeof value === "object" &&
    typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === "function"
  );
}

let version: string | undefined;

/** cairn's version (package.json, two levels up from both src/sdk and dist/sdk). */
function cairnVersion(): string {
  if (version === undefined) {
    try {
      version = (
        JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
          version: string;
        }
      ).version;
    } catch {
      version = "0.0.0";
    }
  }
  return version;
}
