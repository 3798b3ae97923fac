import { homedir } from "node:os";
import type { SlashCommand } from "../agents/commands.js";
import { type Customization, loadCustomization, slashCommandsOf } from "../agents/customization.js";
import type { AgentInfo } from "../agents/definitions.js";
import type { PluginConfig } from "../agents/plugins.js";
import { type LoadedConfig, loadConfig } from "../config/load.js";
import type { SettingSource } from "../config/setting-sources.js";
import type { EngineEvent, RunEndEvent } from "../engine/events.js";
import type { SessionEndHookInput } from "../engine/hooks.js";
import { runAgentLoopBatches } from "../engine/loop.js";
import type { SteeringPrompt } from "../engine/loop-steering.js";
import type { ConversationMessage, PromptBlock } from "../engine/messages.js";
import type { ThinkingSetting } from "../engine/provider.js";
import { estimateTokens } from "../engine/tokens.js";
import type { McpServerEntry } from "../mcp/config.js";
import type { SessionPermissionMode } from "../permissions/types.js";
import { type AgentsSpec, loadRunAgents, offeredAgents } from "../run/agents.js";
import {
  type AssembledRun,
  assembleRun,
  type RunSpec,
  resolveModelFor,
  type TurnSpec,
} from "../run/assemble.js";
import type { PromptExpansion } from "../run/customize.js";
import type { RunModel } from "../run/model.js";
import { memoryFileCheckpoints, type RewindFilesResult } from "../sessions/checkpoints.js";
import {
  defaultTranscriptStore,
  type OpenedSession,
  openSession,
  type SessionRequest,
} from "../sessions/open-session.js";
import type { TranscriptStore, TranscriptWriter } from "../sessions/transcript-store.js";
import { SessionWriteError } from "../sessions/writer.js";
import { describeToolCall } from "../tools/display.js";
import { builtinTools } from "../tools/index.js";
import type { Tool, ToolDisplay } from "../tools/types.js";
import { randomUuid } from "../util/random-id.js";
import { unlessAborted } from "../util/unless-aborted.js";
import { EventChannel, mergeWith } from "./event-channel.js";
import type {
  NoticeTag,
  PermissionAnswer,
  PermissionRequest,
  SessionEndEvent,
  SessionEvent,
  SessionOwnEvent,
} from "./events.js";
import { SessionFileCheckpoints } from "./file-checkpoints.js";
import { type PermissionSettings, SessionPermissions } from "./permissions.js";
import {
  addUserMessage,
  type ConversationPrompt,
  conversationPrompts,
  type PromptMark,
  type RewindOptions,
  type RewindTarget,
  resumedMarks,
  rewindSession,
  type SessionRewind,
} from "./rewind.js";
import { SpendTotals } from "./spend-totals.js";
import { SteeringInbox } from "./steering.js";
import { flushTelemetry, startTelemetry } from "./telemetry.js";
import { TurnGate, type WhenBusy } from "./turn-gate.js";

export { BusyError } from "./turn-gate.js";

/**
 * How a door opens a session: new, resumed by id, the latest of the workspace, or a fork (the
 * fields of `openSession`'s request, src/sessions/open-session.ts).
 */
export type SessionOpening = Pick<
  SessionRequest,
  "sessionId" | "resume" | "createMissing" | "continueLatest" | "fork" | "persist"
> & {
  /** The session's custom title (SDK `title`), written to its metadata once it is opened. */
  title?: string;
  /** A new session replacing a cleared one (the interactive mode's `/clear`): its SessionStart `source`. */
  cleared?: boolean;
  /**
   * Called once the session is opened, before its history goes to the model: returns the history
   * to continue from (the SDK's `resumeSessionAt` cuts it).
   */
  opened?: (session: OpenedSession) => ConversationMessage[];
};

/** What a door gives when it opens a session (its flags, options or protocol parameters, mapped). */
export type SessionSetup = {
  cwd: string;
  /** The environment the session reads (provider keys, cairn's variables): the door's, which its entry read once. */
  env: NodeJS.ProcessEnv;
  /**
   * Where the session's transcript is kept, found and listed; default the JSONL store of
   * `$CAIRN_HOME/sessions` (`defaultTranscriptStore`, read from `env`).
   */
  store?: TranscriptStore;
  /** Which config files, commands and skills load (default: all). */
  settingSources?: readonly SettingSource[];
  skills?: readonly string[] | "all";
  plugins?: readonly PluginConfig[];
  /**
   * The run assembly's spec without the permissions (the session's own): model, tools, system
   * prompt, MCP servers, hooks, sandbox. `notice` reports what the user should know, as a
   * `session_notice` after the next `run_start`.
   */
  assembly: (notice: (tag: NoticeTag, content: string) => void) => Omit<RunSpec, "permissions">;
  permissions: PermissionSettings;
  opening: SessionOpening;
  /** The model `setModel(undefined)` returns to (the door's own choice; undefined: the default). */
  model?: string;
  /** A budget for the whole session: each turn gets what the earlier ones left. */
  maxBudgetUsd?: number;
  /** Subagents (for `agents()` before the first turn). */
  agents?: AgentsSpec;
  /** Save files before tools change them, for `rewindFiles()`. */
  fileCheckpointing?: boolean;
  /** How many of the latest events to keep for `watch({ after })` (default none). */
  keep?: number;
};

