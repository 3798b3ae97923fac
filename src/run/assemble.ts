import { resolve } from "node:path";
import { type LoadedConfig, loadConfig } from "../config/load.js";
import { buildSystemPrompt } from "../engine/context.js";
import type { LoopOptions } from "../engine/loop.js";
import type { ConversationMessage } from "../engine/messages.js";
import { type RetryPolicy, retryPolicyFromEnv } from "../engine/retry.js";
import type { CanUseTool } from "../engine/tool-runner.js";
import { buildHooks, type HookCallbackMatcher, type Hooks } from "../hooks/index.js";
import type { PermissionGate } from "../permissions/gate.js";
import { splitRuleList } from "../permissions/rules.js";
import type { ModelSettings } from "../providers/registry.js";
import { childEnvironment } from "../tools/child-env.js";
import { builtinTools } from "../tools/index.js";
import type { Tool, ToolDeclaration } from "../tools/types.js";
import { type RunModel, resolveRunModel } from "./model.js";
import { buildPermissionGate, type PermissionSetup } from "./permissions.js";

/**
 * The one run assembly of every front door (docs/architecture.md): options, config files,
 * environment and flags in; a resolved run out — model, system prompt with the project's instruction
 * files, tools, permission gate and the mode it enforces. What the doors report (`system/init`, the
 * transcript, the SDK's init) is read from here, never worked out again.
 */
export type RunSpec = Omit<ModelSettings, "baseDir"> & {
  /** The workspace. */
  cwd: string;
  /** Permissions from flags or options; omitted: no gate (every call runs — the bare engine API). */
  permissions?: PermissionSetup;
  /** The base tool set (default: the built-in tools); bare names in `disallowedTools` are removed. */
  tools?: Tool[];
  /**
   * Tools given per turn besides `tools` (the SDK's StructuredOutput): the system prompt names them
   * and the gate knows what they declare.
   */
  extraTools?: ToolDeclaration[];
  systemPrompt?: string;
  appendSystemPrompt?: string;
  maxTokens?: number;
  /** Default: from CAIRN_MAX_RETRIES / CAIRN_RETRY_BASE_MS / CAIRN_STREAM_IDLE_TIMEOUT_MS. */
  retryPolicy?: RetryPolicy;
  /** Already loaded config (else loaded here from `cwd` and `env`). */
  config?: LoadedConfig;
  /** Already resolved model (SDK `setModel()` before the first turn); else resolved from `model`. */
  resolvedModel?: RunModel;
  /** Hooks besides the config files' (docs/hooks.md); omitted: the config files' user-level hooks. */
  hooks?: HookSpec;
};

export type HookSpec = {
  /** The SDK's `hooks` option. */
  callbacks?: Partial<Record<string, HookCallbackMatcher[]>>;
  /** The workspace's own hooks may run (`--trust`, SDK `settingSources` with `project`). */
  trust?: boolean;
  /** How this door trusts a workspace, for the message saying its hooks were skipped. */
  trustHint?: string;
};

export type AssembledRun = {
  cwd: string;
  config: LoadedConfig;
  /** Config warnings, one line each, for the door to show once. */
  warnings: string[];
  /** What tool child processes get: the caller's environment without secrets. */
  toolEnv: NodeJS.ProcessEnv;
  gate?: PermissionGate;
  /** The permission mode as reported; undefined without permissions. */
  permissionMode?: string;
  tools: Tool[];
  /** Every tool the gate knows (the tools and the per-turn extras): what a rebuilt gate needs. */
  declarations: ToolDeclaration[];
  model: RunModel;
  system: string;
  /**
   * The run's hooks, every source; undefined without any. Doors fire SessionEnd through it, and
   * features with their own events (subagents, compaction) call `hooks.run` at their points.
   */
  hooks?: Hooks;
  /** Resolves another model with this run's settings and config (SDK `setModel`). */
  resolveModel(name: string | undefined): Promise<RunModel>;
  /** The engine's options for one prompt. */
  loopOptions(turn: TurnSpec): LoopOptions;
};

export type TurnSpec = {
  prompt: string;
  signal: AbortSignal;
  sessionId: string;
  /** Conversation so far; the engine appends to it. */
  history: ConversationMessage[];
  maxTurns?: number;
  /** Default: the gate. */
  canUseTool?: CanUseTool;
  /** Reported mode, when it changed since assembly (SDK `setPermissionMode`). */
  permissionMode?: string;
  extraTools?: Tool[];
  model?: RunModel;
  /** The session's transcript, for hook inputs (`""`: not persisted). */
  transcriptPath?: string;
  /** This run starts or resumes the session: SessionStart hooks fire before the first model call. */
  sessionStart?: "startup" | "resume";
};

