import type { Dirent } from "node:fs";
import path from "node:path";
import ignore from "ignore";
import * as z from "zod";
import { isReadDenied } from "../sandbox/denied-paths.js";
import { readdir, stat } from "../util/fs-async.js";
import { BUILTIN_JSON_SCHEMAS } from "./builtin-json-schemas.js";
import { defineTool } from "./define.js";
import { ALWAYS_SKIPPED, compareNames, IgnoreFilter } from "./ignore-walk.js";
import { resolveToolPath } from "./paths.js";

export const LS_MAX_ENTRIES = 1000;

const input = () =>
  z.object({
    path: z
      .string()
      .min(1)
      .describe(
        "The directory to list: an absolute path (relative paths resolve against the working directory).",
      ),
    ignore: z
      .array(z.string())
      .optional()
      .describe('Glob patterns of entries to leave out, e.g. ["*.log", "dist"].'),
  });

type EntryType = "file" | "directory" | "symlink";
type Entry = { name: string; type: EntryType };

export const lsTool = defineTool({
  name: "LS",
  effects: {
    kind: "read",
    readOnly: true,
    network: false,
    paths: (args) => [{ path: args.path, access: "read" }],
  },
  payload: "ls",
  display: (args) => ({ title: `List ${args.path}`, kind: "search" }),
  description:
    "Lists a directory as a tree, directories marked with a trailing `/`. " +
    "The path should be absolute; a relative path resolves against the working directory. " +
    "Shows subdirectories' contents too, nearest levels first, up to " +
    `${LS_MAX_ENTRIES} entries; does not expand .git, node_modules or directories ignored by .gitignore. ` +
    "Prefer Glob and Grep to find files by name or content.",
  input,
  jsonSchema: BUILTIN_JSON_SCHEMAS.LS,
  async run(args, ctx) {
    const root = resolveToolPath(ctx.cwd, args.path);
    const info = await stat(root).catch(() => undefined);
    if (!info) return { content: `Directory does not exist: ${root}`, isError: true };
    if (!info.isDirectory()) {
      return { content: `${root} is a file, not a directory. Use the Read tool to read it.`, isError: true };
    }
    // What the settings deny reading is left out, its contents too (sandbox filesystem.denyRead).
    const hidden = (rel: string) => isReadDenied(ctx.sandbox, path.join(root, rel));
    const { children, truncated } = await collect(root, args.ignore ?? [], ctx.signal, hidden);
    const entries: Entry[] = [];
    const lines = [`- ${root}${root.endsWith("/") ? "" : "/"}`];
    const render = (relDir: string, depth: number) => {
      for (const entry of children.get(relDir) ?? []) {
        entries.push(entry);
        const base = entry.name.slice(entry.name.lastIndexOf("/") + 1);
        lines.push(`${"  ".repeat(depth)}- ${base}${entry.type === "directory" ? "/" : ""}`);
        if (entry.type === "directory") render(entry.name, depth + 1);
      }
    };
    render("", 1);
    if (entries.length === 0) lines.push("  (empty directory)");
    if (truncated) {
      lines.push(
        `[Listing truncated at ${LS_MAX_ENTRIES} entries. List a subdirectory, or use Glob, to see more.]`,
      );
    }
    return { content: lines.join("\n"), data: { path: root, entries, truncated } };
  },
});

/**
 * Breadth first, so a cut at the entry limit keeps the levels nearest the root rather than the
 * depths of the first subdirectory.
 */
async function collect(
  root: string,
  ignorePatterns: string[],
  signal: AbortSignal,
  hidden: (rel: string) => boolean,
) {
  const userIgnore = ignore().add(ignorePatterns);
  const gitignore = await IgnoreFilter.create(root);
  const children = new Map<string, Entry[]>();
  const queue: string[] = [""];
  let count = 0;
  let truncated = false;
  while (queue.length > 0 && !truncated && !signal.aborted) {
    const relDir = queue.shift()!;
    let dirents: Dirent[];
    try {
      dirents = await readdir(path.join(root, relDir), { withFileTypes: true });
    } catch {
      continue; // unreadable: shown as a directory without contents
    }
    dirents.sort((a, b) => compareNames(a.name, b.name));
    const list: Entry[] = [];
    for (const dirent of dirents) {
      const rel = relDir ? `${relDir}/${dirent.name}` : dirent.name;
      const type: EntryType = dirent.isSymbolicLink()
        ? "symlink"
        : dirent.isDirectory()
          ? "directory"
          : "file";
      if (userIgnore.ignores(type === "directory" ? `${rel}/` : rel) || hidden(rel)) continue;
      if (count >= LS_MAX_ENTRIES) {
        truncated = true;
        break;
      }
      count += 1;
      list.push({ name: rel, type });
      if (type === "directory" && !ALWAYS_SKIPPED.has(dirent.name) && !(await gitignore.ignores(rel, true))) {
        queue.push(rel);
      }
    }
    children.set(relDir, list);
  }
  return { children, truncated };
}
