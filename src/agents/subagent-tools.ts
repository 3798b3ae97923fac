import type { Tool } from "../tools/types.js";
import type { ResolvedAgent } from "./definitions.js";

/** The Agent tool's name, and the legacy one calls may use. */
export const AGENT_TOOL = "Agent";
export const AGENT_TOOL_ALIASES = ["Task"] as const;

export function isAgentToolName(name: string): boolean {
  return name === AGENT_TOOL || (AGENT_TOOL_ALIASES as readonly string[]).includes(name);
}

/**
 * The tools a subagent gets: the parent's (`base`, without the Agent tool: subagents do not
 * delegate further), narrowed by its definition — `tools` keeps the named ones (`*`: all; a rule
 * such as `Bash(git:*)` names its tool; `mcp__server` a server's tools), `disallowedTools` removes,
 * `readonly` keeps only tools that change nothing. A name the parent does not have gives nothing:
 * a subagent never has more than its parent. `unknown` lists such names, for a warning.
 */
export function subagentTools(
  agent: ResolvedAgent,
  base: readonly Tool[],
): { tools: Tool[]; unknown: string[] } {
  const available = base.filter((tool) => !isAgentToolName(tool.name));
  const names = (list: readonly string[] | undefined) =>
    list?.map((entry) => entry.replace(/\(.*$/, "").trim());
  const matches = (tool: Tool, name: string) =>
    name === "*" || tool.name === name || (name.startsWith("mcp__") && tool.name.startsWith(`${name}__`));
  const wanted = names(agent.tools);
  const unknown = (wanted ?? []).filter(
    (name) => !isAgentToolName(name) && !available.some((tool) => matches(tool, name)),
  );
  let tools = wanted ? available.filter((tool) => wanted.some((name) => matches(tool, name))) : available;
  const removed = names(agent.disallowedTools) ?? [];
  tools = tools.filter((tool) => !removed.some((name) => matches(tool, name)));
  if (agent.readonly) tools = tools.filter((tool) => tool.effects?.readOnly === true);
  return { tools, unknown };
}
