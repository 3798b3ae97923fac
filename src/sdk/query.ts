import { randomUUID } from "node:crypto";
import { appendFileSync, readFileSync } from "node:fs";
import { resolve as resolvePath } from "node:path";
import type { SlashCommand } from "../agents/commands.js";
import type { AgentDefinition, AgentInfo } from "../agents/definitions.js";
import { isAgentToolName } from "../agents/subagent-tools.js";
import { DatabaseTranscripts } from "../durable/database-transcripts.js";
import type { RunEndEvent } from "../engine/events.js";
import { addUsage, emptyUsage, type Usage } from "../engine/messages.js";
import type { ThinkingSetting } from "../engine/provider.js";
import { entriesFromOptions } from "../mcp/sources.js";
import { splitRuleList } from "../permissions/rules.js";
import { catalogModels, DEFAULT_MODEL_CHOICE } from "../providers/offered-models.js";
import type { AgentsSpec } from "../run/agents.js";
import type { RunSpec } from "../run/assemble.js";
import { configuredSandboxDomains } from "../run/sandbox-domains.js";
import { sdkSandboxPolicy } from "../sandbox/sdk-option.js";
import type { NoticeTag, PermissionAnswer, PermissionRequest, SessionEvent } from "../session/events.js";
import { type ToolHeartbeat, ToolHeartbeats } from "../session/heartbeats.js";
import { Session, type SessionSetup } from "../session/session.js";
import type { RewindFilesResult } from "../sessions/checkpoints.js";
import { builtinTools } from "../tools/index.js";
import type { Tool } from "../tools/types.js";
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
import type {
  PermissionMode,
  SDKInformationalMessage,
  SDKMessage,
  SDKStatusMessage,
  SDKToolProgressMessage,
  SDKUserMessage,
} from "./messages.js";
import {
  type CanUseTool,
  InvalidOptionsError,
  type McpServerConfig,
  type Options,
  type ResolvedOptions,
  validateOptions,
} from "./options.js";
import { promptToolAsker } from "./permission-prompt-tool.js";
import {
  createSdkProjection,
  forwardsSubagentText,
  hookMessages,
  type SdkProjection,
  type SdkRunEnd,
} from "./project.js";
import { type UserPrompt, userPrompt } from "./prompt-content.js";
import { notApplied, readWorkspaceFile } from "./query-extras.js";
import { QueryInput } from "./query-input.js";
import { resumedAt } from "./resume-at.js";
import {
  compileOutputFormat,
  MAX_STRUCTURED_OUTPUT_RETRIES,
  STRUCTURED_OUTPUT_DECLARATION,
  STRUCTURED_OUTPUT_INSTRUCTIONS,
  STRUCTURED_OUTPUT_NUDGE,
  STRUCTURED_OUTPUT_TOOL,
  type StructuredOutputRun,
} from "./structured-output.js";
import { TurnFrames } from "./turn-frames.js";

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
  /**
   * `default` (the configured default model), then the models of cairn's catalog (any other
   * `provider/model` id works too); every `value` is a name `setModel()` takes.
   */
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

const STOPPED: unique symbol = Symbol("stopped");
/** How denial messages tell an SDK user to lift a restriction (the CLI says "use --force"). */
const SDK_FORCE_HINT = 'set permissionMode: "bypassPermissions"';
/** Abort reason when a run is ended because the structured output can no longer come. */
const STRUCTURED_OUTPUT_EXHAUSTED = new Error("The structured output retries are used up.");

/**
 * The convention's `Query` over one session (src/session/): the session owns the conversation,
 * permissions, model, spend, MCP servers and hooks; this class reads the prompt iterable, answers
 * permission requests with `canUseTool`, asks again for a structured output, and projects the
 * session's events to SDK messages.
 */
