import os from "node:os";
import path from "node:path";
import type { Invocable } from "../agents/commands.js";
import { type Customization, invokedCommand } from "../agents/customization.js";
import { type Skill, skillTool } from "../agents/skills.js";
import type { LoadedConfig } from "../config/load.js";
import type { SettingSource } from "../config/setting-sources.js";
import type { InstructionFiles } from "../engine/context.js";
import type { CanUseTool } from "../engine/tool-runner.js";
import type { PermissionGate } from "../permissions/gate.js";
import { resolveCairnHome } from "../permissions/home.js";
import { parseRule, RuleSyntaxError, splitRuleList } from "../permissions/rules.js";
import type { PermissionRule } from "../permissions/types.js";
import { ConfigError } from "../providers/types.js";
import type { Tool } from "../tools/types.js";
import type { RunModel } from "./model.js";

/**
 * What the run assembly does with commands, skills and setting sources (docs/agents.md): the
 * instruction files to read, the `Skill` tool, the skills' folders the model may read, and a turn
 * whose prompt invokes a custom command.
 */

/** The instruction files the enabled sources load. */
export function instructionFiles(
  sources: readonly SettingSource[],
  env: NodeJS.ProcessEnv,
): InstructionFiles {
  const home = os.homedir();
  const claudeHome = env.CLAUDE_CONFIG_DIR?.trim() || path.join(home, ".claude");
  return {
    project: sources.includes("project"),
    local: sources.includes("local"),
    user: sources.includes("user")
      ? [path.join(resolveCairnHome(env, home), "AGENTS.md"), path.join(claudeHome, "CLAUDE.md")]
      : [],
  };
}

/** The `Skill` tool when any enabled skill may be loaded by the model. */
export function skillToolFor(skills: readonly Skill[]): Tool | undefined {
  const offered = skills.filter((skill) => skill.modelInvocable);
  return offered.length > 0 ? skillTool(offered) : undefined;
}

/**
 * The user's own skills' folders may be read, wherever they are: a `Read(//folder/**)` allow rule
 * each (deny rules still win). A project's skills are the repository's files: no rule widens what
 * may be read for them (those inside the workspace are readable anyway).
 */
export function withSkillFolders(config: LoadedConfig, skills: readonly Skill[]): LoadedConfig {
  const rules = skills
    .filter((skill) => skill.level === "user" && !/[*?[\]{}]/.test(skill.dir))
    .map((skill) => parseRule(`Read(/${skill.dir}/**)`, "allow", `skill ${skill.name} (${skill.dir})`));
  return rules.length > 0 ? { ...config, rules: [...config.rules, ...rules] } : config;
}

type TurnFields = {
  prompt: string;
  model?: RunModel;
  canUseTool?: CanUseTool;
};

export type CustomizedTurn<T extends TurnFields> = {
  turn: T;
  tools: Tool[];
  canUseTool: CanUseTool | undefined;
};

/**
 * A turn whose prompt is `/name args` for a custom command or skill: the prompt becomes the
 * expansion; the command's `model` is this turn's model; its `allowed-tools` pre-approve matching
 * calls when the file is the user's own, and narrow the turn's tools to those named when it came
 * with the repository (a project's file may restrict, never widen). Any other prompt is unchanged.
 */
export async function customizedTurn<T extends TurnFields>(
  turn: T,
  customization: Customization,
  run: {
    tools: Tool[];
    canUseTool: CanUseTool | undefined;
    resolveModel(name: string): Promise<RunModel>;
    /** A gate applying just these rules (undefined: the run has no permissions). */
    gateFor(rules: PermissionRule[]): PermissionGate | undefined;
  },
): Promise<CustomizedTurn<T>> {
  const invoked = invokedCommand(customization, turn.prompt);
  if (!invoked) return { turn, tools: run.tools, canUseTool: run.canUseTool };
  const { command, args } = invoked;
  const prompt = await command.expand(args);
  const model = command.model ? await modelOf(command, run.resolveModel) : turn.model;
  const entries = (command.allowedTools ?? []).flatMap(splitRuleList);
  const customized = { ...turn, prompt, ...(model ? { model } : {}) };
  if (entries.length === 0) return { turn: customized, tools: run.tools, canUseTool: run.canUseTool };
  if (command.level === "project") {
    const tools = run.tools.filter((tool) => entries.some((entry) => namesTool(entry, tool.name)));
    return { turn: customized, tools, canUseTool: run.canUseTool };
  }
  const gate = run.gateFor(rulesOf(command, entries));
  return { turn: customized, tools: run.tools, canUseTool: preapproving(run.canUseTool, gate) };
}

async function modelOf(command: Invocable, resolveModel: (name: string) => Promise<RunModel>) {
  try {
    return await resolveModel(command.model!);
  } catch (error) {
    if (error instanceof ConfigError) throw new ConfigError(`${command.file}: model: ${error.message}`);
    throw error;
  }
}

function rulesOf(command: Invocable, entries: string[]): PermissionRule[] {
  return entries.map((entry) => {
    try {
      return parseRule(entry, "allow", `allowed-tools of /${command.name} (${command.file})`);
    } catch (error) {
      if (error instanceof RuleSyntaxError)
        throw new ConfigError(`${command.file}: allowed-tools: ${error.message}`);
      throw error;
    }
  });
}

/** Does an `allowed-tools` entry (`Read`, `Bash(git:*)`, `Shell(git)`, `mcp__server`) name this tool? */
function namesTool(entry: string, toolName: string): boolean {
  const named = entry.split("(")[0]!.trim();
  if (named === "Shell") return toolName === "Bash";
  if (named.startsWith("mcp__") && !named.slice(5).includes("__"))
    return toolName.startsWith(`${named.replace(/\*$/, "")}__`);
  return toolName === named;
}

/**
 * Where the turn's gate would ask, a call these rules allow runs without asking. Deny rules, the
 * mode's refusals and a hook's "ask" still stand: only a question is spared.
 */
function preapproving(
  base: CanUseTool | undefined,
  rules: PermissionGate | undefined,
): CanUseTool | undefined {
  if (!base || !rules) return base;
  return (toolName, input, options) =>
    base(toolName, input, {
      ...options,
      beforeAsk: async (info) => {
        const earlier = await options.beforeAsk?.(info);
        if (earlier) return earlier;
        if (options.hookDecision?.decision === "ask") return undefined;
        return rules.evaluate(toolName, input).behavior === "allow" ? { behavior: "allow" } : undefined;
      },
    });
}