/** One prompt for a turn: its text, and blocks when it holds images or documents. */
export type PromptInput = { text: string; content?: PromptBlock[] };

export type PromptOptions = {
  /**
   * A prompt that comes while a turn runs: `queue` (the default) waits for that turn to end, then
   * runs; `steer` joins the running turn where it next calls the model (its events are that turn's;
   * this prompt's own generator then ends with nothing) — a `/command`, or a prompt the turn ends
   * before taking, runs as a queued turn instead; `reject` throws `BusyError` at once. Every door
   * follows this one rule (docs/architecture.md, "One session, many doors").
   */
  whenBusy?: WhenBusy;
  /** The user message's id (its file checkpoint; default a fresh one). */
  userMessageId?: string;
  /** Tools for this prompt only (the SDK's StructuredOutput). */
  extraTools?: Tool[];
  /** Model calls this prompt may make. */
  maxTurns?: number;
  /** `expandPrompt(text)` already worked out by the door (null: the prompt invokes no command). */
  expansion?: PromptExpansion | null;
  /**
   * Part of the turn before it (the SDK asks again for a structured output in the same turn): runs
   * without waiting for the turn gate, which the caller already holds.
   */
  continuation?: boolean;
};

export type SessionEndReason = SessionEndHookInput["reason"];

/** SessionEnd hooks get this long in all, whatever their own timeouts (the session is over). */
const SESSION_END_LIMIT_MS = 60_000;

/**
 * One conversation, whichever door drives it (print mode, the SDK's `query()`, ACP, the agent-SDK
 * protocol, the interactive mode): its history and transcript, permissions and their answers, the
 * model and mode, the spend so far, its MCP servers and hooks. A door only maps its input to
 * `prompt()` / `answer()` / `interrupt()` and projects the `SessionEvent`s it gets back.
 *
 * The session opens its transcript when the first turn starts (so a session that never runs
 * writes nothing): a resumed one before the run (its history goes to the model), a new one right
 * after `run_start` (the door's first message does not wait for the file system).
 */
export class Session {
  /** The conversation: a resumed session's history, then every turn. */
  readonly history: ConversationMessage[] = [];
  readonly permissions: SessionPermissions;
  readonly spend = new SpendTotals();
  private readonly fileCheckpoints: SessionFileCheckpoints;
  private readonly newSessionId: string;
  private transcriptStore: TranscriptStore | undefined;
  private opened: OpenedSession | undefined;
  private opening: Promise<OpenedSession> | undefined;
  /** How many messages the opened transcript brought (a resumed session's SessionStart says `resume`). */
  private resumedMessages = 0;
  /** The prompts this session sent, where they start in the history (rewind.ts). */
  private readonly promptMarks: PromptMark[] = [];
  private readonly notices: { tag: NoticeTag; content: string }[] = [];
  /** Events raised beside the engine's stream, merged into the running turn's events. */
  private readonly side = new EventChannel<SessionOwnEvent>();
  /** The number of the last event yielded; the watchers; the last `SessionSetup.keep` events. */
  private seq = 0;
  private readonly watchers = new Set<(seq: number, event: SessionEvent | RunEndEvent) => void>();
  private readonly kept: (SessionEvent | RunEndEvent)[] = [];
  /** Permission requests waiting for `answer()`. */
  private readonly asks = new Map<string, PendingAsk>();
  private readonly gate = new TurnGate();
  private readonly steering = new SteeringInbox();
  /** Aborted by `stopTurns()`, `abandon()` and `close()`: no further turns. */
  private readonly stop = new AbortController();
  private currentRun: AbortController | undefined;
  private closed = false;
  private model: RunModel | undefined;
  private thinking: ThinkingSetting | undefined;
  private assembling: Promise<AssembledRun> | undefined;
  private assembled: AssembledRun | undefined;
  private configLoading: Promise<LoadedConfig> | undefined;
  private customizationLoading: Promise<Customization> | undefined;
  private sessionStarted = false;
  private sessionEnded = false;
  /** `close()` ran: what the session started has ended. */
  private ended = false;
  /** The OpenTelemetry export, started before the first turn when asked for (docs/telemetry.md). */
  private telemetry: Promise<import("../telemetry/start.js").SessionTelemetry | undefined> | undefined;