class QueryRun implements Query {
  private readonly generator: AsyncGenerator<SDKMessage, void>;
  private readonly session: Session;
  /** The `databaseUrl` option's store, closed after the session. */
  private readonly store: DatabaseTranscripts | undefined;
  /** Who answers the session's permission requests: `canUseTool`, or the permission prompt tool. */
  private readonly asker: CanUseTool | undefined;
  /** The iteration began: drive() runs its clean-up. */
  private started = false;
  /** close(), return() or throw(): no further messages at all. */
  private closed = false;
  /** The user messages of the turns after the first: the prompt iterable and `streamInput()` streams. */
  private readonly input: QueryInput<SDKUserMessage>;
  private readonly promptIterator: AsyncIterator<SDKUserMessage> | undefined;
  /** The state changes and prompt echoes the program asked for around each turn. */
  private readonly frames: TurnFrames;

  constructor(
    private readonly prompt: string | AsyncIterable<SDKUserMessage>,
    private readonly options: ResolvedOptions,
    private readonly tools: Tool[],
    private readonly structuredOutput: (() => StructuredOutputRun) | undefined,
  ) {
    this.asker = askerOf(options, () => this.session.run?.tools ?? []);
    // Sessions in a cairn serve database: by the option or CAIRN_DATABASE_URL, never DATABASE_URL.
    const databaseUrl = options.databaseUrl ?? options.env.CAIRN_DATABASE_URL;
    this.store = databaseUrl
      ? new DatabaseTranscripts(databaseUrl, () => import("../durable/open-database-store.js"))
      : undefined;
    this.session = new Session({
      ...sessionSetup(options, tools, structuredOutput !== undefined, this.asker !== undefined),
      ...(this.store ? { store: this.store } : {}),
    });
    this.promptIterator = typeof prompt === "string" ? undefined : prompt[Symbol.asyncIterator]();
    this.input = new QueryInput(this.promptIterator);
    this.frames = TurnFrames.of(options);
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
    this.session.interrupt(new Error("Interrupted by Query.interrupt()."));
    return undefined;
  }

  async setPermissionMode(mode: PermissionMode): Promise<SDKControlSetPermissionModeResponse | undefined> {
    validateOptions({ permissionMode: mode, cwd: this.options.cwd });
    // Inside a turn, a system/status message reports it; the next turn's system/init does otherwise.
    this.session.setMode(mode);
    return { mode };
  }

