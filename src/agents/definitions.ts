/**
 * Subagents (docs/agents.md): named agents the main agent delegates to through the Agent tool, each
 * with its own prompt, tools and model. The shapes are the public agent-SDK convention's
 * (`AgentDefinition`, `AgentInfo`).
 */

/** A subagent as the SDK's `agents` option and the agent files define it. */
export type AgentDefinition = {
  /** When to use it: the model reads this to decide whether to delegate. */
  description: string;
  /** Its system prompt. */
  prompt: string;
  /** The tools it may use (default: the parent's, without Agent); never more than the parent has. */
  tools?: string[];
  /** Tools taken away from those. */
  disallowedTools?: string[];
  /** `inherit` (default: the parent's model), an alias (`sonnet`, `opus`, `haiku`) or a model id. */
  model?: string;
  /** Model calls it may make; reaching the limit ends it with an error the parent reads. */
  maxTurns?: number;
  /** Leave out the project's instruction files (AGENTS.md, CLAUDE.md) from its system prompt. */
  omitClaudeMd?: boolean;
  [key: string]: unknown;
};

/** What `Query.supportedAgents()` and `system/init.agents` tell about an agent. */
export type AgentInfo = { name: string; description: string; model?: string };

/** An agent ready to run: its definition, where it came from, and (agent files) read-only or not. */
export type ResolvedAgent = AgentDefinition & {
  name: string;
  /** `built-in`, `option` (SDK `agents`), or the file it was read from. */
  source: string;
  /** Only tools that change nothing (Cursor's `readonly: true`). */
  readonly?: boolean;
};

export const GENERAL_PURPOSE_AGENT = "general-purpose";

/**
 * The built-in agents: `general-purpose` (what an Agent call without `subagent_type` gets) and
 * `Explore` (read-only search), as in the convention. An agent file or option of the same name wins.
 */
export const BUILTIN_AGENTS: readonly ResolvedAgent[] = [
  {
    name: GENERAL_PURPOSE_AGENT,
    source: "built-in",
    description:
      "General-purpose agent for researching complex questions, searching for code, and executing multi-step tasks. Use it when a search or task may take several tries.",
    prompt:
      "You are a subagent of cairn, a coding agent. Do the task you are given with the tools you have, completely, then answer with a concise report of what you found or did: the caller sees only your final message.",
  },
  {
    name: "Explore",
    source: "built-in",
    readonly: true,
    description:
      "Fast read-only agent for exploring a codebase: finding files by pattern, searching code for keywords, answering questions about how the code works.",
    prompt:
      "You are a read-only exploration subagent of cairn, a coding agent. Search and read the code to answer the question you are given; change nothing. Answer with a concise report naming the files and lines that matter: the caller sees only your final message.",
  },
];

export function agentInfo(agent: ResolvedAgent): AgentInfo {
  return {
    name: agent.name,
    description: agent.description,
    ...(agent.model !== undefined ? { model: agent.model } : {}),
  };
}