  constructor(private readonly setup: SessionSetup) {
    this.newSessionId = setup.opening.sessionId ?? randomUuid();
    this.permissions = new SessionPermissions(
      setup.permissions,
      (request, signal) => this.askFor(request, signal),
      (mode) => {
        if (this.currentRun) this.side.push({ type: "permission_mode_changed", mode });
      },
    );
    this.fileCheckpoints = new SessionFileCheckpoints(setup.fileCheckpointing === true, (id) =>
      this.persists() ? this.store.fileCheckpoints(id, setup.cwd) : memoryFileCheckpoints(),
    );
  }

  /** The session's id: the resumed or forked one once opened, else the new one it will have. */
  get id(): string {
    return this.opened?.sessionId ?? this.newSessionId;
  }

  /** The permission mode in effect (undefined before the first turn when the door chose none). */
  get mode(): SessionPermissionMode | undefined {
    return this.permissions.mode;
  }

  /** A turn is running. */
  get busy(): boolean {
    return this.gate.busy;
  }

  /** The run as assembled (undefined before the first turn, or the first method that needed it). */
  get run(): AssembledRun | undefined {
    return this.assembled;
  }

  /**
   * Runs one prompt: the engine's events and the session's own, in order, then the run's
   * `run_end` as the generator's return value (undefined when the session was abandoned mid-run).
   * Nothing runs until the generator is read; ending the iteration early aborts the turn.
   */
  async *prompt(
    input: PromptInput,
    options: PromptOptions = {},
  ): AsyncGenerator<SessionEvent, RunEndEvent | undefined> {
    const batches = this.promptBatches(input, options);
    try {
      while (true) {
        const step = await batches.next();
        if (step.done) return step.value;
        yield* step.value;
      }
    } finally {
      await batches.return(undefined);
    }
  }

  /**
   * `prompt()` in batches: every event of one network chunk together (or one other event), so a
   * door that writes them (print mode) makes one write per chunk. `run_end` is not in them.
   */
  promptBatches(
    input: PromptInput,
    options: PromptOptions = {},
  ): AsyncGenerator<SessionEvent[], RunEndEvent | undefined> {
    // One async generator between the door and the engine: each layer costs every batch of a
    // streamed answer a few promises (docs/performance.md).
    return this.turn(input, options);
  }

  /** Stops the running turn (its model request and tools); it ends with an aborted `run_end`. */
  interrupt(reason: unknown = new Error("The turn was interrupted.")): void {
    this.currentRun?.abort(reason);
  }

  /**
   * Every event the session's turns yield (and each turn's `run_end`), numbered from 1 in order,
   * for a watcher that does not drive the turn: a second view of the session, a worker persisting
   * it. With `after`, the events after that number that the session still keeps (`SessionSetup.keep`)
   * are delivered first; `complete` is false when some of them were no longer kept. Returns the
   * function that stops watching.
   */
  watch(
    listener: (seq: number, event: SessionEvent | RunEndEvent) => void,
    { after }: { after?: number } = {},
  ): { stop: () => void; complete: boolean } {
    let complete = true;
    if (after !== undefined) {
      const kept = this.kept.length;
      const first = this.seq - kept + 1;
      complete = after + 1 >= first;
      // The kept events are a ring: the oldest is at `seq % capacity` once it is full.
      for (let seq = Math.max(first, after + 1); seq <= this.seq; seq++)
        listener(seq, this.kept[(seq - 1) % (this.setup.keep ?? 1)]!);
    }
    this.watchers.add(listener);
    return { stop: () => this.watchers.delete(listener), complete };
  }

  /** The number of the last event the session yielded (0 before any). */
  get lastSeq(): number {
    return this.seq;
  }

  /** Answers a `permission_request`; false when no request with that id is waiting. */
  answer(requestId: string, answer: PermissionAnswer): boolean {
    const pending = this.asks.get(requestId);
    if (!pending) return false;
    this.asks.delete(requestId);
    pending.resolve(answer);
    return true;
  }

  /** The answerer failed (a callback threw): the gate denies the call, saying so. */
  fail(requestId: string, error: unknown): boolean {
    const pending = this.asks.get(requestId);
    if (!pending) return false;
    this.asks.delete(requestId);
    pending.reject(error);
    return true;
  }

  /** Aborted when a waiting request is withdrawn (its turn was interrupted or ended). */
  requestSignal(requestId: string): AbortSignal | undefined {
    return this.asks.get(requestId)?.signal;
  }