  async setModel(model?: string): Promise<void> {
    if (model !== undefined) validateOptions({ model, cwd: this.options.cwd });
    await this.session.setModel(model);
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
      this.session.setThinking(undefined);
      return;
    }
    validateOptions({ maxThinkingTokens, cwd: this.options.cwd });
    this.session.setThinking(thinkingFromBudget(maxThinkingTokens));
  }

  supportedCommands(): Promise<SlashCommand[]> {
    return this.session.commands();
  }

  async supportedModels(): Promise<ModelInfo[]> {
    return [DEFAULT_MODEL_CHOICE, ...catalogModels()];
  }

  supportedAgents(): Promise<AgentInfo[]> {
    // Without assembling the run: the agent-SDK protocol asks before its MCP servers can start.
    return this.session.agents();
  }

  async mcpServerStatus(): Promise<McpServerStatus[]> {
    return (this.session.run?.mcp.states() ?? []).map((server) => ({
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

  reconnectMcpServer(serverName: string): Promise<void> {
    return this.session.reconnectMcpServer(serverName);
  }

  toggleMcpServer(serverName: string, enabled: boolean): Promise<void> {
    return this.session.toggleMcpServer(serverName, enabled);
  }

  setMcpServers(servers: Record<string, McpServerConfig>): Promise<McpSetServersResult> {
    return this.session.setMcpServers(entriesFromOptions(servers));
  }

  rewindFiles(userMessageId: string, options?: { dryRun?: boolean }): Promise<RewindFilesResult> {
    return this.session.rewindFiles(userMessageId, options);
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
    return this.session.run?.model.provider.wire === "anthropic-messages"
      ? { apiProvider: "firstParty" }
      : {};
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
    const { tokens, maxTokens, model } = await this.session.contextUsage(this.options.contextWindow);
    return {
      categories: [{ name: "Messages", tokens }],
      totalTokens: tokens,
      maxTokens,
      percentage: maxTokens > 0 ? Math.round((tokens / maxTokens) * 1000) / 10 : 0,
      model,
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
    const assembled = await this.session.assembly();
    const tool = assembled.tools.find((candidate) => candidate.name === "ReadMcpResource");
    const outcome = tool
      ? await tool.execute(
          { server: serverName, uri },
          {
            cwd: this.options.cwd,
            env: this.options.env,
            signal: this.session.signal,
            toolUseId: randomUUID(),
          },
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

  private shutDown(): void {
    this.closed = true;
    this.session.abandon(new Error("The query was closed."));
    // Never iterated: drive()'s clean-up will not run, but a method (getContextUsage(), the MCP
    // ones) may have assembled the run and started its MCP servers.
    if (!this.started)
      this.session
        .close()
        .catch(() => {})
        .then(() => this.store?.close())
        .catch(() => {});
  }

  private async *drive(): AsyncGenerator<SDKMessage, void> {
    this.started = true;
    const userSignal = this.options.abortController?.signal;
    const onUserAbort = () => this.session.stopTurns(userSignal?.reason);
    if (userSignal?.aborted) onUserAbort();
    else userSignal?.addEventListener("abort", onUserAbort, { once: true });
    for (const note of this.options.optionNotes) this.diagnostic(note);
    let exhausted = false;
    try {
      if (typeof this.prompt === "string") {
        const prompt = this.frames.prompt(this.prompt);
        yield* this.frames.around(this.turn({ text: this.prompt }, prompt.uuid), prompt);
      }
      while (!this.session.isStopped) {
        const next = await this.session.unlessStopped(this.input.next(), (): typeof STOPPED => STOPPED);
        if (next === STOPPED) break;
        if (next.done) {
          exhausted = true;
          break;
        }
        const prompt = this.frames.prompt(next.value);
        yield* this.frames.around(this.turn(promptOf(prompt), prompt.uuid), prompt);
      }
      if (exhausted || typeof this.prompt === "string") yield* this.endSession();
    } finally {
      // Release the caller's iterable; don't wait, it may be blocked on its own input.
      const iterator = this.promptIterator;
      if (!this.input.promptExhausted && iterator?.return) Promise.resolve(iterator.return()).catch(() => {});
      userSignal?.removeEventListener("abort", onUserAbort);
      // Closed or aborted: SessionEnd hooks still run, though nobody reads their messages now; the
      // transcript is fsynced, MCP servers end.
      try {
        await this.session.close(new Error("The query ended."));
      } finally {
        await this.store?.close();
      }
    }
  }

  /** SessionEnd's hook records as hook messages (once per query that ran a turn). */
  private async *endSession(): AsyncGenerator<SDKMessage, void> {
    for await (const event of this.session.end()) {
      if (!this.closed)
        yield* hookMessages(event.record, this.session.id, this.options.includeHookEvents === true);
    }
  }

  /**
   * One turn: one prompt through the session, projected to SDK messages. With `outputFormat` a turn
   * may take more than one engine run: when the model ends without delivering the structured
   * output, it is asked again (in the same conversation) until the retries run out; the turn still
   * has one `system`/`init` and one `result`, with the runs' numbers added up.
   */
  private async *turn(prompt: UserPrompt, userMessageId?: string): AsyncGenerator<SDKMessage, void> {
    const projection = createSdkProjection({
      includePartialMessages: this.options.includePartialMessages,
      includeHookEvents: this.options.includeHookEvents === true,
      forwardSubagentText: forwardsSubagentText(this.options.forwardSubagentText, this.options.env),
      version: cairnVersion(),
    });
    const structured = this.structuredOutput?.();
    let combined: RunEndEvent | undefined;
    let next: UserPrompt | undefined = prompt;
    while (next !== undefined) {
      const maxTurns =
        this.options.maxTurns === undefined ? undefined : this.options.maxTurns - (combined?.numTurns ?? 0);
      const events = this.session.prompt(next, {
        userMessageId: userMessageId ?? randomUUID(),
        ...(structured ? { extraTools: [structured.tool] } : {}),
        ...(maxTurns !== undefined ? { maxTurns } : {}),
        continuation: combined !== undefined,
      });
      const end = yield* this.engineRun(events, projection, structured, combined === undefined);
      if (!end) return; // closed
      combined = combined ? mergeRunEnds(combined, end) : end;
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
        this.session.spend.withTotals(finishRun(combined, structured, this.options.maxTurns)),
      );
  }

  /**
   * One engine run of the session, projected, except its `run_end` (returned for the turn to
   * finish) and, unless `announce`, its `system`/`init`. Returns undefined when the query was closed.
   */
  private async *engineRun(
    events: AsyncGenerator<SessionEvent, RunEndEvent | undefined>,
    projection: SdkProjection,
    structured: StructuredOutputRun | undefined,
    announce: boolean,
  ): AsyncGenerator<SDKMessage, RunEndEvent | undefined> {
    const heartbeats = new ToolHeartbeats(this.options.env);
    try {
      while (true) {
        const pending = events.next();
        // While tools run: `tool_progress` heartbeats.
        for await (const beat of heartbeats.during(pending)) yield this.progressMessage(beat);
        const step = await pending;
        if (step.done) return step.value;
        const event = step.value;
        if (this.closed) return undefined;
        switch (event.type) {
          case "permission_request":
            this.answer(event.request);
            continue;
          case "permission_mode_changed":
            yield this.statusMessage(event.mode);
            continue;
          case "session_notice":
            yield this.informational(event.tag, event.content);
            continue;
          case "run_start":
            if (announce) yield* projection.project(event);
            continue;
        }
        heartbeats.observe(event);
        yield* projection.project(event);
        // An accepted structured output ends the run by itself (a terminal tool outcome). When the
        // attempts are used up, no further model call can help: stop the run.
        if (
          structured &&
          event.type === "tool_end" &&
          event.name === STRUCTURED_OUTPUT_TOOL &&
          structured.exhausted &&
          !structured.accepted
        ) {
          this.session.interrupt(STRUCTURED_OUTPUT_EXHAUSTED);
        }
      }
    } finally {
      // Cancelled mid-run (break, return(), close()): the session aborts the run and its tools.
      await events.return(undefined).catch(() => {});
    }
  }

  /**
   * A permission request, answered by `canUseTool` (or the permission prompt tool) with the
   * request's own signal: the turn's abort withdraws it. Not awaited here: heartbeats go on while
   * the callback decides.
   */
  private answer(request: PermissionRequest): void {
    const asker = this.asker;
    const signal = this.session.requestSignal(request.id);
    if (!asker || !signal) return;
    Promise.resolve()
      .then(() =>
        asker(request.toolName, request.input, {
          signal,
          toolUseID: request.toolUseId,
          requestId: request.id,
          suggestions: request.suggestions,
          decisionReason: request.reason,
          ...(request.blockedPath !== undefined ? { blockedPath: request.blockedPath } : {}),
          ...(request.agentId !== undefined ? { agentID: request.agentId } : {}),
        }),
      )
      .then(
        (answer) => this.session.answer(request.id, answer as PermissionAnswer),
        (error: unknown) => this.session.fail(request.id, error),
      );
  }

  private progressMessage(beat: ToolHeartbeat): SDKToolProgressMessage {
    return {
      type: "tool_progress",
      tool_use_id: beat.toolUseId,
      tool_name: beat.toolName,
      parent_tool_use_id: null,
      elapsed_time_seconds: beat.elapsedSeconds,
      uuid: randomUUID(),
      session_id: this.session.id,
    };
  }

  private statusMessage(permissionMode: PermissionMode): SDKStatusMessage {
    return {
      type: "system",
      subtype: "status",
      status: null,
      permissionMode,
      uuid: randomUUID(),
      session_id: this.session.id,
    };
  }

  private informational(tag: NoticeTag, content: string): SDKInformationalMessage {
    this.diagnostic(`cairn: ${content}`);
    return {
      type: "system",
      subtype: "informational",
      content,
      level: "warning",
      tag,
      uuid: randomUUID(),
      session_id: this.session.id,
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
}

/** Who answers "ask": `canUseTool`, else the MCP tool named by `permissionPromptToolName`. */
function askerOf(options: ResolvedOptions, tools: () => readonly Tool[]): CanUseTool | undefined {
  const { canUseTool, permissionPromptToolName, cwd, env } = options;
  if (canUseTool) return canUseTool;
  if (permissionPromptToolName === undefined) return undefined;
  return promptToolAsker(permissionPromptToolName, tools, cwd, env);
}

/** The session a query drives, from its options. */
function sessionSetup(
  options: ResolvedOptions,
  tools: Tool[],
  structuredOutput: boolean,
  answered: boolean,
): SessionSetup {
  const { cwd, env, settingSources, skills, plugins, resume, forkSession, persistSession, title } = options;
  return {
    cwd,
    env,
    ...(settingSources ? { settingSources } : {}),
    ...(skills !== undefined ? { skills } : {}),
    ...(plugins ? { plugins } : {}),
    assembly: (notice) => runSpec(options, tools, structuredOutput, notice),
    permissions: {
      ...(options.permissionMode !== undefined ? { mode: options.permissionMode } : {}),
      ...(options.allowedTools ? { allowedTools: options.allowedTools } : {}),
      ...(options.disallowedTools ? { disallowedTools: options.disallowedTools } : {}),
      ...(options.additionalDirectories ? { additionalDirectories: options.additionalDirectories } : {}),
      answered,
      forceHint: SDK_FORCE_HINT,
      source: "SDK",
      rules: options.settingsRules,
      bypassDisabled: options.bypassDisabled,
    },
    opening: {
      ...(options.sessionId !== undefined ? { sessionId: options.sessionId } : {}),
      ...(resume !== undefined ? { resume } : {}),
      continueLatest: options.continue === true,
      fork: forkSession === true,
      persist: persistSession !== false,
      ...(title !== undefined ? { title } : {}),
      opened: (session) => {
        const { resumeSessionAt } = options;
        return resumeSessionAt === undefined ? session.history : resumedAt(session, resumeSessionAt, resume);
      },
    },
    ...(options.model !== undefined ? { model: options.model } : {}),
    ...(options.maxBudgetUsd !== undefined ? { maxBudgetUsd: options.maxBudgetUsd } : {}),
    agents: agentsSpec(options),
    fileCheckpointing: options.enableFileCheckpointing === true,
  };
}

/** The run assembly's spec from the query's options (the session adds the permissions). */
function runSpec(
  options: ResolvedOptions,
  tools: Tool[],
  structuredOutput: boolean,
  notice: (tag: NoticeTag, content: string) => void,
): Omit<RunSpec, "permissions"> {
  const { apiKey, baseURL, env, cwd, model, contextWindow, maxBudgetUsd, fallbackModel, effort, betas } =
    options;
  const thinking = optionsThinking(options);
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
    env,
    ...(model !== undefined ? { model } : {}),
    tools,
    // An explicit tool list offers the Skill tool only when it names it (as in the convention).
    skillTool: !Array.isArray(options.tools) || options.tools.includes("Skill"),
    agents: agentsSpec(options),
    sandbox: async (roots, env, config) => {
      const configured = configuredSandboxDomains(config);
      const { policy, warnings } = await sdkSandboxPolicy(options.sandbox, roots, env, undefined, configured);
      for (const content of warnings) notice("sandbox", content);
      return { policy, warnings: [] };
    },
    mcp: {
      explicit: entriesFromOptions(options.mcpServers),
      strict: options.strictMcpConfig === true,
      approveProject: false,
      onLog: (server, line, kind) => {
        if (kind === "event") notice("mcp", `MCP server ${server}: ${line}`);
      },
    },
    hooks: {
      ...(options.hooks ? { callbacks: options.hooks } : {}),
      ...(options.settingsHooks ? { files: [options.settingsHooks] } : {}),
      trust: options.settingSources?.includes("project") === true,
      trustHint:
        'add "project" to the settingSources option, or the workspace to trustedWorkspaces in the user config',
    },
    ...(structuredOutput ? { extraTools: [STRUCTURED_OUTPUT_DECLARATION] } : {}),
    ...systemPromptSettings(
      options.systemPrompt,
      structuredOutput ? STRUCTURED_OUTPUT_INSTRUCTIONS : undefined,
    ),
  };
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
