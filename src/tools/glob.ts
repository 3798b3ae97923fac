import path from "node:path";
import * as z from "zod";
import { isReadDenied } from "../sandbox/denied-paths.js";
import { stat } from "../util/fs-async.js";
import { isToolGlobWildcard, literalLeadingDirectory } from "../util/glob.js";
import { BUILTIN_JSON_SCHEMAS } from "./builtin-json-schemas.js";
import { defineTool } from "./define.js";
import { globCrawlRoot, globSearch, runGlobSearch } from "./glob-search.js";
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
    paths: (args, cwd) => globPaths(cwd, args.path ?? ".", args.pattern),
  },
  payload: "glob",
  display: (args) => ({
    title: `Find ${args.pattern}${args.path ? ` in ${args.path}` : ""}`,
    kind: "search",
  }),
  description:
    'Finds files by name with a glob pattern ("**/*.ts", "src/**/index.{js,ts}") and returns their absolute paths, most recently modified first. ' +
    "The path to search may be absolute or relative to the working directory. " +
    `Skips .git, node_modules and files ignored by .gitignore; returns at most ${GLOB_MAX_RESULTS} files. Use Grep to search file contents.`,
  input,
  jsonSchema: BUILTIN_JSON_SCHEMAS.Glob,
  async run(args, ctx) {
    // The very search the permission check planned (glob-search.ts).
    const searched = globSearch(ctx.cwd, args.path ?? ".", args.pattern);
    const info = await stat(searched.root).catch(() => undefined);
    if (!info) return { content: `Directory does not exist: ${searched.root}`, isError: true };
    if (!info.isDirectory()) return { content: `${searched.root} is not a directory.`, isError: true };

    const found = await runGlobSearch(searched, ctx.signal);
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
 * What a Glob call reads: its directory, the directory its pattern names with its literal leading
 * segments (`src/lib` of `src/lib/**`, `/etc` of `/etc/*`), both as written (rules and the
 * containment check resolve them, `~` spellings included), and the directory tinyglobby really
 * crawls (glob-search.ts), which also catches a pattern that climbs out however it spells `..`
 * (`..{,}/x/*`, `..?(x)/x/*`, `.\./x/*`).
 */
function globPaths(cwd: string, dir: string, pattern: string): ToolPathAccess[] | { uncheckable: string } {
  let crawled: string;
  try {
    crawled = globCrawlRoot(globSearch(cwd, dir, pattern));
  } catch (error) {
    // tinyglobby cannot plan it (`..//`): the search would fail the same way.
    return {
      uncheckable: `the Glob pattern ${JSON.stringify(pattern)} cannot be searched: ${(error as Error).message}`,
    };
  }
  const { fixed } = literalLeadingDirectory(pattern, isToolGlobWildcard);
  const roots = [dir];
  if (path.isAbsolute(pattern)) roots.push(fixed.join("/") || "/");
  else if (fixed.length > 0) roots.push(path.join(dir, ...fixed));
  if (!roots.some((root) => resolveToolPath(cwd, root) === crawled)) roots.push(crawled);
  return roots.map((p) => ({ path: p, access: "read" }));
}
