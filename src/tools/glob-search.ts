import path from "node:path";
import type { FileSystemAdapter, GlobOptions } from "tinyglobby";
import { isToolGlobWildcard, literalLeadingDirectory } from "../util/glob.js";
import { lazyRequire } from "../util/lazy-require.js";
import { resolveToolPath } from "./paths.js";

/**
 * One Glob search, for the Glob tool and for the permission check of its calls alike: where it
 * starts, what it matches, and — asked of tinyglobby itself — the directory it reads. Patterns can
 * leave their directory in more ways than a literal `../`: a brace or extglob that yields `..`
 * (`..{,}/x/*`, `..?(x)/x/*`), `..*`, an escaped dot (`.\./x/*`). tinyglobby moves its crawl up for
 * such a pattern, so the check must not guess: it makes tinyglobby plan the very search the tool
 * will run, with the same options, and records where the crawl starts (docs/security.md#glob).
 */

// tinyglobby (with fdir and picomatch) loads on the first Glob call or check, off a run's start-up
// path; required (it is CommonJS too) because the permission check is synchronous, and the tool
// uses the same copy.
const require = lazyRequire(import.meta.url);
type Tinyglobby = typeof import("tinyglobby");
let loaded: Tinyglobby | undefined;
function tinyglobby(): Tinyglobby {
  loaded ??= require("tinyglobby") as Tinyglobby;
  return loaded;
}

/** The Glob tool's options: every search and every dry run of one uses exactly these. */
const SEARCH_OPTIONS = {
  dot: true,
  onlyFiles: true,
  expandDirectories: false,
  // Not following links keeps the search inside the tree and agrees with Grep (ripgrep's default).
  followSymbolicLinks: false,
  ignore: ["**/.git/**", "**/node_modules/**"],
} as const satisfies GlobOptions;

export type GlobSearch = {
  /** The directory the pattern is matched from (tinyglobby's `cwd`), absolute. */
  root: string;
  pattern: string;
};

/**
 * The search a Glob call runs: `pattern` under `dir` (relative to `cwd`). An absolute pattern
 * (`/repo/src/**\/*.ts`) searches from its literal leading directories, whatever `dir` says, as the
 * model clearly meant that directory.
 */
export function globSearch(cwd: string, dir: string, pattern: string): GlobSearch {
  const root = resolveToolPath(cwd, dir);
  if (!path.isAbsolute(pattern)) return { root, pattern };
  const { fixed, rest } = literalLeadingDirectory(pattern, isToolGlobWildcard);
  return { root: fixed.join("/") || "/", pattern: rest.join("/") };
}

/** Runs the search: paths relative to `search.root` (a climbing pattern's start with `../`). */
export function runGlobSearch(search: GlobSearch, signal: AbortSignal): Promise<string[]> {
  return tinyglobby().glob(search.pattern, { ...SEARCH_OPTIONS, cwd: search.root, signal });
}

/**
 * The directory the search reads, absolute: every name it can list is inside it. tinyglobby plans
 * the search (its root, moved up for a leading `..` however the pattern spells it, and down to the
 * pattern's literal directories) and crawls from there; this runs that plan with a file system
 * that lists nothing and keeps the first directory asked for.
 */
export function globCrawlRoot(search: GlobSearch): string {
  let crawled: string | undefined;
  const listNothing = ((dir: string) => {
    crawled ??= dir;
    return [];
  }) as unknown as FileSystemAdapter["readdirSync"];
  tinyglobby().globSync(search.pattern, {
    ...SEARCH_OPTIONS,
    cwd: search.root,
    fs: { readdirSync: listNothing },
  });
  return path.resolve(search.root, crawled ?? ".");
}