  /** Aborted when the session is closed. */
  get signal(): AbortSignal {
    return this.stop.signal;
  }

  /** Applies to the next tool call, also inside the running turn (which is told). */
  setMode(mode: SessionPermissionMode): void {
    this.permissions.setMode(mode);
    if (this.currentRun) this.side.push({ type: "permission_mode_changed", mode });
  }

  /**
   * The model from the next turn on; `undefined` returns to the door's choice. Rejects with the
   * configuration error when the model cannot be used.
   */
  async setModel(name: string | undefined): Promise<void> {
    if (name === undefined) {
      // Before the first turn the assembly resolves the default itself; after it, resolve it now.
      this.model = this.assembling
        ? await resolveModelFor(this.specForModel(), await this.config(), this.setup.model)
        : undefined;
      return;
    }
    this.model = await resolveModelFor(this.specForModel(), await this.config(), name);
  }

  /** Thinking from the next turn on; undefined returns to the door's setting. */
  setThinking(thinking: ThinkingSetting | undefined): void {
    this.thinking = thinking;
  }

  /** The model the next turn uses. */
  async currentModel(): Promise<RunModel> {
    return this.model ?? (await this.assembly()).model;
  }

  /** The slash commands a prompt may start with: cairn's own, the project's and the user's. */
  async commands(): Promise<SlashCommand[]> {
    return slashCommandsOf(await this.customization());
  }

  /** The subagents the Agent tool offers (without assembling the run, when it is not yet). */
  async agents(): Promise<AgentInfo[]> {
    if (this.assembled) return this.assembled.agents.map((agent) => ({ ...agent }));
    const { cwd, permissions } = this.setup;
    const [config, customization] = await Promise.all([this.config(), this.customization()]);
    const agents = await loadRunAgents(
      {
        cwd,
        env: this.env(),
        home: homedir(),
        sources: this.setup.settingSources ?? config.sources,
        plugins: customization.plugins,
      },
      this.setup.agents,
      {
        ...(permissions.allowedTools ? { allowedTools: permissions.allowedTools } : {}),
        ...(permissions.disallowedTools ? { disallowedTools: permissions.disallowedTools } : {}),
      },
    );
    return offeredAgents(agents);
  }

  /** An estimate of the conversation's tokens against the model's context window. */
  async contextUsage(
    contextWindow: number | undefined,
  ): Promise<{ tokens: number; maxTokens: number; model: string }> {
    const model = await this.currentModel();
    return {
      tokens: estimateTokens(this.history),
      maxTokens: contextWindow ?? model.contextWindow ?? 0,
      model: model.model,
    };
  }

  async reconnectMcpServer(name: string): Promise<void> {
    const assembled = await this.assembly();
    const state = await assembled.mcp.reconnect(name);
    await this.toolsChanged(assembled);
    if (state.status === "failed") throw new Error(`MCP server ${name} failed: ${state.error}`);
  }

  async toggleMcpServer(name: string, enabled: boolean): Promise<void> {
    const assembled = await this.assembly();
    await assembled.mcp.setEnabled(name, enabled);
    await this.toolsChanged(assembled);
  }

  /** Replaces the door's own MCP servers (the config files' stay). */
  async setMcpServers(
    entries: McpServerEntry[],
  ): Promise<{ added: string[]; removed: string[]; errors: Record<string, string> }> {
    const assembled = await this.assembly();
    const result = await assembled.mcp.replaceLevel("sdk", entries);
    await this.toolsChanged(assembled);
    return result;
  }

  /** Puts the files the tools changed back as they were when `userMessageId` was sent. */
  rewindFiles(userMessageId: string, options?: { dryRun?: boolean }): Promise<RewindFilesResult> {
    // Before any turn, a resumed session's checkpoints (a fork starts without any).
    const { resume, fork } = this.setup.opening;
    const sessionId = this.opened?.sessionId ?? (fork ? undefined : resume);
    return this.fileCheckpoints.rewind(sessionId, userMessageId, options);
  }

  /**
   * A user message the model reads with the next prompt (the interactive mode's `!` commands, kept
   * as the reference keeps them): in the history and the transcript at once (rewind.ts). Not while a
   * turn runs (its tool calls and results must stay together): false then, and nothing is added.
   */
  async addUserMessage(content: PromptBlock[]): Promise<boolean> {
    const opened = await this.open();
    if (this.busy) return false;
    await addUserMessage(this.history, content, opened.writer);
    return true;
  }

  /** The conversation's prompts, oldest first (a rewind picker's list: rewind.ts). */
  prompts(): ConversationPrompt[] {
    return conversationPrompts(this.history, this.promptMarks);
  }

