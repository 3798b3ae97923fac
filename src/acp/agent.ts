import { randomUUID } from "node:crypto";
import { statSync } from "node:fs";
import { isAbsolute } from "node:path";
import {
  type AgentContext,
  type AuthenticateRequest,
  type AuthenticateResponse,
  type CancelNotification,
  type CloseSessionRequest,
  type CloseSessionResponse,
  type InitializeRequest,
  type InitializeResponse,
  type LoadSessionRequest,
  type LoadSessionResponse,
  type McpServer,
  methods,
  type NewSessionRequest,
  type NewSessionResponse,
  PROTOCOL_VERSION,
  type PromptRequest,
  type PromptResponse,
  RequestError,
  type SetSessionConfigOptionRequest,
  type SetSessionConfigOptionResponse,
  type SetSessionModeRequest,
  type SetSessionModeResponse,
} from "@agentclientprotocol/sdk";
import { type LoadedConfig, loadConfig } from "../config/load.js";
import type { SessionPermissionMode as PermissionMode } from "../permissions/types.js";
import { ConfigError } from "../providers/types.js";
import { resolveModelFor } from "../run/assemble.js";
import { defaultTranscriptStore } from "../sessions/open-session.js";
import {
  MODE_OPTION,
  MODEL_OPTION,
  type SessionModelState,
  type SetSessionModelRequest,
} from "./config-options.js";
import { mcpServersOf } from "./mcp-servers.js";
import { SESSION_MODES, sessionMode } from "./modes.js";
import { AcpSession } from "./session.js";
import type { ClientShows } from "./updates.js";

export type AgentSettings = { version: string; env: NodeJS.ProcessEnv; model?: string; maxTurns?: number };

/**
 * cairn as an ACP agent: each ACP session drives one cairn session (src/acp/session.ts). What this
 * class adds is the protocol's session management: checking that a model can be used (ACP's
 * authentication: cairn needs none of its own, only a configured provider), the modes, and
 * replaying a stored conversation for `session/load`.
 */
export class CairnAgent {
  private readonly sessions = new Map<string, AcpSession>();
  /** What the client said it can show (notices, compaction), from `initialize`. */
  private shows: ClientShows = { notices: false, compaction: false };

  constructor(private readonly settings: AgentSettings) {}

  async initialize(params: InitializeRequest): Promise<InitializeResponse> {
    const session = params.clientCapabilities?.session;
    this.shows = {
      notices: Boolean(session?.notices),
      compaction: Boolean(session?.compaction),
      forms: Boolean(params.clientCapabilities?.elicitation?.form),
    };
    const problem = await this.modelProblem(process.cwd()).catch((error: unknown) => messageOf(error));
    return {
      protocolVersion: PROTOCOL_VERSION,
      agentCapabilities: {
        loadSession: true,
        promptCapabilities: { image: true, audio: false, embeddedContext: true },
        mcpCapabilities: { http: true, sse: true },
        sessionCapabilities: { additionalDirectories: {}, close: {} },
      },
      // No login of cairn's own: a provider key (or a local model) in the environment or config.
      authMethods: problem
        ? [{ id: "provider", name: "Configure a model provider", description: problem }]
        : [],
      agentInfo: { name: "cairn", title: "cairn", version: this.settings.version },
    };
  }

  async authenticate(_params: AuthenticateRequest): Promise<AuthenticateResponse> {
    const problem = await this.modelProblem(process.cwd());
    if (problem) throw RequestError.authRequired(undefined, problem);
    return {};
  }

  /**
   * A new session, with its selectors: `modes`, `configOptions` (mode and model) and the legacy
   * `models`, for clients that read only that (src/acp/config-options.ts).
   */
  async newSession(
    params: NewSessionRequest,
    client: AgentContext,
  ): Promise<NewSessionResponse & { models: SessionModelState }> {
    const { config, model } = await this.checkedConfig(params.cwd);
    const sessionId = randomUUID();
    const mode = initialMode(config);
    const session = this.open(client, { ...params, sessionId, resume: false, mode, startingModel: model });
    announceLater(session);
    return { sessionId, ...session.selectors() };
  }

  async loadSession(
    params: LoadSessionRequest,
    client: AgentContext,
  ): Promise<LoadSessionResponse & { models: SessionModelState }> {
    const { config, model } = await this.checkedConfig(params.cwd);
    const stored = await defaultTranscriptStore(this.settings.env)
      .load(params.sessionId, params.cwd)
      .catch((error: unknown) => {
        throw RequestError.invalidParams({ sessionId: params.sessionId }, messageOf(error));
      });
    await this.sessions.get(params.sessionId)?.close();
    const mode = initialMode(config);
    const session = this.open(client, { ...params, resume: true, mode, startingModel: model });
    // ACP: the whole conversation is replayed as updates before the response.
    for (const update of session.updates.replay(stored.history)) {
      await client.notify(methods.client.session.update, { sessionId: params.sessionId, update });
    }
    announceLater(session);
    return session.selectors();
  }

  /** `signal`: the client withdrew the request (`$/cancel_request`), which cancels the turn too. */
  async prompt(params: PromptRequest, signal: AbortSignal): Promise<PromptResponse> {
    const session = this.session(params.sessionId);
    const cancel = () => session.cancel();
    signal.addEventListener("abort", cancel, { once: true });
    try {
      return await session.prompt(params.prompt);
    } finally {
      signal.removeEventListener("abort", cancel);
    }
  }

  async cancel(params: CancelNotification): Promise<void> {
    this.sessions.get(params.sessionId)?.cancel();
  }

