import { isAbsolute, join } from "node:path";
import { readdir, readFile } from "../util/fs-async.js";
import { mayExist } from "../util/may-exist.js";

/** Project instruction files, read in this order from the working directory. */
export const RULES_FILES = ["AGENTS.md", "CLAUDE.md"] as const;
/** The user's own instruction file inside the workspace, kept out of version control. */
export const LOCAL_RULES_FILE = "CLAUDE.local.md";
export const CURSOR_RULES_DIR = ".cursor/rules";
/** Cap per rules file and for all of them together (characters); the rest is cut with a note. */
export const RULES_FILE_CAP = 20_000;
export const RULES_TOTAL_CAP = 50_000;

export type SystemPromptInput = {
  cwd: string;
  tools: string[];
  date?: Date;
  platform?: string;
  /** Replaces the built-in prompt entirely (SDK `systemPrompt: "..."`). */
  override?: string;
  /** Appended after the built-in prompt (SDK preset `append`). */
  append?: string;
  /** Who the agent is, instead of cairn's own first paragraph (a subagent's prompt). */
  role?: string;
  /** Add the instruction files at all (default true; a subagent with `omitClaudeMd` does not). */
  projectRules?: boolean;
  /** Which instruction files to read (the run assembly decides by `settingSources`). Default: the project's. */
  instructions?: InstructionFiles;
};

export type InstructionFiles = {
  /** AGENTS.md, CLAUDE.md, .cursor/rules of the working directory. */
  project: boolean;
  /** CLAUDE.local.md of the working directory. */
  local: boolean;
  /** The user's own files (absolute paths), read first. */
  user: readonly string[];
};

/**
 * The system prompt: who the agent is, its tools, the working directory, platform and date, then
 * the project's instructions (AGENTS.md, CLAUDE.md, .cursor/rules/*.md and *.mdc, in that order).
 */
export async function buildSystemPrompt(input: SystemPromptInput): Promise<string> {
  if (input.override !== undefined) return input.override;
  const date = (input.date ?? new Date()).toISOString().slice(0, 10);
  const parts = [
    input.role ??
      "You are cairn, a coding agent working in the user's project. Use the tools to read, search, edit " +
        "and run things; prefer small, verifiable steps; say plainly what you did.",
    `Tools: ${input.tools.join(", ")}. Paths may be absolute or relative to the working directory.`,
    `Working directory: ${input.cwd}\nPlatform: ${input.platform ?? process.platform}\nDate: ${date}`,
  ];
  const rules = input.projectRules === false ? "" : await readProjectRules(input.cwd, input.instructions);
  if (rules) parts.push(`# Project instructions\n\n${rules}`);
  if (input.append) parts.push(input.append);
  return parts.join("\n\n");
}

export async function readProjectRules(
  cwd: string,
  which: InstructionFiles = { project: true, local: false, user: [] },
): Promise<string> {
  // User files are named by their absolute path, the workspace's relative to it.
  const names = [
    ...which.user,
    ...(which.project ? [...RULES_FILES, ...(await listCursorRules(cwd))] : []),
    ...(which.local ? [LOCAL_RULES_FILE] : []),
  ];
  const texts = await Promise.all(
    names.map((name) => {
      const file = isAbsolute(name) ? name : join(cwd, name);
      return mayExist(file) ? readFile(file, "utf8").catch(() => undefined) : undefined;
    }),
  );
  let budget = RULES_TOTAL_CAP;
  const sections: string[] = [];
  names.forEach((name, i) => {
    const text = texts[i];
    if (text === undefined || text.trim() === "" || budget <= 0) return;
    const cap = Math.min(RULES_FILE_CAP, budget);
    const body =
      text.length > cap ? `${text.slice(0, cap)}\n[... ${name} cut at ${cap} characters ...]` : text;
    budget -= Math.min(text.length, cap);
    sections.push(`## ${name}\n\n${body.trim()}`);
  });
  return sections.join("\n\n");
}

async function listCursorRules(cwd: string): Promise<string[]> {
  const dir = join(cwd, CURSOR_RULES_DIR);
  if (!mayExist(dir)) return [];
  try {
    const entries = await readdir(dir);
    return entries
      .filter((name) => name.endsWith(".md") || name.endsWith(".mdc"))
      .sort()
      .map((name) => `${CURSOR_RULES_DIR}/${name}`);
  } catch {
    return [];
  }
}
