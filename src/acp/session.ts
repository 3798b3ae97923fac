import {
  type AgentContext,
  type ContentBlock,
  methods,
  type PromptResponse,
  RequestError,
  type SessionUpdate,
  type StopReason,
} from "@agentclientprotocol/sdk";
import type { RunEndEvent } from "../engine/events.js";
import type { McpServerConfig } from "../mcp/config.js";
import { entriesFromOptions } from "../mcp/sources.js";
import type { SessionPermissionMode } from "../permissions/types.js";
import { ConfigError } from "../providers/types.js";
import { configuredSandboxDomains } from "../run/sandbox-domains.js";
import { sdkSandboxPolicy } from "../sandbox/sdk-option.js";
import type { PermissionRequest, SessionEvent } from "../session/events.js";
import { ToolHeartbeats } from "../session/heartbeats.js";
import { Session } from "../session/session.js";
import { builtinTools } from "../tools/index.js";
import { type SessionSelectors, sessionSelectors } from "./config-options.js";
import { askClient } from "./permission.js";
import { promptInput } from "./prompt-input.js";
import { type ClientShows, UpdateProjection } from "./updates.js";

export type SessionSetup = {
  sessionId: string;
  cwd: string;
  /** The environment the agent process was started with (the entry's one read of it). */
  env: NodeJS.ProcessEnv;
  mcpServers: Record<string, McpServerConfig>;
  /** More directories the session may work in (ACP `additionalDirectories`), like the workspace. */
  additionalDirectories: string[];
  /** Continue this stored session (`session/load`): same id, its history goes to the model. */
  resume: boolean;
  mode: SessionPermissionMode;
  /** The door's model (`cairn acp --model`); undefined: the configured default. */
  model?: string;
  /** The model the session starts with, resolved (`session/new` checked that it can be used). */
  startingModel: string;
  maxTurns?: number;
  /** What the client can show besides messages and tool calls. */
  shows: ClientShows;
};

/** How an ACP user lifts a restriction: the mode the client offers for it. */
const ACP_FORCE_HINT = 'choose the "Bypass permissions" mode';

/**
 * One ACP session: one cairn session (src/session/) for its whole life, one turn per
 * `session/prompt`. The session owns everything else (transcript, permissions, MCP servers, hooks);
 * this class turns its events into `session/update`s, its permission requests into
 * `session/request_permission`, and its run's end into the stop reason.
 */
export class AcpSession {
  readonly updates: UpdateProjection;
  private readonly session: Session;
  private cancelled = false;
  /** The model of the next turn, as resolved (the model selector's value). */
  private modelName: string;

  constructor(
    private readonly client: AgentContext,
    private readonly setup: SessionSetup,
  ) {
    this.modelName = setup.startingModel;
    const { cwd, env, model } = setup;
    this.updates = new UpdateProjection(
      (name, input, live) => this.session.describe(name, input, { live }),
      setup.shows,
    );
    this.session = new Session({
      cwd,
      env,
      assembly: (notice) => ({
        cwd,
        env,
        ...(model !== undefined ? { model } : {}),
        tools: builtinTools(),
        sandbox: async (roots, env, config) => {
          const configured = configuredSandboxDomains(config);
          const { policy, warnings } = await sdkSandboxPolicy(undefined, roots, env, undefined, configured);
          for (const content of warnings) notice("sandbox", content);
          return { policy, warnings: [] };
        },
        mcp: {
          explicit: entriesFromOptions(setup.mcpServers),
          strict: false,
          approveProject: false,
          onLog: (server, line, kind) => {
            if (kind === "event") notice("mcp", `MCP server ${server}: ${line}`);
          },
        },
        hooks: {
          trust: false,
          trustHint: "add the workspace to trustedWorkspaces in the user config",
        },
      }),
      permissions: {
        mode: setup.mode,
        additionalDirectories: setup.additionalDirectories,
        answered: true,
        forceHint: ACP_FORCE_HINT,
        source: "ACP",
      },
      opening: setup.resume ? { resume: setup.sessionId } : { sessionId: setup.sessionId },
      ...(model !== undefined ? { model } : {}),
    });
  }

  get id(): string {
    return this.setup.sessionId;
  }

  /**
   * One turn. A prompt that comes while one runs waits for it (the session's one busy rule):
   * editors send session/cancel and the next prompt together when the user types mid-turn, and the
   * cancelled turn takes a moment to wind down (a tool's process group to end).
   */
  async prompt(blocks: ContentBlock[]): Promise<PromptResponse> {
    const input = promptInput(blocks);
    const events = this.session.prompt(input, {
      whenBusy: "queue",
      ...(this.setup.maxTurns !== undefined ? { maxTurns: this.setup.maxTurns } : {}),
    });
    const heartbeats = new ToolHeartbeats(this.setup.env);
    let started = false;
    let lastStop: string | null = null;
    try {
      while (true) {
        const step = await this.nextStep(events, heartbeats);
        if (!started) {
          // The turn has the session now (an earlier one ended): cancels from here on are its.
          started = true;
          this.cancelled = false;
        }
        if (step.done) {
          if (!step.value) throw RequestError.internalError(undefined, "the session has ended");
          return { stopReason: this.stopReason(step.value, lastStop) };
        }
        if (step.value.type === "turn_end") lastStop = step.value.stopReason;
        heartbeats.observe(step.value);
        await this.deliver(step.value);
      }
    } finally {
      await events.return(undefined).catch(() => {});
    }
  }

