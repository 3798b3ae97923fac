import { homedir } from "node:os";
import { resolve } from "node:path";
import { agentTool } from "../agents/agent-tool.js";
import type { SlashCommand } from "../agents/commands.js";
import {
  type Customization,
  invokedBuiltin,
  loadCustomization,
  slashCommandsOf,
} from "../agents/customization.js";
import type { AgentInfo } from "../agents/definitions.js";
import type { PluginConfig } from "../agents/plugins.js";
import { subagentTools } from "../agents/subagent-tools.js";
import type { ConfiguredHooks } from "../config/hooks.js";
import { type LoadedConfig, loadConfig } from "../config/load.js";
import { ALL_SETTING_SOURCES, type SettingSource } from "../config/setting-sources.js";
import type { CompactionHooks } from "../engine/compaction.js";
import { buildSystemPrompt } from "../engine/context.js";
import { DEFAULT_CONTEXT_WINDOW } from "../engine/context-meter.js";
import type { LoopOptions } from "../engine/loop.js";
import type { ConversationMessage, PromptBlock } from "../engine/messages.js";
import type { EffortLevel, ServerWebSearch, ThinkingSetting } from "../engine/provider.js";
import { type RetryPolicy, retryPolicyFromEnv } from "../engine/retry.js";
import { WEB_SEARCH_TOOL } from "../engine/server-tools.js";
import type { CanUseTool } from "../engine/tool-runner.js";
import type { TurnSteps } from "../engine/turn-steps.js";
import { buildHooks, type HookCallbackMatcher, type Hooks } from "../hooks/index.js";
import type { McpServerEntry } from "../mcp/config.js";
import type { McpHub } from "../mcp/hub.js";
import { startMcpServers } from "../mcp/start.js";
import type { PermissionGate } from "../permissions/gate.js";
import { splitRuleList } from "../permissions/rules.js";
import type { ModelSettings } from "../providers/registry.js";
import { ConfigError } from "../providers/types.js";
import type { SandboxPolicy } from "../sandbox/policy.js";
import { BackgroundShells } from "../tools/background-shells.js";
import { childEnvironment } from "../tools/child-env.js";
import { builtinTools, setSearchBackend } from "../tools/index.js";
import { stopRunProcesses } from "../tools/run-processes.js";
import type { Tool, ToolDeclaration } from "../tools/types.js";
import { resolvedProxy, setProxySettings, unusableProxies } from "../util/network-proxy.js";
import { type AgentsSpec, agentWarnings, loadRunAgents, mainAgent, offeredAgents } from "./agents.js";
import {
  expandPrompt as expandCommandPrompt,
  expandedTurn,
  instructionFiles,
  type PromptExpansion,
  skillToolFor,
  withSkillFolders,
} from "./customize.js";
import { type BeforeFileChange, withFileCheckpoints } from "./file-checkpoints.js";
import { type RunModel, resolveRunModel } from "./model.js";
import { buildPermissionGate, type PermissionSetup } from "./permissions.js";
import { serverWebSearch, type WebSearchBackend, webSearchBackend } from "./web-search-backend.js";

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
  /** Already loaded config (else loaded here from `cwd`, `env` and `settingSources`). */
  config?: LoadedConfig;
  /** Which files load (`--setting-sources`; docs/agents.md). Default: all. Ignored with `config`. */
  settingSources?: readonly SettingSource[];
  /** Already resolved model (SDK `setModel()` before the first turn); else resolved from `model`. */
  resolvedModel?: RunModel;
  /** MCP servers from flags or options, and how the config files' servers are treated. */
  mcp?: McpSpec;
  /**
   * The OS sandbox of the run's shell commands, from the door's settings (`--sandbox`, SDK
   * `sandbox`): given the directories the gate lets the agent write. Omitted: no sandbox.
   */
  sandbox?: (
    roots: readonly string[],
    env: NodeJS.ProcessEnv,
    config: LoadedConfig,
  ) => Promise<{ policy: SandboxPolicy; warnings: string[] }>;
  /** Hooks besides the config files' (docs/hooks.md); omitted: the config files' user-level hooks. */
  hooks?: HookSpec;
  /** The model's context window, over the catalog's (`--context-window`, SDK `contextWindow`). */
  contextWindow?: number;
  /** `--max-budget-usd`, SDK `maxBudgetUsd`. */
  maxBudgetUsd?: number;
  /** `--fallback-model`, SDK `fallbackModel`: takes over when the model is unavailable after retries. */
  fallbackModel?: string;
  /** `--web-search`: the WebSearch backend, over CAIRN_WEB_SEARCH and the config's `webSearch`. */
  webSearch?: WebSearchBackend;
  thinking?: ThinkingSetting;
  effort?: EffortLevel;
  /** Called around every compaction (hooks: PreCompact / PostCompact). */
  compactionHooks?: CompactionHooks;
  /** SDK `skills`: which of the skills found are enabled (default: all). */
  skills?: readonly string[] | "all";
  /** SDK `plugins`, `--plugin-dir`: local plugins whose commands and skills load (docs/agents.md). */
  plugins?: readonly PluginConfig[];
  /** Offer the `Skill` tool when skills are enabled (default true; false: an SDK `tools` list without it). */
  skillTool?: boolean;
  /** Commands and skills already loaded (SDK `supportedCommands()` before the first turn); else loaded here. */
  customization?: Customization;
  /** Subagents: the SDK's `agents`, whether the Agent tool is offered (docs/agents.md). */
  agents?: AgentsSpec;
  /** How each turn's model calls and tool batches run (a durable worker checkpoints them); default: directly. */
  steps?: TurnSteps;
};

