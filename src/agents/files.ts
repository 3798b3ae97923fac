import path from "node:path";
import { readdir, readFile } from "../util/fs-async.js";
import { mayExist } from "../util/may-exist.js";
import type { ResolvedAgent } from "./definitions.js";
import { type FrontmatterValue, listField, parseFrontmatter, stringField } from "./frontmatter.js";

/** The agents of a set of folders' `*.md` files, with one warning per file that could not be used. */
export type LoadedAgentFiles = { agents: ResolvedAgent[]; warnings: string[] };

/**
 * Reads agent files (docs/agents.md): each `*.md` in `dirs` is one agent, its frontmatter `name`
 * (default: the file name), `description` (required), `tools`, `disallowedTools`, `model`,
 * `maxTurns`, `readonly`, and its body the agent's system prompt. Later folders win over earlier ones
 * for the same name; a missing folder is no agent.
 */
export async function loadAgentFiles(dirs: readonly string[]): Promise<LoadedAgentFiles> {
  const byName = new Map<string, ResolvedAgent>();
  const warnings: string[] = [];
  for (const dir of dirs) {
    const names = mayExist(dir) ? await readdir(dir).catch(() => [] as string[]) : [];
    for (const name of names.filter((entry) => entry.endsWith(".md")).sort()) {
      const file = path.join(dir, name);
      const text = await readFile(file, "utf8").catch(() => undefined);
      if (text === undefined) continue;
      try {
        const agent = agentOf(file, text);
        byName.set(agent.name, agent);
      } catch (error) {
        warnings.push(`agent file ${file} is not used: ${(error as Error).message}.`);
      }
    }
  }
  return { agents: [...byName.values()], warnings };
}

function agentOf(file: string, text: string): ResolvedAgent {
  const { data, body } = parseFrontmatter(text);
  const name = stringOf(data, "name") ?? path.basename(file, ".md");
  const description = stringOf(data, "description");
  if (!description) throw new Error("it has no description in its frontmatter");
  const tools = toolList(data, "tools");
  const disallowedTools = toolList(data, "disallowedTools") ?? toolList(data, "disallowed-tools");
  const model = stringOf(data, "model");
  const turns = stringOf(data, "maxTurns");
  const maxTurns = turns === undefined ? undefined : Number(turns);
  if (maxTurns !== undefined && (!Number.isInteger(maxTurns) || maxTurns < 1))
    throw new Error("maxTurns must be a positive whole number");
  const readonly = stringOf(data, "readonly");
  if (readonly !== undefined && readonly !== "true" && readonly !== "false")
    throw new Error("readonly must be true or false");
  return {
    name,
    source: file,
    description,
    prompt: body.trim(),
    ...(tools ? { tools } : {}),
    ...(disallowedTools ? { disallowedTools } : {}),
    ...(model ? { model } : {}),
    ...(maxTurns !== undefined ? { maxTurns } : {}),
    ...(readonly === "true" ? { readonly: true } : {}),
  };
}

function stringOf(data: Record<string, FrontmatterValue>, key: string): string | undefined {
  if (Array.isArray(data[key])) throw new Error(`${key} must be text, not a list`);
  return stringField(data, key);
}

/** `Read, Grep` or `[Read, Grep]` or a block list. */
function toolList(data: Record<string, FrontmatterValue>, key: string): string[] | undefined {
  return listField(data, key)
    ?.flatMap((item) => item.split(","))
    .map((item) => item.trim())
    .filter(Boolean);
}
