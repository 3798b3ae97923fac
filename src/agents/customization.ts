import os from "node:os";
import { type SettingSource, sourceDirs } from "../config/setting-sources.js";
import { type Invocable, loadCommands, parseSlashPrompt, type SlashCommand } from "./commands.js";
import { type LoadedPlugin, loadPlugins, type PluginConfig } from "./plugins.js";
import { loadSkills, type Skill, skillCommand } from "./skills.js";

/**
 * A run's custom commands and skills, from the directories the enabled setting sources load
 * (docs/agents.md). Loaded once per run by the run assembly (and by the SDK before its first turn,
 * for `supportedCommands()`); what it finds is reported in `system/init` (`slash_commands`,
 * `skills`).
 */
export type Customization = {
  /** Custom commands and the skills that are slash commands too, one per name. */
  commands: Invocable[];
  /** The enabled skills (SDK `skills`), one per name. */
  skills: Skill[];
  /** The local plugins loaded (SDK `plugins`, `--plugin-dir`). */
  plugins: LoadedPlugin[];
  /** What was found and not applied, one line each, for the door to show once. */
  warnings: string[];
};

export type CustomizationOptions = {
  cwd: string;
  env: NodeJS.ProcessEnv;
  home?: string;
  sources: readonly SettingSource[];
  /** SDK `skills`: omitted or `"all"`: every skill found; a list: only those; `[]`: none. */
  skills?: readonly string[] | "all";
  /** SDK `plugins`, `--plugin-dir`. */
  plugins?: readonly PluginConfig[];
};

/** cairn's own slash commands: the engine answers them (docs/context.md) and no file replaces them. */
export const BUILTIN_COMMANDS: readonly SlashCommand[] = [
  {
    name: "compact",
    description: "Summarise the conversation so far into one message (docs/context.md)",
    argumentHint: "[instructions]",
    builtin: true,
  },
];

export async function loadCustomization(options: CustomizationOptions): Promise<Customization> {
  const loadedPlugins = await loadPlugins(options.plugins ?? [], options.cwd);
  const plugins = loadedPlugins.plugins;
  const dirOptions = {
    cwd: options.cwd,
    env: options.env,
    home: options.home ?? os.homedir(),
    sources: options.sources,
    plugins,
  };
  const [found, loaded] = await Promise.all([
    loadCommands(sourceDirs("commands", dirOptions)),
    loadSkills(sourceDirs("skills", dirOptions)),
  ]);
  const warnings = [...loadedPlugins.warnings, ...found.warnings, ...loaded.warnings];
  const skills = enabledSkills(
    firstOfEachName(loaded.skills, (skill) => skill.dir, warnings),
    options.skills,
    warnings,
  );
  // A skill takes a name before a command file of the same name, as in the reference.
  const invocables = [...skills.filter((skill) => skill.userInvocable).map(skillCommand), ...found.commands];
  const builtin = new Set(BUILTIN_COMMANDS.map((command) => command.name));
  const commands = firstOfEachName(invocables, (command) => command.file, warnings).filter((command) => {
    if (!builtin.has(command.name)) return true;
    warnings.push(`${command.file}: not loaded: /${command.name} is one of cairn's own commands`);
    return false;
  });
  return { commands, skills, plugins, warnings };
}

/** What `Query.supportedCommands()` and the ACP command list show: cairn's own, then the custom ones. */
/**
 * The built-in command a prompt invokes (`/compact [instructions]`): the one place prompt text is
 * read for cairn's own commands (the engine is told what to do, never parses the prompt).
 */
export function invokedBuiltin(prompt: string): { name: "compact"; args: string } | undefined {
  const parsed = parseSlashPrompt(prompt);
  return parsed?.name === "compact" ? { name: "compact", args: parsed.args } : undefined;
}

export function slashCommandsOf(customization: Customization | undefined): SlashCommand[] {
  return [
    ...BUILTIN_COMMANDS.map((command) => ({ ...command })),
    ...(customization?.commands ?? []).map((command) => ({
      name: command.name,
      description: command.description,
      argumentHint: command.argumentHint,
      ...(command.aliases.length > 0 ? { aliases: [...command.aliases] } : {}),
    })),
  ];
}

/** The custom command a prompt invokes (`/name args`, by name or alias), with its argument text. */
export function invokedCommand(
  customization: Customization | undefined,
  prompt: string,
): { command: Invocable; args: string } | undefined {
  const parsed = parseSlashPrompt(prompt);
  if (!parsed || !customization) return undefined;
  const command =
    customization.commands.find((entry) => entry.name === parsed.name) ??
    customization.commands.find((entry) => entry.aliases.includes(parsed.name));
  return command ? { command, args: parsed.args } : undefined;
}

/** The first entry of each name (the directories come highest precedence first); the rest are reported. */
function firstOfEachName<T extends { name: string }>(
  entries: readonly T[],
  where: (entry: T) => string,
  warnings: string[],
): T[] {
  const kept = new Map<string, T>();
  for (const entry of entries) {
    const first = kept.get(entry.name);
    if (first)
      warnings.push(`${where(entry)}: not loaded: "${entry.name}" is already defined by ${where(first)}`);
    else kept.set(entry.name, entry);
  }
  return [...kept.values()];
}

function enabledSkills(
  skills: readonly Skill[],
  option: readonly string[] | "all" | undefined,
  warnings: string[],
): Skill[] {
  if (option === undefined || option === "all") return [...skills];
  const names = new Set(skills.map((skill) => skill.name));
  for (const name of option)
    if (!names.has(name))
      warnings.push(`skills: no skill named "${name}" was found (${[...names].join(", ") || "none found"})`);
  return skills.filter((skill) => option.includes(skill.name));
}