export type McpSpec = {
  /** `--mcp-config` / `options.mcpServers`, already parsed. */
  explicit: McpServerEntry[];
  /** Only `explicit` (`--strict-mcp-config`, `strictMcpConfig`). */
  strict: boolean;
  /** Project servers may start (`--approve-mcps`); else only those approved in the user config. */
  approveProject: boolean;
  /** A server's log line or failure, for the door to show. */
  onLog?: (server: string, line: string, kind: "stderr" | "event") => void;
};

export type HookSpec = {
  /** The SDK's `hooks` option. */
  callbacks?: Partial<Record<string, HookCallbackMatcher[]>>;
  /** Command hooks besides the config files' (the SDK `settings` option's), after theirs. */
  files?: readonly ConfiguredHooks[];
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
  /** The run's MCP servers (tools included in `tools`); the door closes it when the run ends. */
  mcp: McpHub;
  /** The run's background shells (Bash `run_in_background`): the interactive mode lists the running ones. */
  backgroundShells: BackgroundShells;
  /** The OS sandbox of the run's shell commands, when the door asked for one. */
  sandbox?: SandboxPolicy;
  /** Custom commands and enabled skills (docs/agents.md). */
  customization: Customization;
  /** cairn's own and the custom slash commands (`supportedCommands()`, `system/init.slash_commands`). */
  slashCommands: SlashCommand[];
  /**
   * Ends what the run started: its MCP servers, its background shells, any process its commands
   * left running (tagged `CAIRN_RUN_TAG`), and waits for a sandbox probe still running (no child left behind).
   */
  close(): Promise<void>;
  /** Works out tools, gate and system prompt again after the MCP servers changed (SDK `setMcpServers` …). */
  refreshTools(): Promise<void>;
  /**
   * The run's hooks, every source; undefined without any. Doors fire SessionEnd through it, and
   * features with their own events (subagents, compaction) call `hooks.run` at their points.
   */
  hooks?: Hooks;
  /** Resolves another model with this run's settings and config (SDK `setModel`). */
  resolveModel(name: string | undefined): Promise<RunModel>;
  /**
   * What a prompt `/name args` naming a custom command or skill becomes (docs/agents.md); undefined
   * for any other prompt. Rejects (ConfigError naming the file) when the command's model or rules
   * cannot be used: a door that must not start a session for nothing calls it first.
   */
  expandPrompt(prompt: string): Promise<PromptExpansion | undefined>;
  /**
   * The engine's options for one prompt, expanded here for every door (`turn.expansion`, or
   * `expandPrompt`), with the command's model and tools for this turn only.
   */
  loopOptions(turn: TurnSpec): Promise<LoopOptions>;
  /** The subagents the Agent tool offers (`[]` when it is not offered). */
  agents: AgentInfo[];
};