  /**
   * ACP's `available_commands_update`: the slash commands a prompt may start with (cairn's own and
   * the workspace's and user's custom commands and skills, docs/agents.md). Sent once the client
   * knows the session.
   */
  async announceCommands(): Promise<void> {
    const commands = await this.session.commands();
    await this.client.notify(methods.client.session.update, {
      sessionId: this.id,
      update: {
        sessionUpdate: "available_commands_update",
        availableCommands: commands.map((command) => ({
          name: command.name,
          description: command.description,
          ...(command.argumentHint ? { input: { hint: command.argumentHint } } : {}),
        })),
      },
    });
  }

  /** `session/cancel`: stops the running turn; its prompt then resolves with `cancelled`. */
  cancel(): void {
    if (!this.session.busy) return;
    this.cancelled = true;
    this.session.interrupt(new Error("The client cancelled the turn."));
  }

  async setMode(mode: SessionPermissionMode): Promise<void> {
    this.session.setMode(mode);
  }

  /**
   * The model from the next turn on: any name `cairn -p --model` takes. One cairn cannot use (an
   * unknown name, a provider without its key) is invalid params naming why; the model stays.
   */
  async setModel(name: string): Promise<void> {
    try {
      await this.session.setModel(name);
    } catch (error) {
      if (error instanceof ConfigError) throw RequestError.invalidParams({ modelId: name }, error.message);
      throw error;
    }
    this.modelName = (await this.session.currentModel()).model;
  }

  /** The session's mode and model selectors (`modes`, `configOptions`, the legacy `models`). */
  selectors(): SessionSelectors {
    return sessionSelectors(this.session.mode ?? this.setup.mode, this.modelName);
  }

  /** `config_option_update`: a selector changed other than by `session/set_config_option`. */
  async announceSelectors(): Promise<void> {
    await this.send({ sessionUpdate: "config_option_update", configOptions: this.selectors().configOptions });
  }

  /** Ends the session: the running turn is aborted, the transcript closed, MCP servers stopped. */
  async close(): Promise<void> {
    await this.session.close();
  }

  /** The turn's next event, or a heartbeat tick while a tool runs (shown as running once). */
  private async nextStep(
    events: AsyncGenerator<SessionEvent, RunEndEvent | undefined>,
    heartbeats: ToolHeartbeats,
  ): Promise<IteratorResult<SessionEvent, RunEndEvent | undefined>> {
    const pending = events.next();
    for await (const tick of heartbeats.during(pending)) {
      for (const update of this.updates.started(tick.toolUseId)) await this.send(update);
    }
    try {
      return await pending;
    } catch (error) {
      // The turn could not start (a config file, the transcript): the session cannot go on.
      throw RequestError.internalError(undefined, (error as Error).message);
    }
  }

  private async deliver(event: SessionEvent): Promise<void> {
    if (event.type === "permission_request") {
      this.answer(event.request);
      return;
    }
    if (event.type === "session_notice" && !this.setup.shows.notices) {
      // An editor's agent log, rather than the answer.
      process.stderr.write(`cairn: warning: ${event.content}\n`);
      return;
    }
    for (const update of this.updates.project(event)) await this.send(update);
    // A mode set inside the turn (an answer's "always allow" choosing one): the mode selector follows.
    if (event.type === "permission_mode_changed") await this.announceSelectors();
  }

  /** Asks the client; not awaited, so the turn's other events (heartbeats) go on meanwhile. */
  private answer(request: PermissionRequest): void {
    const signal = this.session.requestSignal(request.id);
    if (!signal) return;
    askClient(this.client, { id: this.id, forms: this.setup.shows.forms === true }, request, signal)
      .then(async (answer) => {
        if (answer.cancelled) this.cancelled = true;
        if (answer.result.behavior === "allow")
          for (const update of this.updates.started(request.toolUseId)) await this.send(update);
        this.session.answer(request.id, answer.result);
      })
      .catch((error: unknown) => this.session.fail(request.id, error));
  }

  send(update: SessionUpdate): Promise<void> {
    return this.client.notify(methods.client.session.update, { sessionId: this.id, update });
  }

  private stopReason(end: RunEndEvent, lastStop: string | null): StopReason {
    if (this.cancelled || end.aborted) return "cancelled";
    if (end.subtype === "success") {
      if (lastStop === "refusal") return "refusal";
      if (lastStop === "max_tokens") return "max_tokens";
      return "end_turn";
    }
    if (end.subtype === "error_max_turns") return "max_turn_requests";
    // A provider failure after its retries: the turn failed, the session goes on.
    throw RequestError.internalError({ errors: end.errors }, end.errors.join("; ") || end.subtype);
  }
}
