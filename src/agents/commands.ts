import path from "node:path";
import type { SourceDir } from "../config/setting-sources.js";
import { listField, parseFrontmatter, stringField } from "./frontmatter.js";
import { COMMAND_NAME, firstLine, markdownFilesUnder, readPromptFile } from "./markdown-files.js";

/**
 * Custom slash commands (docs/agents.md, "Custom commands"): every `*.md` file under a commands
 * directory (`.cairn/commands`, `.claude/commands`, user-level equivalents) is a prompt template.
 * A prompt `/name args` becomes the file's body with `$ARGUMENTS` and `$1`…`$9` filled in.
 *
 * A file in a subfolder (`frontend/component.md`) is `/component`, as in the reference, and also
 * answers to `/frontend:component`; its description names the folder, `(project:frontend)`.
 */

/** The convention's `SlashCommand` (`Query.supportedCommands()`, the initialize answer). */
export type SlashCommand = {
  name: string;
  description: string;
  argumentHint: string;
  aliases?: string[];
  builtin?: boolean;
};

/** What a `/name` prompt may invoke: a command file, or a skill (skills.ts). */
export type Invocable = {
  name: string;
  /** Other names it answers to (`frontend:component`). */
  aliases: string[];
  description: string;
  argumentHint: string;
  /** `allowed-tools`, rule texts as written (`Bash(git add:*)`). */
  allowedTools?: string[];
  /** `model`, any name `--model` takes. */
  model?: string;
  /** `user`: the user's own file; `project`: it came with the repository. */
  level: "user" | "project";
  file: string;
  /** The prompt the invocation becomes. */
  expand(args: string): Promise<string>;
};

/** Front-matter keys of a command file that cairn applies, or knows change nothing headless. */
const COMMAND_KEYS = new Set([
  "description",
  "argument-hint",
  "allowed-tools",
  "model",
  // Keeps the model from invoking the command itself: cairn's model never invokes commands.
  "disable-model-invocation",
]);

export async function loadCommands(
  dirs: readonly SourceDir[],
): Promise<{ commands: Invocable[]; warnings: string[] }> {
  const warnings: string[] = [];
  const found = await Promise.all(
    dirs.map(async (source) => {
      const files = await markdownFilesUnder(source.dir);
      return Promise.all(files.map((relative) => commandFile(source, relative, warnings)));
    }),
  );
  return { commands: found.flat().filter((command) => command !== undefined), warnings };
}

async function commandFile(
  source: SourceDir,
  relative: string,
  warnings: string[],
): Promise<Invocable | undefined> {
  const file = path.join(source.dir, relative);
  const name = path.basename(relative, ".md");
  const folders = path.dirname(relative) === "." ? [] : path.dirname(relative).split(path.sep);
  if (!COMMAND_NAME.test(name) || !folders.every((folder) => COMMAND_NAME.test(folder))) {
    warnings.push(`${file}: not loaded as a command (a command name is letters, digits, '.', '_', '-')`);
    return undefined;
  }
  const read = await readPromptFile(file);
  if ("problem" in read) {
    warnings.push(`${file}: ${read.problem}`);
    return undefined;
  }
  const { data, body } = parseFrontmatter(read.text);
  const unknown = Object.keys(data).filter((key) => !COMMAND_KEYS.has(key));
  if (unknown.length > 0)
    warnings.push(`${file}: not applied: ${unknown.join(", ")} (cairn does not know these keys)`);
  if (/!`[^`]+`/.test(body))
    warnings.push(
      `${file}: not applied: !\`command\` output (cairn runs no shell command while expanding a prompt; the text is sent as written)`,
    );
  const where = [source.plugin ? `plugin ${source.plugin}` : source.level, ...folders].join(":");
  const description = stringField(data, "description") ?? firstLine(body);
  // A plugin's command is `/plugin:name` (its subfolders are only in the description).
  const names = source.plugin
    ? { name: `${source.plugin}:${name}`, aliases: [] }
    : { name, aliases: folders.length > 0 ? [[...folders, name].join(":")] : [] };
  const allowedTools = listField(data, "allowed-tools");
  const model = stringField(data, "model");
  return {
    ...names,
    description: `${description}${description ? " " : ""}(${where})`,
    argumentHint: stringField(data, "argument-hint") ?? "",
    ...(allowedTools ? { allowedTools } : {}),
    ...(model ? { model } : {}),
    level: source.level,
    file,
    expand: async (args) => fillArguments(body.trim(), args),
  };
}

/**
 * `$ARGUMENTS` is everything after the name; `$1`…`$9` its words (quotes group words). A template
 * that uses neither gets the arguments appended as `ARGUMENTS: …`, as the reference does.
 */
export function fillArguments(template: string, args: string): string {
  const words = splitArguments(args);
  const uses = /\$ARGUMENTS\b|\$[1-9]/.test(template);
  const filled = template
    .replace(/\$ARGUMENTS\b/g, () => args)
    .replace(/\$([1-9])/g, (_, index: string) => words[Number(index) - 1] ?? "");
  return !uses && args !== "" ? `${filled}\n\nARGUMENTS: ${args}` : filled;
}

/** `a "b c" 'd'` → `["a", "b c", "d"]`. */
function splitArguments(args: string): string[] {
  const words: string[] = [];
  for (const match of args.matchAll(/"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g)) {
    words.push(match[1] !== undefined ? match[1].replace(/\\(.)/g, "$1") : (match[2] ?? match[3]!));
  }
  return words;
}

/** `/name args` → the name and the argument text; undefined when the prompt is not a slash command. */
export function parseSlashPrompt(prompt: string): { name: string; args: string } | undefined {
  const match = /^\/([A-Za-z0-9][A-Za-z0-9_.:-]*)(?:\s+([\s\S]*))?$/.exec(prompt.trim());
  if (!match) return undefined;
  return { name: match[1]!, args: (match[2] ?? "").trim() };
}