export type TurnSpec = {
  prompt: string;
  /** The prompt as blocks when it holds images or documents (LoopOptions.promptContent). */
  promptContent?: PromptBlock[];
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
  /** The session's transcript location, for hook inputs (`""`: not persisted). */
  transcriptPath?: string;
  /** Where a subagent's transcript goes, by agent id (the transcript store's; none: not persisted). */
  subagentTranscriptPath?: (agentId: string) => string;
  /** This run starts or resumes the session: SessionStart hooks fire before the first model call. */
  sessionStart?: "startup" | "resume" | "clear";
  /** Over the spec's thinking from this prompt on (SDK `setMaxThinkingTokens`). */
  thinking?: ThinkingSetting;
  /** Over the spec's budget (what is left of a query's budget after its earlier turns). */
  maxBudgetUsd?: number;
  /** `expandPrompt(prompt)`, already worked out (null: the prompt invokes no command). */
  expansion?: PromptExpansion | null;
  /** Called before a tool changes a file it declares (SDK `enableFileCheckpointing`). */
  beforeFileChange?: BeforeFileChange;
  /** Prompts sent while the turn runs, joined to it (LoopOptions.steering). */
  steering?: LoopOptions["steering"];
};

export async function assembleRun(spec: RunSpec): Promise<AssembledRun> {
  const cwd = resolve(spec.cwd);
  const { env } = spec;
  // The config files and the commands, skills and plugins are looked up at the same time: both are
  // chosen by the setting sources alone, and a run's start waits on dozens of file lookups.
  const sources = spec.config?.sources ?? (spec.settingSources ? [...spec.settingSources] : undefined);
  const [loaded, customization] = await settleBoth(
    spec.config ? Promise.resolve(spec.config) : loadConfig({ cwd, env, ...(sources ? { sources } : {}) }),
    spec.customization
      ? Promise.resolve(spec.customization)
      : loadCustomization({
          cwd,
          env,
          sources: sources ?? ALL_SETTING_SOURCES,
          ...(spec.skills !== undefined ? { skills: spec.skills } : {}),
          ...(spec.plugins ? { plugins: spec.plugins } : {}),
        }),
    nothingToDispose,
  );
  // The enabled skills' folders may be read (their instructions point at their files).
  const config = withSkillFolders(loaded, customization.skills);
  // Before anything connects: the config's proxy overrides the environment's (docs/config.md).
  setProxySettings(config.proxy ?? {}, env);
  setSearchBackend(config.searxngUrl ? { searxngUrl: config.searxngUrl } : {});
  const search = spec.webSearch ? { backend: spec.webSearch } : webSearchBackend(env, config.webSearch);
  if ("problem" in search) throw new ConfigError(search.problem);
  const toolEnv = childEnvironment(env);
  const removed = new Set(
    (spec.permissions?.disallowedTools ?? []).flatMap(splitRuleList).filter((rule) => !rule.includes("(")),
  );
  // `webSearch: "off"`: no search at all is offered (docs/tools.md, "WebSearch").
  if (search.backend === "off") removed.add(WEB_SEARCH_TOOL);
  // The sandbox first: the workspace's own MCP servers run under it. Its roots are the gate's: the
  // workspace, --add-dir / additionalDirectories and the user config's directories.
  const roots = [
    cwd,
    ...(spec.permissions?.addDirs ?? []).map((dir) => resolve(cwd, dir)),
    ...config.additionalDirectories,
  ];
  // (A sandbox that cannot be had is still the error reported first, as before.)
  const [sandboxed, runAgents] = await settleBoth(
    spec.sandbox ? spec.sandbox(roots, env, config) : Promise.resolve(undefined),
    loadRunAgents(
      { cwd, env, home: homedir(), sources: config.sources, plugins: customization.plugins },
      spec.agents,
      spec.permissions ?? {},
    ),
    nothingToDispose,
  );
  const agentsOffered = runAgents.enabled;
  // The SDK's `agent`: the main thread runs as that agent (its prompt, tools and model).
  const main = mainAgent(runAgents.agents, spec.agents?.main);
  const mainModel = main?.model !== undefined && main.model !== "inherit" ? main.model : undefined;
  // The Agent tool runs its subagents with the options of the turn running now (set by loopOptions).
  let turnOptions: LoopOptions | undefined;
  let turnSubagentTranscript: ((agentId: string) => string) | undefined;
  const sandbox = sandboxed?.policy;
  // The MCP servers start while the model is resolved; if the model cannot be used, they are ended.
  const [mcp, model] = await settleBoth(
    startMcpServers(config, {
      cwd,
      env,
      explicit: spec.mcp?.explicit ?? [],
      strict: spec.mcp?.strict ?? false,
      approveProject: spec.mcp?.approveProject === true,
      ...(sandbox ? { sandbox } : {}),
      ...(spec.mcp?.onLog ? { onLog: spec.mcp.onLog } : {}),
    }),
    spec.resolvedModel
      ? Promise.resolve(spec.resolvedModel)
      : resolveModelFor(spec, config, spec.model ?? mainModel),
    (hub) => hub.close(),
  );
  // Somebody answers the run's questions; else a tool that needs an answer is not offered (the
  // questions would go nowhere) and one that only asks for approval decides alone.
  const answered = spec.permissions?.onAsk !== undefined;
  // What depends on the tool list is worked out again when MCP servers change mid-query (SDK).
  const toolsNow = async () => {
    const skill = spec.skillTool === false ? undefined : skillToolFor(customization.skills);
    const available = [...(spec.tools ?? builtinTools()), ...(skill ? [skill] : []), ...mcp.tools()].filter(
      (tool) => !removed.has(tool.name) && (answered || tool.effects?.asksUser !== "answer"),
    );
    const base = main ? subagentTools(main, available).tools : available;
    const tools = agentsOffered && delegate ? [...base, delegate] : base;
    const declarations: ToolDeclaration[] = [...tools, ...(spec.extraTools ?? [])];
    const built = spec.permissions
      ? buildPermissionGate(config, spec.permissions, cwd, toolEnv, declarations)
      : undefined;
    const system = await buildSystemPrompt({
      cwd,
      // A tool offered in some modes only (ExitPlanMode) is named by the turns that offer it.
      tools: declarations.filter((tool) => !tool.offeredInModes).map((tool) => tool.name),
      ...(spec.systemPrompt !== undefined ? { override: spec.systemPrompt } : {}),
      ...(main ? { role: main.prompt, projectRules: main.omitClaudeMd !== true } : {}),
      ...(spec.appendSystemPrompt !== undefined ? { append: spec.appendSystemPrompt } : {}),
      instructions: instructionFiles(config.sources, env),
    });
    const mcpServers = mcp.states().map(({ name, status }) => ({ name, status }));
    return { tools, declarations, built, system, mcpServers };
  };
  const delegate: Tool | undefined = agentsOffered
    ? agentTool({
        agents: runAgents.agents,
        parent: () => turnOptions,
        // A subagent neither asks the user nor leaves the session's plan mode.
        baseTools: (): Tool[] => current.tools.filter((tool) => !tool.effects?.asksUser),
        resolveModel: (name) => resolveModelFor(spec, config, name),
        systemPrompt: (agent, tools) =>
          buildSystemPrompt({
            cwd,
            tools: [...tools],
            role: agent.prompt,
            projectRules: agent.omitClaudeMd !== true,
          }),
        transcriptPath: (agentId) => turnSubagentTranscript?.(agentId) ?? "",
      })
    : undefined;
  let current = await toolsNow();
  const retryPolicy =
    spec.retryPolicy ??
    retryPolicyFromEnv(env, undefined, (message) => {
      throw new ConfigError(message);
    });
  const fallback = await resolveFallback(spec, config, model).catch(async (error: unknown) => {
    await mcp.close(); // the run will not start: its MCP servers end now
    await sandbox?.proxy?.close();
    throw error;
  });
  const slashCommands = slashCommandsOf(customization);
  const warnings = [
    ...config.warnings,
    ...customization.warnings,
    ...longSessionWarnings(spec, model),
    ...proxyWarnings(env, model),
    ...runAgents.warnings,
    ...(agentsOffered ? agentWarnings(runAgents.agents, current.tools) : []),
  ];
  const assembledHooks = buildHooks({
    cwd,
    env: toolEnv,
    files: [...config.hooks, ...(spec.hooks?.files ?? [])],
    ...(spec.hooks?.callbacks ? { callbacks: spec.hooks.callbacks } : {}),
    trust: spec.hooks?.trust === true,
    trustedWorkspaces: config.trustedWorkspaces,
    trustHint: spec.hooks?.trustHint ?? "trust it with trustedWorkspaces in the user config",
    ...(sandbox ? { sandbox } : {}),
  });
  const hooks = assembledHooks.hooks;
  const expandPrompt = (prompt: string) =>
    expandCommandPrompt(prompt, customization, {
      resolveModel: (name) => resolveModelFor(spec, config, name),
      gateFor: (rules) =>
        spec.permissions
          ? buildPermissionGate(
              { ...config, rules },
              { ...spec.permissions, allowedTools: [], disallowedTools: [] },
              cwd,
              toolEnv,
              current.declarations,
            ).gate
          : undefined,
    });
  // The session's background shells: they outlive turns, and end with the run (close()).
  const backgroundShells = new BackgroundShells();
  const run: AssembledRun = {
    cwd,
    config,
    warnings,
    toolEnv,
    ...(current.built ? { gate: current.built.gate, permissionMode: current.built.reportedMode } : {}),
    tools: current.tools,
    declarations: current.declarations,
    mcp,
    backgroundShells,
    ...(sandbox ? { sandbox } : {}),
    customization,
    slashCommands,
    async close() {
      await mcp.close();
      await backgroundShells.closeAll();
      if (sandbox) {
        await stopRunProcesses(sandbox.runTag, env);
        await sandbox.probeStarted?.();
        await sandbox.proxy?.close(); // the network proxy of sandboxed commands ends with the run
      }
    },
    model,
    system: current.system,
    ...(hooks ? { hooks } : {}),
    resolveModel: (name) => resolveModelFor(spec, config, name),
    agents: offeredAgents(runAgents),
    async refreshTools() {
      current = await toolsNow();
      run.tools = current.tools;
      run.declarations = current.declarations;
      run.system = current.system;
      if (current.built) run.gate = current.built.gate;
    },
    expandPrompt,
    async loopOptions(turn) {
      const { built, system, mcpServers } = current;
      // A custom command's model, tools and pre-approved calls hold for its turn only.
      const expansion = turn.expansion !== undefined ? turn.expansion : await expandPrompt(turn.prompt);
      const { tools, canUseTool } = expandedTurn(
        expansion ?? undefined,
        current.tools,
        turn.canUseTool ?? built?.gate,
      );
      const prompt = expansion?.prompt ?? turn.prompt;
      // A command's expansion replaces the prompt's text; its images and documents stay.
      const promptContent =
        expansion && turn.promptContent
          ? [
              { type: "text" as const, text: prompt },
              ...turn.promptContent.filter((block) => block.type !== "text"),
            ]
          : turn.promptContent;
      const chosen = expansion?.model ?? turn.model ?? model;
      // cairn's own `/compact [instructions]`: the engine compacts instead of sending a prompt.
      const builtin = expansion ? undefined : invokedBuiltin(turn.prompt);
      const compact = builtin?.name === "compact" ? { instructions: builtin.args || null } : undefined;
      const permissionMode = turn.permissionMode ?? built?.reportedMode;
      hooks?.setContext({
        sessionId: turn.sessionId,
        transcriptPath: turn.transcriptPath ?? "",
        ...(permissionMode !== undefined ? { permissionMode } : {}),
      });
      const thinking = turn.thinking ?? spec.thinking;
      const maxBudgetUsd = turn.maxBudgetUsd ?? spec.maxBudgetUsd;
      turnSubagentTranscript = turn.subagentTranscriptPath;
      turnOptions = {
        sessionId: turn.sessionId,
        cwd,
        provider: chosen.provider,
        model: chosen.model,
        providerModel: chosen.providerModel,
        priceUsage: chosen.priceUsage,
        system,
        tools: withFileCheckpoints(
          offeredIn(turn.extraTools ? [...tools, ...turn.extraTools] : tools, permissionMode),
          turn.beforeFileChange,
        ),
        history: turn.history,
        prompt,
        ...(promptContent ? { promptContent } : {}),
        ...(compact ? { compact } : {}),
        signal: turn.signal,
        env: toolEnv,
        ...(sandbox ? { sandbox } : {}),
        backgroundShells,
        retryPolicy,
        ...(turn.maxTurns !== undefined ? { maxTurns: turn.maxTurns } : {}),
        ...(turn.steering ? { steering: turn.steering } : {}),
        ...(spec.maxTokens !== undefined ? { maxTokens: spec.maxTokens } : {}),
        ...(permissionMode !== undefined ? { permissionMode } : {}),
        ...(canUseTool ? { canUseTool } : {}),
        ...(answered ? {} : { unattended: true }),
        ...(mcpServers.length > 0 ? { mcpServers } : {}),
        slashCommands: slashCommands.map((command) => command.name),
        skills: customization.skills.map((skill) => skill.name),
        plugins: customization.plugins.map(({ name, path }) => ({ name, path })),
        ...(agentsOffered ? { agents: [...runAgents.agents.keys()] } : {}),
        ...(hooks ? { hooks } : {}),
        ...(hooks && turn.sessionStart ? { sessionStart: turn.sessionStart } : {}),
        context: {
          contextWindow:
            spec.contextWindow ?? chosen.contextWindow ?? config.contextWindow ?? DEFAULT_CONTEXT_WINDOW,
          ...(config.compactThreshold !== undefined ? { compactThreshold: config.compactThreshold } : {}),
        },
        ...(spec.compactionHooks || hooks
          ? { compactionHooks: spec.compactionHooks ?? compactionHooksOf(hooks!, turn.signal) }
          : {}),
        ...(maxBudgetUsd !== undefined ? { maxBudgetUsd } : {}),
        ...(spec.steps ? { steps: spec.steps } : {}),
        ...(fallback && fallback.providerModel !== chosen.providerModel ? { fallback } : {}),
        ...(thinking ? { thinking } : {}),
        ...(spec.effort ? { effort: spec.effort } : {}),
        ...providerSearch(search.backend, built?.gate, sandbox),
      };
      return turnOptions;
    },
  };
  run.warnings = [
    ...warnings,
    ...assembledHooks.warnings,
    ...(current.built?.warnings ?? []),
    ...(sandboxed?.warnings ?? []),
  ];
  return run;
}

