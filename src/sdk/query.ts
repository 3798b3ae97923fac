import { randomUUID } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { AgentDefinition, AgentInfo } from "../agents/definitions.js";
import { isAgentToolName } from "../agents/subagent-tools.js";
import { type LoadedConfig, loadConfig } from "../config/load.js";
import type { RunEndEvent } from "../engine/events.js";
import { runAgentLoop } from "../engine/loop.js";
import { addCost, addUsage, type ConversationMessage, emptyUsage, type Usage } from "../engine/messages.js";
import type { ThinkingSetting } from "../engine/provider.js";
import { entriesFromOptions } from "../mcp/sources.js";
import { splitRuleList } from "../permissions/rules.js";
import { MODEL_CATALOG } from "../providers/catalog.js";
import { type AgentsSpec, loadRunAgents, offeredAgents } from "../run/agents.js";
import { type AssembledRun, assembleRun, type RunSpec, resolveModelFor } from "../run/assemble.js";
import type { RunModel } from "../run/model.js";
import { sdkSandboxPolicy } from "../sandbox/sdk-option.js";
import { type OpenedSession, openSession } from "../sessions/open-session.js";
import { SessionStore, TRANSCRIPT_EXTENSION } from "../sessions/store.js";
import { SessionWriteError } from "../sessions/writer.js";
import { builtinTools } from "../tools/index.js";
import type { Tool } from "../tools/types.js";
import type { PermissionMode, SDKInformationalMessage, SDKMessage, SDKUserMessage } from "./messages.js";
import {
  InvalidOptionsError,
  type McpServerConfig,
  type Options,
  type ResolvedOptions,
  validateOptions,
} from "./options.js";
import { SdkPermissions } from "./permissions.js";
import { createSdkProjection, hookMessages, type SdkProjection, type SdkRunEnd } from "./project.js";
import {
  compileOutputFormat,
  MAX_STRUCTURED_OUTPUT_RETRIES,
  STRUCTURED_OUTPUT_DECLARATION,
  STRUCTURED_OUTPUT_INSTRUCTIONS,
  STRUCTURED_OUTPUT_NUDGE,
  STRUCTURED_OUTPUT_TOOL,
  type StructuredOutputRun,
} from "./structured-output.js";

