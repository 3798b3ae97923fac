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

/** What a prompt invoking a custom command or skill becomes (`expandPrompt`). */
export type PromptExpansion = {
  /** The expanded text: what the model is sent. */
  prompt: string;
  command: Invocable;
  /** The command's `model`, resolved. */
  model?: RunModel;
  /** A project's `allowed-tools`: the turn offers only the tools these entries name. */
  narrowTo?: string[];
  /** The user's own `allowed-tools`: a gate of just those allow rules. */
  preapproved?: PermissionGate;
};

/**
 * A prompt `/name args` for a custom command or skill: the prompt becomes the expansion; the
 * command's `model` is the turn's model; its `allowed-tools` pre-approve matching calls when the
 * file is the user's own, and narrow the turn's tools to those named when it came with the
 * repository (a project's file may restrict, never widen). Undefined for any other prompt. A model
 * or rule the file names that cannot be used is a ConfigError naming the file.
 */
export async function expandPrompt(
  prompt: string,
  customization: Customization,
  run: {
    resolveModel(name: string): Promise<RunModel>;
    /** A gate applying just these rules (undefined: the run has no permissions). */
    gateFor(rules: PermissionRule[]): PermissionGate | undefined;
  },
): Promise<PromptExpansion | undefined> {
  const invoked = invokedCommand(customization, prompt);
  if (!invoked) return undefined;
  const { command, args } = invoked;
  const expansion: PromptExpansion = { prompt: await command.expand(args), command };
  if (command.model) expansion.model = await modelOf(command, run.resolveModel);
  const entries = (command.allowedTools ?? []).flatMap(splitRuleList);
  if (entries.length === 0) return expansion;
  if (command.level === "project") expansion.narrowTo = entries;
  else {
    const gate = run.gateFor(rulesOf(command, entries));
    if (gate) expansion.preapproved = gate;
  }
  return expansion;
}

/** The turn's tools and permission check under an expansion. */
export function expandedTurn(
  expansion: PromptExpansion | undefined,
  tools: Tool[],
  canUseTool: CanUseTool | undefined,
): { tools: Tool[]; canUseTool: CanUseTool | undefined } {
  const narrowTo = expansion?.narrowTo;
  return {
    tools: narrowTo ? tools.filter((tool) => narrowTo.some((entry) => namesTool(entry, tool.name))) : tools,
    canUseTool: expansion?.preapproved ? preapproving(canUseTool, expansion.preapproved) : canUseTool,
  };
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