/**
 * The fallback model, resolved up front so a bad name fails before the run. The convention allows a
 * comma-separated list; cairn falls back once, to the first (a warning names the rest).
 */
async function resolveFallback(
  spec: RunSpec,
  config: LoadedConfig,
  model: RunModel,
): Promise<RunModel | undefined> {
  const first = spec.fallbackModel?.split(",")[0]?.trim();
  if (!first) return undefined;
  const fallback = await resolveModelFor(spec, config, first);
  if (fallback.model === model.model) {
    throw new ConfigError(`The fallback model ${first} is the model itself; name another one.`);
  }
  return fallback;
}

/**
 * HTTPS_PROXY / HTTP_PROXY are honoured (src/util/network-proxy.ts); ALL_PROXY alone is not (often a
 * SOCKS proxy, which cairn cannot use), so it is said to be unused rather than silently ignored.
 */
function proxyWarnings(env: NodeJS.ProcessEnv, model: RunModel): string[] {
  const wire = model.provider.wire;
  if (wire === "llama" || wire === "replay") return [];
  const warnings = unusableProxies(env).map(
    (setting) => `${setting} is not used: cairn reaches http and https proxies only (no SOCKS).`,
  );
  const all = env.ALL_PROXY?.trim() || env.all_proxy?.trim();
  if (all && !resolvedProxy(env))
    warnings.push(
      "ALL_PROXY is not used: cairn reads HTTPS_PROXY and HTTP_PROXY (SOCKS proxies are not supported).",
    );
  return warnings;
}