/** What `interrupt()` resolves to: cairn queues nothing, so there is never anything still queued. */
export type SDKControlInterruptResponse = { still_queued: string[]; cancelled?: string[] };
/** What `setPermissionMode()` resolves to: the mode now in effect. */
export type SDKControlSetPermissionModeResponse = { mode: PermissionMode };
export type SlashCommand = { name: string; description: string; argumentHint: string };
export type ModelInfo = { value: string; displayName: string; description: string };
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
  setMaxThinkingTokens(maxThinkingTokens: number | null): Promise<void>;
  /** The one slash command: `/compact [instructions]`. */
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
const SYSTEM_PROMPT_DYNAMIC_BOUNDARY = "__SYSTEM_PROMPT_DYNAMIC_BOUNDARY__";
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
  private configLoading: Promise<LoadedConfig> | undefined;
  private assembled: AssembledRun | undefined;
  /** The query is over: what it started (MCP servers) ends. */
  private ended = false;
  private sessionEnded = false;
  /** SessionStart fires with the query's first engine run. */
  private sessionStarted = false;

  constructor(
    private readonly prompt: string | AsyncIterable<SDKUserMessage>,
    private readonly options: ResolvedOptions,
    private readonly tools: Tool[],
    private readonly structuredOutput: (() => StructuredOutputRun) | undefined,
  ) {
    this.newSessionId = options.sessionId ?? randomUUID();
    this.permissions = new SdkPermissions(options);
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

  async setMaxThinkingTokens(maxThinkingTokens: number | null): Promise<void> {
    if (maxThinkingTokens === null) {
      this.thinking = undefined;
      return;
    }
    validateOptions({ maxThinkingTokens, cwd: this.options.cwd });
    this.thinking = thinkingFromBudget(maxThinkingTokens);
  }

  async supportedCommands(): Promise<SlashCommand[]> {
    return [
      {
        name: "compact",
        description: "Summarise the conversation so far into one message (docs/context.md)",
        argumentHint: "[instructions]",
      },
    ];
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
    const { cwd, env, allowedTools, disallowedTools } = this.options;
    const agents = await loadRunAgents(
      cwd,
      (env ?? process.env) as NodeJS.ProcessEnv,
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

  /** The tool list changed: tools, system prompt and gate are worked out again for the next turn. */
  private async toolsChanged(assembled: AssembledRun): Promise<void> {
    await assembled.refreshTools();
    this.permissions.rebuild();
  }

  private shutDown(): void {
    this.closed = true;
    this.stop.abort(new Error("The query was closed."));
  }

  private async *drive(): AsyncGenerator<SDKMessage, void> {
    const userSignal = this.options.abortController?.signal;
    const onUserAbort = () => this.stop.abort(userSignal?.reason);
    if (userSignal?.aborted) onUserAbort();
    else userSignal?.addEventListener("abort", onUserAbort, { once: true });
    try {
      if (typeof this.prompt === "string") {
        yield* this.turn(this.prompt);
        yield* this.endSession();
        return;
      }
      const iterator = this.prompt[Symbol.asyncIterator]();
      let exhausted = false;
      try {
        while (!this.stop.signal.aborted) {
          const next = await this.untilStopped(iterator.next());
          if (next === STOPPED) break;
          if (next.done) {
            exhausted = true;
            break;
          }
          yield* this.turn(promptText(next.value));
        }
        if (exhausted) yield* this.endSession();
      } finally {
        // Release the caller's iterable; don't wait, it may be blocked on its own input.
        if (!exhausted && iterator.return) Promise.resolve(iterator.return()).catch(() => {});
      }
    } finally {
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
  private async *turn(prompt: string): AsyncGenerator<SDKMessage, void> {
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
      let next: string | undefined = prompt;
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
        next = undefined;
        if (structured && !structured.accepted && !structured.exhausted && end.subtype === "success") {
          structured.missed();
          if (!structured.exhausted && (maxTurns === undefined || maxTurns - end.numTurns > 0)) {
            next = STRUCTURED_OUTPUT_NUDGE;
          }
        }
      }
      if (combined) yield* projection.project(finishRun(combined, structured, this.options.maxTurns));
    } finally {
      this.stop.signal.removeEventListener("abort", onStop);
      if (this.currentRun === run) this.currentRun = undefined;
    }
  }

  /**
   * One engine run, projected, except its `run_end` (returned for the turn to finish) and, unless
   * `announce`, its `system`/`init`. Returns undefined when the query was closed mid-run.
   */
  private async *engineRun(
    prompt: string,
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
    this.sessionStarted = true;
    const engine = runAgentLoop(
      assembled.loopOptions({
        prompt,
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
        // The budget is the query's: a later turn gets what the earlier ones left.
        ...(this.options.maxBudgetUsd !== undefined && this.spentUsd !== undefined
          ? { maxBudgetUsd: Math.max(0, this.options.maxBudgetUsd - this.spentUsd) }
          : {}),
      }),
    );
    let finished = false;
    try {
      while (true) {
        const step = await engine.next();
        if (step.done) {
          finished = true;
          return undefined;
        }
        const event = step.value;
        // Every event reaches the transcript, also while the query is being closed.
        writer?.recordEvent(event);
        if (this.closed) return undefined;
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

  /** The config files, loaded once per query. */
  private config(): Promise<LoadedConfig> {
    const { cwd, env } = this.options;
    this.configLoading ??= loadConfig({ cwd, ...(env ? { env: env as NodeJS.ProcessEnv } : {}) });
    return this.configLoading;
  }

  private runSpec(): RunSpec {
    const { apiKey, baseURL, env, cwd, model, contextWindow, maxBudgetUsd, fallbackModel, effort } =
      this.options;
    const thinking = optionsThinking(this.options);
    return {
      cwd,
      ...(contextWindow !== undefined ? { contextWindow } : {}),
      ...(maxBudgetUsd !== undefined ? { maxBudgetUsd } : {}),
      ...(fallbackModel !== undefined ? { fallbackModel } : {}),
      ...(effort !== undefined ? { effort } : {}),
      ...(thinking ? { thinking } : {}),
      ...(apiKey !== undefined ? { apiKey } : {}),
      ...(baseURL !== undefined ? { baseURL } : {}),
      ...(env !== undefined ? { env: env as NodeJS.ProcessEnv } : {}),
      ...(model !== undefined ? { model } : {}),
      permissions: this.permissions.setup(),
      tools: this.tools,
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
    this.history.push(...session.history);
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

  private *flushNotices(sessionId: string): Generator<SDKInformationalMessage> {
    for (const notice of this.notices.splice(0)) {
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
    const signal = this.stop.signal;
    if (signal.aborted) return Promise.resolve(STOPPED);
    return new Promise((resolve, reject) => {
      const onStop = () => resolve(STOPPED);
      signal.addEventListener("abort", onStop, { once: true });
      promise.then(
        (value) => {
          signal.removeEventListener("abort", onStop);
          resolve(value);
        },
        (error: unknown) => {
          signal.removeEventListener("abort", onStop);
          reject(error);
        },
      );
    });
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
    // The Agent tool is not built in: it comes with the run's subagents (agentsSpec).
    const unknown = options.tools.filter((name) => !known.has(name) && !isAgentToolName(name));
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

/** The text of a streaming-input user message (text content only, for now). */
function promptText(message: SDKUserMessage): string {
  if (!message || typeof message !== "object" || message.type !== "user" || !message.message) {
    throw new TypeError(
      'cairn query(): each message of the prompt iterable must be { type: "user", message: { role: "user", content } }.',
    );
  }
  const { content } = message.message;
  if (typeof content === "string") return content;
  if (!Array.isArray(content))
    throw new TypeError("cairn query(): message.content must be a string or an array of blocks.");
  return content
    .map((block) => {
      if (block?.type === "text" && typeof block.text === "string") return block.text;
      throw new TypeError(
        `cairn query(): content blocks of type "${String(block?.type)}" are not supported in prompts yet; send text.`,
      );
    })
    .join("\n\n");
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