  /**
   * Back to before a prompt (rewind.ts): the conversation is cut there (the model forgets it and
   * everything after it) and the cut recorded in the transcript, so a resume continues from it;
   * with `files`, the files the tools changed since are restored from the file checkpoints.
   */
  rewind(target: RewindTarget, options: RewindOptions = {}): Promise<SessionRewind> {
    const host = {
      history: this.history,
      marks: this.promptMarks,
      busy: this.busy,
      writer: this.opened?.writer,
    };
    return rewindSession({ ...host, rewindFiles: (id) => this.rewindFiles(id) }, target, options);
  }

  /**
   * Ends the session, once, if a turn ever ran: SessionEnd hooks run (their records go to the
   * transcript and are yielded for a door still showing them). `close()` runs them if nobody did.
   * `reason` is the hooks' (the interactive mode's `/clear` and `/resume` end a session with theirs).
   */
  async *end(reason: SessionEndReason = "other"): AsyncGenerator<SessionEndEvent, void> {
    if (this.sessionEnded || !this.sessionStarted || !this.assembling) return;
    this.sessionEnded = true;
    const hooks = (await this.assembling.catch(() => undefined))?.hooks;
    if (!hooks?.has("SessionEnd")) return;
    const verdict = await hooks.run(
      { hook_event_name: "SessionEnd", reason },
      { signal: AbortSignal.timeout(SESSION_END_LIMIT_MS) },
    );
    for (const record of verdict.records) {
      const event = { type: "hook_result" as const, turn: 0, record };
      await this.opened?.writer?.recordEvent(event);
      yield event;
    }
  }

  /**
   * Ends the session: the running turn is aborted, SessionEnd hooks run (if a turn ran), the
   * transcript is closed (everything recorded is on disk), and what the run started ends (MCP
   * servers, leftover processes). Idempotent.
   */
  async close(reason: unknown = new Error("The session was closed.")): Promise<void> {
    this.abandon(reason);
    for await (const _ of this.end()) {
    }
    await this.opened?.writer?.close();
    await flushTelemetry(this.telemetry);
    this.ended = true;
    if (this.assembling) await (await this.assembling.catch(() => undefined))?.close();
  }

  /**
   * Stops the running turn and every later one: the running turn still ends with its (aborted)
   * `run_end`, and SessionEnd still runs at `close()` (the SDK's `abortController`).
   */
  stopTurns(reason: unknown): void {
    if (!this.stop.signal.aborted) this.stop.abort(reason);
  }

  /**
   * As `stopTurns`, and nobody reads any more: the running turn returns at its next event without
   * its `run_end` (the SDK's `close()` while its iteration winds down). `close()` still cleans up.
   */
  abandon(reason: unknown): void {
    this.closed = true;
    this.stopTurns(reason);
  }

  /** No further turn runs (stopped, abandoned or closed). */
  get isStopped(): boolean {
    return this.stop.signal.aborted;
  }

  /** Nobody reads the session's events any more (abandoned or closed). */
  get isClosed(): boolean {
    return this.closed;
  }

  /** Resolves `promise` unless the session is stopped first (then `stopped()`'s value). */
  unlessStopped<T, A>(promise: Promise<T>, stopped: () => A): Promise<T | A> {
    return unlessAborted(this.stop.signal, promise, stopped);
  }

  /**
   * Where a session id's transcript is written: its store's location, which hooks get as
   * `transcript_path` (`""` when nothing is persisted).
   */
  transcriptPath(sessionId: string): string {
    return this.persists() ? this.store.locate(sessionId, this.setup.cwd) : "";
  }

  /** The transcript store: the door's, else the JSONL store of `$CAIRN_HOME` (made when first needed). */
  get store(): TranscriptStore {
    this.transcriptStore ??= this.setup.store ?? defaultTranscriptStore(this.env());
    return this.transcriptStore;
  }