/** What the long-session settings cannot do for this model, said once. */
function longSessionWarnings(spec: RunSpec, model: RunModel): string[] {
  const warnings: string[] = [];
  const names =
    spec.fallbackModel
      ?.split(",")
      .map((name) => name.trim())
      .filter(Boolean) ?? [];
  if (names.length > 1) {
    warnings.push(`fallback model: only the first of ${names.join(", ")} is used (${names[0]}).`);
  }
  if (spec.maxBudgetUsd !== undefined && model.priceUsage({ input_tokens: 1_000_000 }) === undefined) {
    warnings.push(
      `max budget: the price of ${model.model} is unknown, so the budget of $${spec.maxBudgetUsd} cannot be enforced.`,
    );
  }
  const wire = model.provider.wire;
  if (spec.headers && Object.keys(spec.headers).length > 0 && (wire === "llama" || wire === "replay")) {
    warnings.push(`extra headers (--header) are not sent: ${model.model} makes no HTTP requests.`);
  }
  if (spec.betas?.length && wire !== "anthropic-messages") {
    warnings.push(
      `betas (${spec.betas.join(", ")}) are ignored by ${model.model}: only Anthropic models take them.`,
    );
  }
  if ((spec.thinking || spec.effort) && (wire === "llama" || wire === "replay")) {
    warnings.push(
      `thinking and effort settings are ignored by ${model.model} (no such parameter on this model).`,
    );
  } else if (spec.thinking && (wire === "openai-chat" || wire === "openai-responses")) {
    warnings.push(
      `thinking is ignored by ${model.model}: OpenAI models take a reasoning effort instead (set effort).`,
    );
  }
  return warnings;
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
    ...(spec.headers ? { headers: spec.headers } : {}),
    ...(spec.betas !== undefined ? { betas: spec.betas } : {}),
    baseDir: resolve(spec.cwd),
    env: spec.env,
  });
}