export async function assembleRun(spec: RunSpec): Promise<AssembledRun> {
  const cwd = resolve(spec.cwd);
  const env = spec.env ?? process.env;
  const config = spec.config ?? (await loadConfig({ cwd, env }));
  const toolEnv = childEnvironment(env);
  const removed = new Set(
    (spec.permissions?.disallowedTools ?? []).flatMap(splitRuleList).filter((rule) => !rule.includes("(")),
  );
  const tools = (spec.tools ?? builtinTools()).filter((tool) => !removed.has(tool.name));
  const declarations: ToolDeclaration[] = [...tools, ...(spec.extraTools ?? [])];
  const built = spec.permissions
    ? buildPermissionGate(config, spec.permissions, cwd, toolEnv, declarations)
    : undefined;
  const [model, system] = await Promise.all([
    spec.resolvedModel ?? resolveModelFor(spec, config, spec.model),
    buildSystemPrompt({
      cwd,
      tools: declarations.map((tool) => tool.name),
      ...(spec.systemPrompt !== undefined ? { override: spec.systemPrompt } : {}),
      ...(spec.appendSystemPrompt !== undefined ? { append: spec.appendSystemPrompt } : {}),
    }),
  ]);
  const retryPolicy = spec.retryPolicy ?? retryPolicyFromEnv(env);
  const assembledHooks = buildHooks({
    cwd,
    env: toolEnv,
    files: config.hooks,
    ...(spec.hooks?.callbacks ? { callbacks: spec.hooks.callbacks } : {}),
    trust: spec.hooks?.trust === true,
    trustedWorkspaces: config.trustedWorkspaces,
    trustHint: spec.hooks?.trustHint ?? "trust it with trustedWorkspaces in the user config",
  });
  const hooks = assembledHooks.hooks;
  return {
    cwd,
    config,
    warnings: [...config.warnings, ...assembledHooks.warnings],
    toolEnv,
    ...(built ? { gate: built.gate, permissionMode: built.reportedMode } : {}),
    tools,
    declarations,
    model,
    system,
    ...(hooks ? { hooks } : {}),
    resolveModel: (name) => resolveModelFor(spec, config, name),
    loopOptions(turn) {
      const chosen = turn.model ?? model;
      const canUseTool = turn.canUseTool ?? built?.gate;
      const permissionMode = turn.permissionMode ?? built?.reportedMode;
      hooks?.setContext({
        sessionId: turn.sessionId,
        transcriptPath: turn.transcriptPath ?? "",
        ...(permissionMode !== undefined ? { permissionMode } : {}),
      });
      return {
        sessionId: turn.sessionId,
        cwd,
        provider: chosen.provider,
        model: chosen.model,
        providerModel: chosen.providerModel,
        priceUsage: chosen.priceUsage,
        system,
        tools: turn.extraTools ? [...tools, ...turn.extraTools] : tools,
        history: turn.history,
        prompt: turn.prompt,
        signal: turn.signal,
        env: toolEnv,
        retryPolicy,
        ...(turn.maxTurns !== undefined ? { maxTurns: turn.maxTurns } : {}),
        ...(spec.maxTokens !== undefined ? { maxTokens: spec.maxTokens } : {}),
        ...(permissionMode !== undefined ? { permissionMode } : {}),
        ...(canUseTool ? { canUseTool } : {}),
        ...(hooks ? { hooks } : {}),
        ...(hooks && turn.sessionStart ? { sessionStart: turn.sessionStart } : {}),
      };
    },
  };
}

/** Resolves `name` (undefined: the configured default) with the spec's provider settings. */
export function resolveModelFor(
  spec: RunSpec,
  config: LoadedConfig,
  name: string | undefined,
): Promise<RunModel> {
  return resolveRunModel(config, {
    ...(name !== undefined ? { model: name } : {}),
    ...(spec.apiKey !== undefined ? { apiKey: spec.apiKey } : {}),
    ...(spec.baseURL !== undefined ? { baseURL: spec.baseURL } : {}),
    ...(spec.promptCaching !== undefined ? { promptCaching: spec.promptCaching } : {}),
    baseDir: resolve(spec.cwd),
    env: spec.env ?? process.env,
  });
}