  /**
   * The run, assembled once per session when first needed: config, gate, tools and system prompt
   * (a config error rejects here, before any event).
   */
  assembly(): Promise<AssembledRun> {
    this.assembling ??= (async () => {
      const spec = this.setup.assembly((tag, content) => this.notices.push({ tag, content }));
      const assembled = await assembleRun({
        ...spec,
        permissions: this.permissions.setup(),
        config: await this.config(),
        customization: await this.customization(),
        ...(this.model ? { resolvedModel: this.model } : {}),
      });
      this.assembled = assembled;
      // Closed while the servers were starting: they end now, nobody will use them.
      if (this.ended) await assembled.close();
      this.permissions.adopt(assembled);
      for (const content of assembled.warnings) this.notices.push({ tag: "config", content });
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

  /** The config files, loaded once per session (the setting sources decide which). */
  config(): Promise<LoadedConfig> {
    const { cwd, env, settingSources } = this.setup;
    this.configLoading ??= loadConfig({
      cwd,
      env,
      ...(settingSources ? { sources: [...settingSources] } : {}),
    });
    return this.configLoading;
  }

  /** Commands and skills, loaded once per session (a door may list them before the first turn). */
  private customization(): Promise<Customization> {
    const { cwd, settingSources, skills, plugins } = this.setup;
    this.customizationLoading ??= this.config().then((config) =>
      loadCustomization({
        cwd,
        env: this.env(),
        sources: settingSources ?? config.sources,
        ...(skills !== undefined ? { skills } : {}),
        ...(plugins ? { plugins } : {}),
      }),
    );
    return this.customizationLoading;
  }

  /**
   * One turn: the busy rule's gate, then one engine run with the session's own events merged in;
   * returns its `run_end`. One generator for the whole turn (see `promptBatches`).
   */
  private async *turn(
    input: PromptInput,
    options: PromptOptions,
  ): AsyncGenerator<SessionEvent[], RunEndEvent | undefined> {
    if (options.whenBusy === "steer" && !options.continuation && this.steers(input)) {
      const taken = await this.steering.offer(input);
      if (taken) return undefined;
    }
    const release = options.continuation
      ? undefined
      : await this.gate.enter(options.whenBusy === "reject" ? "reject" : "queue");
    const run = new AbortController();
    const onStop = () => run.abort(this.stop.signal.reason);
    if (this.stop.signal.aborted) onStop();
    else this.stop.signal.addEventListener("abort", onStop, { once: true });
    const outer = this.currentRun;
    this.currentRun = run;
    let engine: AsyncGenerator<EngineEvent[], RunEndEvent> | undefined;
    let finished = false;
    try {
      const start = await this.startRun(
        input,
        options,
        run,
        options.continuation ? undefined : this.steering.open(),
      );
      if (!start) return undefined;
      engine = start.engine;
      let { session, writer } = start;
      // The prompt's record carries its id (a resumed session rewinds its files with it).
      const promptId = { userMessageId: options.continuation ? undefined : start.userMessageId };
      // Only a question somebody answers can keep the engine waiting on the door: then its events
      // are raced against the session's own; otherwise those are taken between batches.
      const answered = this.setup.permissions.answered;
      const steps: AsyncIterator<EngineEvent[] | SessionOwnEvent, RunEndEvent> = answered
        ? mergeWith(engine, this.side)
        : engine;
      while (true) {
        if (!answered) for (const own of this.side.take()) yield this.published([own]);
        const step = await steps.next();
        if (step.done) {
          finished = true;
          return undefined;
        }
        const item = step.value;
        if (!Array.isArray(item)) {
          yield this.published([item]);
          continue;
        }
        // Every event reaches the transcript (deltas are not recorded), also while the session is
        // being abandoned.
        const recorded = scan(item);
        if (writer && recorded.records) await record(item, writer, promptId);
        const end = recorded.end;
        if (this.closed) return undefined;
        if (end) {
          finished = true;
          await engine.return(end);
          this.spend.add(end);
          const rest = item.filter(
            (event): event is Exclude<EngineEvent, RunEndEvent> => event.type !== "run_end",
          );
          if (rest.length > 0) yield this.published(rest);
          this.published([end]);
          return end;
        }
        yield this.published(item as SessionEvent[]);
        if (recorded.started) {
          for (const notice of this.notices.splice(0))
            yield this.published([{ type: "session_notice", ...notice }]);
          if (!session) {
            session = await this.open();
            writer = session.writer;
            if (writer && recorded.records) await record(item, writer, promptId);
          }
        }
      }
    } finally {
      if (engine && !finished) {
        // Ended mid-run (the door stopped reading, or the session was abandoned): abort the request
        // and tools, then let the engine's own finally blocks close the stream.
        run.abort(new Error("The turn was abandoned."));
        await engine.return(undefined as never).catch(() => {});
      }
      this.stop.signal.removeEventListener("abort", onStop);
      this.currentRun = outer;
      if (!options.continuation) this.steering.close();
      release?.();
    }
  }

  /**
   * Everything before a turn's first event: the run assembled, a resumed session opened (a new
   * one's id checked), the engine started. Undefined when the session was abandoned meanwhile. Kept
   * apart from `turn`, whose loop is the hot code of a streamed answer: V8 optimises a small loop
   * early and cheaply (as print mode's `printBatch`).
   */
  private async startRun(
    input: PromptInput,
    options: PromptOptions,
    run: AbortController,
    steering: (() => SteeringPrompt[]) | undefined,
  ): Promise<
    | {
        engine: AsyncGenerator<EngineEvent[], RunEndEvent>;
        session: OpenedSession | undefined;
        writer: TranscriptWriter | undefined;
        userMessageId: string;
      }
    | undefined
  > {
    const assembled = await this.assembly();
    this.telemetry ??= this.config()
      .then((config) => startTelemetry(this.env(), config))
      .then((telemetry) => {
        if (telemetry) this.watch((_, event) => telemetry.observe(event));
        return telemetry;
      });
    await this.telemetry;
    const model = this.model ?? assembled.model;
    if (this.closed) return undefined;
    let session = this.opened;
    if (!session && this.resumes()) session = await this.open();
    if (!session) await this.checkNewSessionId();
    if (this.closed) return undefined;
    const sessionId = session?.sessionId ?? this.newSessionId;
    const sessionStart = this.sessionStarted
      ? undefined
      : this.resumedMessages > 0
        ? "resume"
        : this.setup.opening.cleared
          ? "clear"
          : "startup";
    const userMessageId = options.userMessageId ?? randomUuid();
    if (!options.continuation)
      this.promptMarks.push({ userMessageId, at: this.history.length, text: input.text });
    const beforeFileChange = this.fileCheckpoints.begin(sessionId, userMessageId);
    this.sessionStarted = true;
    const loop = await assembled.loopOptions(
      this.turnSpec(input, options, run, sessionId, sessionStart, model, beforeFileChange, steering),
    );
    return { engine: runAgentLoopBatches(loop), session, writer: session?.writer, userMessageId };
  }

  /** What the run assembly makes the engine's options of, for one turn. */
  private turnSpec(
    input: PromptInput,
    options: PromptOptions,
    run: AbortController,
    sessionId: string,
    sessionStart: "startup" | "resume" | "clear" | undefined,
    model: RunModel,
    beforeFileChange: ((file: string) => Promise<void>) | undefined,
    steering: (() => SteeringPrompt[]) | undefined,
  ): TurnSpec {
    const left = this.spend.budgetLeft(this.setup.maxBudgetUsd);
    return {
      prompt: input.text,
      ...(input.content ? { promptContent: input.content } : {}),
      ...(options.expansion !== undefined ? { expansion: options.expansion } : {}),
      signal: run.signal,
      sessionId,
      transcriptPath: this.transcriptPath(sessionId),
      ...(this.persists()
        ? {
            subagentTranscriptPath: (agentId: string) =>
              this.store.locateSubagent(sessionId, this.setup.cwd, agentId),
          }
        : {}),
      ...(sessionStart ? { sessionStart } : {}),
      history: this.history,
      model,
      canUseTool: this.permissions.canUseTool,
      ...(this.permissions.chosenMode !== undefined ? { permissionMode: this.permissions.chosenMode } : {}),
      ...(options.extraTools ? { extraTools: options.extraTools } : {}),
      ...(options.maxTurns !== undefined ? { maxTurns: options.maxTurns } : {}),
      ...(this.thinking ? { thinking: this.thinking } : {}),
      ...(beforeFileChange ? { beforeFileChange } : {}),
      ...(left !== undefined ? { maxBudgetUsd: left } : {}),
      ...(steering ? { steering } : {}),
    };
  }

  /**
   * Whether a `steer` prompt may join the running turn: one is running, and the prompt is not a
   * `/command` (a command is a turn of its own: `/compact` cannot happen inside another turn).
   */
  private steers(input: PromptInput): boolean {
    return this.gate.busy && !input.text.trimStart().startsWith("/");
  }

  /**
   * How a call of the session's tools is shown (title, kind, files, diff) in every door; `live`:
   * it has not run yet. A tool the run does not know is titled by its name.
   */
  describe(toolName: string, input: Record<string, unknown>, { live }: { live: boolean }): ToolDisplay {
    // Before the run is assembled (a stored conversation replayed): the built-in tools.
    const declarations = this.assembled?.declarations ?? builtinTools();
    const declaration = declarations.find(
      (tool) => tool.name === toolName || tool.aliases?.includes(toolName),
    );
    return describeToolCall(declaration, toolName, input, this.assembled?.cwd ?? this.setup.cwd, { live });
  }

  /** Numbers a batch for the watchers (and the kept log); returns it unchanged. */
  private published<T extends SessionEvent | RunEndEvent>(batch: T[]): T[] {
    const keep = this.setup.keep ?? 0;
    if (this.watchers.size === 0 && keep === 0) {
      this.seq += batch.length;
      return batch;
    }
    for (const event of batch) {
      this.seq += 1;
      for (const watcher of this.watchers) watcher(this.seq, event);
      if (keep > 0) this.kept[(this.seq - 1) % keep] = event;
    }
    return batch;
  }

  /** The gate's "ask": a `permission_request` event, answered by `answer()` or ended by the abort. */
  private askFor(question: Omit<PermissionRequest, "display">, signal: AbortSignal): Promise<unknown> {
    const request: PermissionRequest = {
      ...question,
      display: this.describe(question.toolName, question.input, { live: true }),
    };
    const answered = new Promise<PermissionAnswer>((resolve, reject) =>
      this.asks.set(request.id, { resolve, reject, signal }),
    );
    this.side.push({ type: "permission_request", request });
    return unlessAborted(signal, answered, () => {
      this.asks.delete(request.id);
      throw signal.reason;
    });
  }

  /**
   * Opens a resumed session now, before its first turn (the interactive mode draws its history when
   * it starts) and returns its history; a new session's is empty, and nothing is written for it.
   */
  async resumedHistory(): Promise<readonly ConversationMessage[]> {
    if (this.resumes()) await this.open();
    return this.history;
  }

  /** The session this door writes to, opened once, when the first turn starts (or `resumedHistory`). */
  private open(): Promise<OpenedSession> {
    this.opening ??= this.openNow();
    return this.opening;
  }

  private async openNow(): Promise<OpenedSession> {
    const { cwd, opening } = this.setup;
    const session = await openSession({
      cwd,
      sessionId: this.newSessionId,
      ...(opening.resume !== undefined ? { resume: opening.resume } : {}),
      ...(opening.createMissing ? { createMissing: true } : {}),
      continueLatest: opening.continueLatest === true,
      fork: opening.fork === true,
      persist: opening.persist !== false,
      env: this.env(),
      store: this.store,
    });
    if (opening.title !== undefined && session.writer)
      await this.store.updateMeta(session.sessionId, cwd, { title: opening.title });
    this.opened = session;
    this.history.push(...(opening.opened ? opening.opened(session) : session.history));
    this.resumedMessages = this.history.length;
    if (session.userRecords) this.promptMarks.push(...resumedMarks(this.history, session.userRecords));
    for (const content of session.warnings) this.notices.push({ tag: "session", content });
    return session;
  }

  private resumes(): boolean {
    return this.setup.opening.resume !== undefined || this.setup.opening.continueLatest === true;
  }

  /** A new session's id must not have a transcript yet (checked before any event). */
  private async checkNewSessionId(): Promise<void> {
    const { sessionId } = this.setup.opening;
    if (sessionId === undefined || !this.persists()) return;
    if (await this.store.exists(sessionId, this.setup.cwd)) {
      throw new SessionWriteError(
        this.transcriptPath(sessionId),
        new Error(`session ${sessionId} already exists; resume it instead`),
      );
    }
  }

  /** The session writes a transcript (not the SDK's `persistSession: false`). */
  private persists(): boolean {
    return this.setup.opening.persist !== false;
  }

  /** The tool list changed: tools, system prompt and gate are worked out again for the next turn. */
  private async toolsChanged(assembled: AssembledRun): Promise<void> {
    await assembled.refreshTools();
    this.permissions.rebuild();
  }

  private specForModel(): RunSpec {
    return this.setup.assembly(() => {});
  }

  private env(): NodeJS.ProcessEnv {
    return this.setup.env;
  }
}

type PendingAsk = {
  resolve: (answer: PermissionAnswer) => void;
  reject: (error: unknown) => void;
  /** The tool call's signal: the turn's abort withdraws the request. */
  signal: AbortSignal;
};

/**
 * What a batch holds besides deltas: its run_start and run_end, and whether anything in it is
 * recorded (a batch of deltas, nearly every batch of a streamed answer, has nothing to record).
 */
function scan(batch: readonly EngineEvent[]): {
  end: RunEndEvent | undefined;
  started: boolean;
  records: boolean;
} {
  let end: RunEndEvent | undefined;
  let started = false;
  let records = false;
  for (const event of batch) {
    if (event.type === "stream") continue;
    records = true;
    if (event.type === "run_end") end = event;
    else if (event.type === "run_start") started = true;
  }
  return { end, started, records };
}

/** Records a batch's events but the deltas, in order (a store may take its time for each). */
async function record(
  batch: readonly EngineEvent[],
  writer: TranscriptWriter,
  prompt: { userMessageId: string | undefined },
): Promise<void> {
  for (const event of batch) {
    if (event.type === "stream") continue;
    const { userMessageId } = prompt;
    const withId = event.type === "run_start" && userMessageId !== undefined;
    if (withId) prompt.userMessageId = undefined;
    const recording = writer.recordEvent(withId ? { ...event, userMessageId } : event);
    if (recording) await recording;
  }
}