const nothingToDispose = async (): Promise<void> => {};

/**
 * Both results; when `second` fails, `first`'s value is disposed of before the error is thrown.
 * When both fail, `first`'s error is the one thrown (the order they were written in).
 */
async function settleBoth<A, B>(
  first: Promise<A>,
  second: Promise<B>,
  dispose: (value: A) => Promise<void>,
): Promise<[A, B]> {
  const [a, b] = await Promise.allSettled([first, second]);
  if (a.status === "fulfilled" && b.status === "fulfilled") return [a.value, b.value];
  if (a.status === "fulfilled") await dispose(a.value).catch(() => {});
  throw a.status === "rejected" ? a.reason : (b as PromiseRejectedResult).reason;
}

/** PreCompact / PostCompact hooks around every compaction (their records are not shown: the seam is void). */
function compactionHooksOf(hooks: Hooks, signal: AbortSignal): CompactionHooks {
  return {
    async beforeCompact({ trigger, customInstructions }) {
      if (hooks.has("PreCompact"))
        await hooks.run(
          { hook_event_name: "PreCompact", trigger, custom_instructions: customInstructions },
          { signal },
        );
    },
    async afterCompact({ trigger, summary }) {
      if (hooks.has("PostCompact"))
        await hooks.run({ hook_event_name: "PostCompact", trigger, compact_summary: summary }, { signal });
    },
  };
}

/** The tools offered in a permission mode (ExitPlanMode only in plan mode). */
function offeredIn(tools: Tool[], mode: string | undefined): Tool[] {
  return tools.some((tool) => tool.offeredInModes)
    ? tools.filter(
        (tool) => !tool.offeredInModes || (mode !== undefined && tool.offeredInModes.includes(mode)),
      )
    : tools;
}

/** The provider's web search a turn may offer (src/run/web-search-backend.ts), as loop options. */
function providerSearch(
  backend: WebSearchBackend,
  gate:
    | { evaluate(tool: string, input: Record<string, unknown>): { behavior: "allow" | "ask" | "deny" } }
    | undefined,
  sandbox: SandboxPolicy | undefined,
): { webSearch?: ServerWebSearch } {
  const verdict = gate?.evaluate(WEB_SEARCH_TOOL, { query: "a web search" }).behavior;
  const webSearch = serverWebSearch({ backend, verdict, sandbox });
  return webSearch ? { webSearch } : {};
}
