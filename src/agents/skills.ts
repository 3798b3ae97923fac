import path from "node:path";
import * as z from "zod";
import type { SourceDir } from "../config/setting-sources.js";
import { defineTool } from "../tools/define.js";
import type { Tool } from "../tools/types.js";
import { compareCodeUnits } from "../util/compare.js";
import { readdir, realpath } from "../util/fs-async.js";
import { mayExist } from "../util/may-exist.js";
import { fillArguments, type Invocable } from "./commands.js";
import { parseFrontmatter, stringField } from "./frontmatter.js";
import { COMMAND_NAME, firstLine, readPromptFile } from "./markdown-files.js";

/**
 * Skills (docs/agents.md, "Skills"): folders holding a `SKILL.md` (front matter `name`,
 * `description`) in `.cairn/skills`, `.claude/skills` and the user-level equivalents. Progressive
 * disclosure: the model is offered each skill's one-line description in the `Skill` tool's
 * description; calling `Skill` returns the body and the folder's file list, and the model reads
 * the files it needs with Read.
 */
export type Skill = {
  name: string;
  description: string;
  /** The folder, real path. */
  dir: string;
  body: string;
  level: "user" | "project";
  /** May the model load it (`disable-model-invocation: true` → only `/name`)? */
  modelInvocable: boolean;
  /** Is it a slash command too (`user-invocable: false` → no)? */
  userInvocable: boolean;
  argumentHint: string;
};

/** Front-matter keys of a SKILL.md that cairn applies, or that only describe the skill. */
const SKILL_KEYS = new Set([
  "name",
  "description",
  "disable-model-invocation",
  "user-invocable",
  "argument-hint",
  // Agent Skills metadata: informational.
  "license",
  "metadata",
  "compatibility",
  "version",
]);
/** Files listed for the model when it loads a skill. */
const MAX_LISTED_FILES = 100;

export async function loadSkills(
  dirs: readonly SourceDir[],
): Promise<{ skills: Skill[]; warnings: string[] }> {
  const warnings: string[] = [];
  const found = await Promise.all(
    dirs.map(async (source) => {
      const entries = mayExist(source.dir)
        ? await readdir(source.dir, { withFileTypes: true }).catch(() => [])
        : [];
      const folders = entries
        .filter((entry) => !entry.name.startsWith(".") && (entry.isDirectory() || entry.isSymbolicLink()))
        .map((entry) => entry.name)
        .sort();
      return Promise.all(folders.map((folder) => skillFolder(source, folder, warnings)));
    }),
  );
  return { skills: found.flat().filter((skill) => skill !== undefined), warnings };
}

async function skillFolder(
  source: SourceDir,
  folder: string,
  warnings: string[],
): Promise<Skill | undefined> {
  const file = path.join(source.dir, folder, "SKILL.md");
  const read = await readPromptFile(file);
  if ("problem" in read) {
    // A folder without SKILL.md is not a skill: nothing to say.
    if (!read.problem.includes("ENOENT") && !read.problem.includes("ENOTDIR"))
      warnings.push(`${file}: ${read.problem}`);
    return undefined;
  }
  const { data, body } = parseFrontmatter(read.text);
  const name = stringField(data, "name") ?? folder;
  if (!COMMAND_NAME.test(name)) {
    warnings.push(`${file}: not loaded: the skill name "${name}" is not letters, digits, '.', '_', '-'`);
    return undefined;
  }
  const unknown = Object.keys(data).filter((key) => !SKILL_KEYS.has(key));
  if (unknown.length > 0)
    warnings.push(
      `${file}: not applied: ${unknown.join(", ")} (cairn applies name, description, disable-model-invocation and user-invocable; tools are set by the run's own options)`,
    );
  return {
    name: source.plugin ? `${source.plugin}:${name}` : name,
    description: stringField(data, "description") ?? firstLine(body),
    dir: await realpath(path.dirname(file)),
    body: body.trim(),
    level: source.level,
    modelInvocable: stringField(data, "disable-model-invocation") !== "true",
    userInvocable: stringField(data, "user-invocable") !== "false",
    argumentHint: stringField(data, "argument-hint") ?? "",
  };
}

/** The text a loaded skill becomes: where it lives, its files, its instructions. */
export async function skillContent(skill: Skill, args: string): Promise<string> {
  const files = await filesUnder(skill.dir);
  const listed = files.slice(0, MAX_LISTED_FILES);
  const more = files.length > listed.length ? `\n… and ${files.length - listed.length} more` : "";
  return [
    `Base directory for this skill: ${skill.dir}`,
    `Files in it (read them with Read when the instructions need them):\n${listed.map((file) => `- ${file}`).join("\n")}${more}`,
    fillArguments(skill.body, args),
  ].join("\n\n");
}

/** A skill invoked as `/name args` by the user: the same content as a `Skill` call. */
export function skillCommand(skill: Skill): Invocable {
  return {
    name: skill.name,
    aliases: [],
    description: `${skill.description} (${skill.level} skill)`,
    argumentHint: skill.argumentHint,
    level: skill.level,
    file: path.join(skill.dir, "SKILL.md"),
    expand: (args) => skillContent(skill, args),
  };
}

/** The `Skill` tool over the skills the model may load; its description is their one-line list. */
export function skillTool(skills: readonly Skill[]): Tool {
  const byName = new Map(skills.map((skill) => [skill.name, skill]));
  const listing = skills.map((skill) => `- ${skill.name}: ${skill.description}`).join("\n");
  return defineTool({
    name: "Skill",
    // It reads only the skills the run loaded, never a path the model names.
    effects: { kind: "other", readOnly: true, network: false },
    description:
      "Loads a skill: specialised instructions for a kind of task, with files to go with them. " +
      "When a task matches a skill's description, call this first and follow what it returns.\n\n" +
      `Available skills:\n${listing}`,
    input: z.object({
      skill: z.string().min(1).describe("The skill's name, as listed."),
      args: z.string().optional().describe("Arguments for the skill, when it takes any."),
    }),
    async run({ skill: name, args }) {
      const skill = byName.get(name);
      if (!skill)
        return {
          content: `No skill named "${name}". Available: ${[...byName.keys()].join(", ")}.`,
          isError: true,
        };
      return { content: await skillContent(skill, args ?? "") };
    },
  });
}

/** Relative paths of the files in a skill's folder (hidden entries skipped, bounded). */
async function filesUnder(dir: string, prefix = "", depth = 0): Promise<string[]> {
  const entries = await readdir(path.join(dir, prefix), { withFileTypes: true }).catch(() => []);
  const out: string[] = [];
  for (const entry of entries.sort((a, b) => compareCodeUnits(a.name, b.name))) {
    if (entry.name.startsWith(".")) continue;
    const relative = path.join(prefix, entry.name);
    if (entry.isDirectory() && depth < 3) out.push(...(await filesUnder(dir, relative, depth + 1)));
    else if (entry.isFile()) out.push(relative);
    if (out.length > MAX_LISTED_FILES * 2) break;
  }
  return out;
}
