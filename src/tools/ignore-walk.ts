import type { Dirent } from "node:fs";
import path from "node:path";
import ignore, { type Ignore } from "ignore";
import { access, readdir, readFile } from "../util/fs-async.js";

/** Directories no search descends into: version-control internals and installed dependencies. */
export const ALWAYS_SKIPPED = new Set([".git", "node_modules"]);

/** Per-directory ignore files, as ripgrep reads them; later ones take precedence. */
const IGNORE_FILE_NAMES = [".gitignore", ".ignore", ".rgignore"];

/**
 * Decides whether a path under a search root is ignored, the way git (and ripgrep) would: the
 * ignore files of every directory from the repository top (or the root itself outside a repository)
 * down to the path apply, deeper files win, and nothing under an ignored directory comes back.
 * Ignore files are read lazily, once each, so only the directories actually visited cost a read.
 */
export class IgnoreFilter {
  private readonly rules = new Map<string, Promise<Ignore | null>>();
  private readonly directoryDecisions = new Map<string, Promise<boolean>>();

  private constructor(
    /** Directory whose ignore files apply first: the git top level, or the root. */
    private readonly base: string,
    /** The search root relative to `base` ("" when they are the same). */
    private readonly rootFromBase: string,
  ) {}

  static async create(root: string): Promise<IgnoreFilter> {
    const base = (await findGitTop(root)) ?? root;
    const filter = new IgnoreFilter(base, toPosix(path.relative(base, root)));
    // Searching inside an ignored directory (say `dist/`) is deliberate: then only the rules found
    // at and below the root apply, or nothing at all would come back.
    if (filter.rootFromBase && (await filter.decide(filter.rootFromBase, true)))
      return new IgnoreFilter(root, "");
    return filter;
  }

  /** `rel` is relative to the search root, "/"-separated; `isDir` matters for patterns like `build/`. */
  async ignores(rel: string, isDir: boolean): Promise<boolean> {
    const parts = rel.split("/").filter((part) => part !== "" && part !== ".");
    // Outside the root (a Glob pattern with "../"): not ours to judge.
    if (parts.length === 0 || parts.includes("..")) return false;
    if (parts.some((part) => ALWAYS_SKIPPED.has(part))) return true;
    for (let i = 1; i < parts.length; i++) {
      if (await this.directoryIgnored(parts.slice(0, i).join("/"))) return true;
    }
    const target = parts.join("/");
    return isDir ? this.directoryIgnored(target) : this.decide(this.fromBase(target), false);
  }

  /** Whether the directory itself (not its parents) is ignored; memoised, as every path below asks. */
  private directoryIgnored(rel: string): Promise<boolean> {
    let decision = this.directoryDecisions.get(rel);
    if (!decision) {
      decision = this.decide(this.fromBase(rel), true);
      this.directoryDecisions.set(rel, decision);
    }
    return decision;
  }

  private fromBase(rel: string): string {
    return this.rootFromBase ? `${this.rootFromBase}/${rel}` : rel;
  }

  /** `full` is relative to `base`. */
  private async decide(full: string, isDir: boolean): Promise<boolean> {
    const parts = full.split("/");
    // Deepest ignore file first: the first one with a rule for this path decides.
    for (let depth = parts.length - 1; depth >= 0; depth--) {
      const dir = parts.slice(0, depth).join("/");
      const rules = await this.rulesFor(dir);
      if (!rules) continue;
      const sub = parts.slice(depth).join("/");
      const result = testRules(rules, isDir ? `${sub}/` : sub);
      if (result.ignored) return true;
      if (result.unignored) return false;
    }
    return false;
  }

  private rulesFor(dirFromBase: string): Promise<Ignore | null> {
    let rules = this.rules.get(dirFromBase);
    if (!rules) {
      rules = loadRules(path.join(this.base, dirFromBase));
      this.rules.set(dirFromBase, rules);
    }
    return rules;
  }
}

/** `ignore` throws on paths it considers malformed; such a path is simply not matched. */
function testRules(rules: Ignore, rel: string): { ignored: boolean; unignored: boolean } {
  try {
    return rules.test(rel);
  } catch {
    return { ignored: false, unignored: false };
  }
}

async function loadRules(dir: string): Promise<Ignore | null> {
  const texts = await Promise.all(
    IGNORE_FILE_NAMES.map((name) => readFile(path.join(dir, name), "utf8").catch(() => "")),
  );
  const text = texts.filter(Boolean).join("\n");
  // Case-sensitive, as git and ripgrep match ignore patterns on Linux.
  return text.trim() ? ignore({ ignorecase: false }).add(text) : null;
}

/** The nearest directory at or above `start` holding `.git`, so a subdirectory search still honours the repository's ignore files. */
async function findGitTop(start: string): Promise<string | undefined> {
  let dir = start;
  for (;;) {
    if (await exists(path.join(dir, ".git"))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

async function exists(p: string): Promise<boolean> {
  try {
    await access(p);
    return true;
  } catch {
    return false;
  }
}

export function toPosix(p: string): string {
  return path.sep === "/" ? p : p.split(path.sep).join("/");
}

/** A decision that overrides the ignore files for one path (ripgrep's `--glob` overrides). */
export type Verdict = "include" | "exclude" | undefined;

export type WalkOptions = {
  signal?: AbortSignal;
  /** Checked before the ignore files: "include" keeps a path they ignore, "exclude" drops it. */
  override?: (rel: string, isDir: boolean) => Verdict;
};

/**
 * Yields the files under `root` (relative, "/"-separated) that the filter keeps, depth first with
 * each directory's entries in name order (ripgrep's `--sort path` order, so both grep engines list
 * files alike). Symbolic links are not followed, as ripgrep does not follow them by default;
 * unreadable directories are skipped.
 */
export async function* walkFiles(
  root: string,
  filter: IgnoreFilter,
  options: WalkOptions = {},
  relDir = "",
): AsyncGenerator<string> {
  if (options.signal?.aborted) return;
  let entries: Dirent[];
  try {
    entries = await readdir(path.join(root, relDir), { withFileTypes: true });
  } catch {
    return;
  }
  entries.sort((a, b) => compareNames(a.name, b.name));
  for (const entry of entries) {
    if (ALWAYS_SKIPPED.has(entry.name)) continue;
    const isDir = entry.isDirectory();
    if (!isDir && !entry.isFile()) continue;
    const rel = relDir ? `${relDir}/${entry.name}` : entry.name;
    const verdict = options.override?.(rel, isDir);
    if (verdict === "exclude") continue;
    if (verdict !== "include" && (await filter.ignores(rel, isDir))) continue;
    if (isDir) yield* walkFiles(root, filter, options, rel);
    else yield rel;
  }
}

/** Code-unit order, independent of locale. */
export function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