  async setSessionMode(params: SetSessionModeRequest): Promise<SetSessionModeResponse> {
    const session = this.session(params.sessionId);
    await session.setMode(checkedMode(params.modeId));
    await session.announceSelectors();
    return {};
  }

  /**
   * `session/set_config_option`: the mode (also told as `current_mode_update`, for clients that
   * follow `modes`) or the model; answers every option with its value now.
   */
  async setSessionConfigOption(
    params: SetSessionConfigOptionRequest,
  ): Promise<SetSessionConfigOptionResponse> {
    const session = this.session(params.sessionId);
    const { configId, value } = params;
    if (typeof value !== "string") {
      throw RequestError.invalidParams({ configId, value }, `config option "${configId}" takes a value id`);
    }
    if (configId === MODE_OPTION) {
      const mode = checkedMode(value);
      await session.setMode(mode);
      await session.send({ sessionUpdate: "current_mode_update", currentModeId: mode });
    } else if (configId === MODEL_OPTION) {
      await session.setModel(value);
    } else {
      throw RequestError.invalidParams(
        { configId },
        `unknown config option "${configId}"; options: ${MODE_OPTION}, ${MODEL_OPTION}`,
      );
    }
    return { configOptions: session.selectors().configOptions };
  }

  /** `session/set_model`, the legacy model selector: as the model config option, then told as its update. */
  async setSessionModel(params: SetSessionModelRequest): Promise<Record<string, never>> {
    const session = this.session(params.sessionId);
    await session.setModel(params.modelId);
    await session.announceSelectors();
    return {};
  }

  /** `session/close`: the session's query ends (a running turn is cancelled first). */
  async closeSession(params: CloseSessionRequest): Promise<CloseSessionResponse> {
    const session = this.session(params.sessionId);
    this.sessions.delete(params.sessionId);
    session.cancel();
    await session.close();
    return {};
  }

  /** The connection ended: every session's query ends (running turns, MCP servers, transcripts). */
  async closeAll(): Promise<void> {
    const sessions = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all(sessions.map((session) => session.close()));
  }

  private open(client: AgentContext, setup: OpenRequest): AcpSession {
    const { additionalDirectories, mcpServers, ...rest } = setup;
    const session = new AcpSession(client, {
      ...rest,
      mcpServers: mcpServersOf(mcpServers),
      additionalDirectories: additionalDirectories ?? [],
      shows: this.shows,
      env: this.settings.env,
      ...(this.settings.model !== undefined ? { model: this.settings.model } : {}),
      ...(this.settings.maxTurns !== undefined ? { maxTurns: this.settings.maxTurns } : {}),
    });
    this.sessions.set(session.id, session);
    return session;
  }

  private session(sessionId: string): AcpSession {
    const session = this.sessions.get(sessionId);
    if (!session)
      throw RequestError.invalidParams(
        { sessionId },
        `no session ${sessionId} (session/new or session/load it first)`,
      );
    return session;
  }

  /**
   * The config of `cwd` and the model a session there starts with, once that model is known to
   * resolve (else ACP's "authentication required").
   */
  private async checkedConfig(cwd: string): Promise<{ config: LoadedConfig; model: string }> {
    if (!isAbsolute(cwd) || !isDirectory(cwd)) {
      throw RequestError.invalidParams({ cwd }, `cwd must be an absolute path to a directory: ${cwd}`);
    }
    const config = await loadConfig({ cwd, env: this.settings.env }).catch((error: unknown) => {
      throw RequestError.internalError(undefined, messageOf(error));
    });
    const model = await this.startingModel(cwd, config);
    if ("problem" in model) throw RequestError.authRequired(undefined, model.problem);
    return { config, model: model.name };
  }

  /** Why no model can be used in `cwd` (no key, unknown model…), or undefined when one can. */
  private async modelProblem(cwd: string): Promise<string | undefined> {
    const model = await this.startingModel(cwd, await loadConfig({ cwd, env: this.settings.env }));
    return "problem" in model ? model.problem : undefined;
  }

  /** The model a session in `cwd` starts with (its resolved name), or why there is none. */
  private async startingModel(
    cwd: string,
    config: LoadedConfig,
  ): Promise<{ name: string } | { problem: string }> {
    try {
      return {
        name: (await resolveModelFor({ cwd, env: this.settings.env }, config, this.settings.model)).model,
      };
    } catch (error) {
      if (error instanceof ConfigError) return { problem: error.message };
      throw error;
    }
  }
}

type OpenRequest = {
  sessionId: string;
  cwd: string;
  mcpServers: McpServer[];
  additionalDirectories?: string[] | undefined;
  resume: boolean;
  mode: PermissionMode;
  startingModel: string;
};

/** The session's commands, right after the response that tells the client its id. */
function announceLater(session: AcpSession): void {
  setImmediate(() => {
    session.announceCommands().catch((error: unknown) => {
      process.stderr.write(`cairn: the session's commands could not be listed: ${messageOf(error)}\n`);
    });
  });
}

/** The user config's `permissions.defaultMode` when it is one of the session modes, else `default`. */
function initialMode(config: LoadedConfig): PermissionMode {
  return (config.defaultMode && sessionMode(config.defaultMode)) || "default";
}

/** A mode id the client sent, as a permission mode (else invalid params naming the modes). */
function checkedMode(modeId: string): PermissionMode {
  const mode = sessionMode(modeId);
  if (!mode) {
    throw RequestError.invalidParams(
      { modeId },
      `unknown mode "${modeId}"; modes: ${SESSION_MODES.map((entry) => entry.id).join(", ")}`,
    );
  }
  return mode;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
