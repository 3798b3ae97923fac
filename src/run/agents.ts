import {
  type AgentDefinition,
  type AgentInfo,
  agentInfo,
  BUILTIN_AGENTS,
  type ResolvedAgent,
} from "../agents/definitions.js";
import { loadAgentFiles } from "../agents/files.js";
import { isAgentToolName, subagentTools } from "../agents/subagent-tools.js";
import { type SourceDirOptions, sourceDirs } from "../config/setting-sources.js";
import { splitRuleList } from "../permissions/rules.js";
import { ConfigError } from "../providers/types.js";
import type { Tool } from "../tools/types.js";

/** The subagents of a run (docs/agents.md), from the door. */
export type AgentsSpec = {
  /** The SDK's `agents` option: over every agent file of the same name. */
  definitions?: Record<string, AgentDefinition>;
  /**
   * Offer the Agent tool (or not), as the door's tool list says. Default: when any agent besides the
   * built-in ones is defined, or the allow rules name `Agent` or `Task` (how the convention's
   * programs ask for the built-in agents).
   */
  enabled?: boolean;
  /** Read the agent files (default true). */
  files?: boolean;
  /** The agent the main thread runs as (SDK `agent`): its prompt, tools and model. */
  main?: string;
};

/** The main thread's agent by name; an unknown name is a configuration error naming the agents. */
export function mainAgent(
  agents: ReadonlyMap<string, ResolvedAgent>,
  name: string | undefined,
): ResolvedAgent | undefined {
  if (name === undefined) return undefined;
  const agent = agents.get(name);
  if (!agent) throw new ConfigError(`No agent named "${name}". Agents: ${[...agents.keys()].join(", ")}.`);
  return agent;
}

/** What `Query.supportedAgents()` and `system/init.agents` list: the agents, when the tool is offered. */
export function offeredAgents(run: RunAgents): AgentInfo[] {
  return run.enabled ? [...run.agents.values()].map(agentInfo) : [];
}

export type RunAgents = {
  /** Every agent by name: built-in, user files, project files, then the option (later wins). */
  agents: Map<string, ResolvedAgent>;
  /** The Agent tool is offered. */
  enabled: boolean;
  warnings: string[];
};

/**
 * The folders agent files are read from, in order (later wins): the enabled setting sources'
 * `agents/` directories of cairn, Claude and Cursor (`sourceDirs`, docs/agents.md "Which files
 * load"), lowest precedence first — plugins, then the user's, then the workspace's.
 */
export function agentDirs(where: Omit<SourceDirOptions, "owners">): string[] {
  return sourceDirs("agents", { ...where, owners: ["cairn", "claude", "cursor"] })
    .map((source) => source.dir)
    .reverse();
}

export async function loadRunAgents(
  where: Omit<SourceDirOptions, "owners">,
  spec: AgentsSpec = {},
  rules: { allowedTools?: readonly string[]; disallowedTools?: readonly string[] } = {},
): Promise<RunAgents> {
  const agents = new Map(BUILTIN_AGENTS.map((agent) => [agent.name, agent]));
  const files = spec.files === false ? { agents: [], warnings: [] } : await loadAgentFiles(agentDirs(where));
  for (const agent of files.agents) agents.set(agent.name, agent);
  for (const [name, definition] of Object.entries(spec.definitions ?? {}))
    agents.set(name, { ...definition, name, source: "option" });
  const custom = files.agents.length > 0 || Object.keys(spec.definitions ?? {}).length > 0;
  const names = (list: readonly string[] | undefined, bare: boolean) =>
    (list ?? []).some((entry) =>
      splitRuleList(entry).some((rule) => isAgentToolName(bare ? rule : rule.replace(/\(.*$/, ""))),
    );
  // A bare `Agent` / `Task` deny removes the tool, as any bare name in disallowedTools does.
  const removed = names(rules.disallowedTools, true);
  const enabled = !removed && (spec.enabled ?? (custom || names(rules.allowedTools, false)));
  return { agents, enabled, warnings: files.warnings };
}

/** The keys of `AgentDefinition` cairn applies; any other key of an `agents` option is reported. */
const APPLIED_KEYS = new Set([
  "description",
  "prompt",
  "tools",
  "disallowedTools",
  "model",
  "maxTurns",
  "omitClaudeMd",
  "name",
  "source",
  "readonly",
]);

/** One line per agent that names tools this run does not have, or settings cairn does not apply. */
export function agentWarnings(agents: ReadonlyMap<string, ResolvedAgent>, tools: readonly Tool[]): string[] {
  const warnings: string[] = [];
  for (const agent of agents.values()) {
    const { unknown } = subagentTools(agent, tools);
    if (unknown.length > 0)
      warnings.push(
        `agent ${agent.name}: ${unknown.join(", ")} ${unknown.length === 1 ? "is" : "are"} not among this run's tools; it runs without ${unknown.length === 1 ? "it" : "them"}.`,
      );
    const ignored = Object.keys(agent).filter((key) => !APPLIED_KEYS.has(key) && agent[key] !== undefined);
    if (ignored.length > 0)
      warnings.push(
        `agent ${agent.name}: ${ignored.join(", ")} ${ignored.length === 1 ? "is" : "are"} not supported yet and ignored.`,
      );
  }
  return warnings;
}
