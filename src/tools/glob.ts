import path from "node:path";
import * as z from "zod";
import { isReadDenied } from "../sandbox/denied-paths.js";
import { stat } from "../util/fs-async.js";
import { isToolGlobWildcard, literalLeadingDirectory } from "../util/glob.js";
import { BUILTIN_JSON_SCHEMAS } from "./builtin-json-schemas.js";
import { defineTool } from "./define.js";
import { IgnoreFilter } from "./ignore-walk.js";
import { sortNewestFirst } from "./mtime-sort.js";
import { resolveToolPath } from "./paths.js";
import type { ToolPathAccess } from "./types.js";

export const GLOB_MAX_RESULTS = 100;

const input = () =>
  z.object({
    pattern: z
      .string()
      .min(1)
      .describe('The glob pattern to match files against, e.g. "**/*.ts" or "src/**/*.test.ts".'),
    path: z
      .string()
      .optional()
      .describe(
        "The directory to search in: absolute, or relative to the working directory (default: the working directory).",
      ),
  });

export const globTool = defineTool({
  name: "Glob",
  effects: {
    kind: "read",
    readOnly: true,
    network: false,
    paths: (args) => globPaths(args.path ?? ".", args.pattern),
  },
  payload: "glob",
  description:
    'Finds files by name with a glob pattern ("**/*.ts", "src/**/index.{js,ts}") and returns their absolute paths, most recently modified first. ' +
    "The path to search may be absolute or relative to the working directory. " +
    `Skips .git, node_modules and files ignored by .gitignore; returns at most ${GLOB_MAX_RESULTS} files. Use Grep to search file contents.`,
  input,
  jsonSchema: BUILTIN_JSON_SCHEMAS.Glob,
  async run(args, ctx) {
    const searched = splitAbsolutePattern(resolveToolPath(ctx.cwd, args.path ?? "."), args.pattern);
    const info = await stat(searched.root).catch(() => undefined);
    if (!info) return { content: `Directory does not exist: ${searched.root}`, isError: true };
    if (!info.isDirectory()) return { content: `${searched.root} is not a directory.`, isError: true };

    // Loaded on the first search: tinyglobby (with fdir and picomatch) is not on a run's start-up path.
    const { glob } = await import("tinyglobby");
    const found = await glob(searched.pattern, {
      cwd: searched.root,
      dot: true,
      onlyFiles: true,
      expandDirectories: false,
      // Not following links keeps the search inside the tree and agrees with Grep (ripgrep's default).
      followSymbolicLinks: false,
      ignore: ["**/.git/**", "**/node_modules/**"],
      signal: ctx.signal,
    });
    const filter = await IgnoreFilter.create(searched.root);
    const kept: string[] = [];
    for (const rel of found) {
      const file = path.join(searched.root, rel);
      // A file the settings deny reading is not listed (sandbox filesystem.denyRead).
      if (!(await filter.ignores(rel, false)) && !isReadDenied(ctx.sandbox, file)) kept.push(file);
    }

    const sorted = await sortNewestFirst(kept);
    const files = sorted.slice(0, GLOB_MAX_RESULTS);
    const truncated = sorted.length > files.length;
    let content = files.length ? files.join("\n") : "No files found";
    if (truncated) {
      content += `\n(Results are truncated: showing the ${files.length} most recently modified of ${sorted.length} files. Use a more specific path or pattern.)`;
    }
    return {
      content,
      data: { pattern: args.pattern, path: searched.root, files, totalFiles: sorted.length, truncated },
    };
  },
});

/**
 * An absolute pattern ("/repo/src/**\/*.ts") searches from its fixed leading directories, whatever
 * `path` says, as the model clearly meant that directory. The permission check finds the same
 * directory (`globSearchRoot`): both use src/util/glob.ts.
 */
function splitAbsolutePattern(root: string, pattern: string): { root: string; pattern: string } {
  if (!path.isAbsolute(pattern)) return { root, pattern };
  const { fixed, rest } = literalLeadingDirectory(pattern, isToolGlobWildcard);
  return { root: fixed.join("/") || "/", pattern: rest.join("/") };
}

/**
 * What a Glob call reads: its directory and, when the pattern starts with literal directories
 * (`../x/**`, `/etc/*`), the directory the pattern really searches. A pattern that climbs out with
 * `..` after a wildcard cannot be checked.
 */
function globPaths(base: string, pattern: string): ToolPathAccess[] | { uncheckable: string } {
  const root = globSearchRoot(base, pattern);
  if (root === undefined)
    return {
      uncheckable: `the Glob pattern ${JSON.stringify(pattern)} climbs out of its directory with ".."`,
    };
  const roots = root === base ? [base] : [base, root];
  return roots.map((p) => ({ path: p, access: "read" }));
}

/** The directory a glob pattern searches: its path plus the pattern's literal leading segments. */
function globSearchRoot(base: string, pattern: string): string | undefined {
  const { fixed, rest } = literalLeadingDirectory(pattern, isToolGlobWildcard);
  if (rest.some((segment) => segment === "..")) return undefined;
  if (fixed.length === 0 && !path.isAbsolute(pattern)) return base;
  const prefix = fixed.join("/") || "/";
  return path.isAbsolute(pattern) ? prefix : path.join(base, prefix);
}
