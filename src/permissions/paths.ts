import { lstatSync, readlinkSync } from "node:fs";
import os from "node:os";
import path from "node:path";

/**
 * Path containment: where a path really points, and whether that is inside the workspace.
 *
 * Every check here works on path components, never on string prefixes (`/ws-evil` is not inside
 * `/ws`), and follows symbolic links the way the kernel does, component by component, including
 * dangling links (a new file written through a link to `/etc/x` lands in `/etc`) and loops (refused).
 */

/** Most symbolic links followed while resolving one path (Linux's own limit is 40). */
const MAX_LINK_HOPS = 40;

export type ResolvedPath = {
  /** The absolute path as given, normalised lexically (what `path.resolve` and the file tools use). */
  lexical: string;
  /** Where it really points: every existing symlink followed; the part that does not exist yet appended. */
  real: string;
  /** Whether the full path exists. */
  exists: boolean;
};

export class PathResolutionError extends Error {
  constructor(
    readonly path: string,
    readonly reason: "loop" | "home",
  ) {
    super(
      reason === "loop"
        ? `${path} cannot be resolved: too many levels of symbolic links`
        : `${path} names another user's home directory`,
    );
    this.name = "PathResolutionError";
  }
}

/**
 * Follows `absolute` component by component like the kernel: `..` applies to the real directory
 * reached so far (so `link/..` leaves the link's target, not the link's parent). Components past
 * the deepest existing one are appended as written.
 */
export function resolvePhysical(absolute: string): { real: string; exists: boolean } {
  const pending = splitComponents(absolute);
  let current = path.parse(absolute).root || "/";
  let hops = 0;
  let missing = false;
  while (pending.length > 0) {
    const part = pending.shift()!;
    if (part === "" || part === ".") continue;
    if (part === "..") {
      current = path.dirname(current);
      continue;
    }
    const next = path.join(current, part);
    if (missing) {
      current = next;
      continue;
    }
    let isLink = false;
    try {
      isLink = lstatSync(next).isSymbolicLink();
    } catch {
      // ENOENT, ENOTDIR, EACCES: nothing (visible) exists from here on.
      missing = true;
      current = next;
      continue;
    }
    if (!isLink) {
      current = next;
      continue;
    }
    hops += 1;
    if (hops > MAX_LINK_HOPS) throw new PathResolutionError(absolute, "loop");
    const target = readlinkSync(next);
    pending.unshift(...splitComponents(target));
    if (path.isAbsolute(target)) current = path.parse(target).root || "/";
  }
  return { real: current, exists: !missing };
}

function splitComponents(p: string): string[] {
  return p.split(/[\\/]+/).filter((part) => part !== "");
}

/**
 * Expands a leading `~` or `~/` to `home`. Other tilde forms (`~user`, `~+`, `~-`) cannot be
 * resolved safely and throw.
 */
export function expandHome(p: string, home: string): string {
  if (p === "~") return home;
  if (p.startsWith("~/")) return path.join(home, p.slice(2));
  if (p.startsWith("~")) throw new PathResolutionError(p, "home");
  return p;
}

/** Resolves a path the way a file tool would (relative to `cwd`), then physically. */
export function resolvePath(p: string, cwd: string): ResolvedPath {
  const lexical = path.resolve(cwd, p);
  const { real, exists } = resolvePhysical(lexical);
  return { lexical, real, exists };
}

/** True when `child` is `root` or below it, compared by path components. */
export function isInside(root: string, child: string): boolean {
  const rel = path.relative(root, child);
  if (rel === "") return true;
  if (path.isAbsolute(rel)) return false;
  return rel.split(path.sep)[0] !== "..";
}

/** The root (of `roots`) that contains `p`, if any. */
export function containingRoot(roots: readonly string[], p: string): string | undefined {
  return roots.find((root) => isInside(root, p));
}

/** Real path of a directory given as a root (workspace, `--add-dir`); it need not exist. */
export function resolveRoot(dir: string, cwd: string = process.cwd()): string {
  return resolvePhysical(path.resolve(cwd, expandHome(dir, os.homedir()))).real;
}

export type PathCheck = {
  /** Lexical and real forms of every spelling considered (as written, and `~`-expanded when it differs). */
  candidates: ResolvedPath[];
  /** True when every candidate, lexical and real, lies inside one of the roots. */
  contained: boolean;
  /** When not contained: the spelling that escapes, for messages. */
  escape?: string;
  /** Set when the path cannot be resolved (symlink loop, `~user`): treat as not contained. */
  error?: string;
};

/**
 * Checks a path argument of a file tool. The tools resolve `~` literally (a folder named `~`), a
 * shell or a later tool version might expand it: both spellings must stay inside.
 */
export function checkContainment(
  p: string,
  options: { cwd: string; roots: readonly string[]; home: string },
): PathCheck {
  const spellings = [p];
  if (p.startsWith("~")) {
    try {
      spellings.push(expandHome(p, options.home));
    } catch (error) {
      return { candidates: [], contained: false, escape: p, error: (error as Error).message };
    }
  }
  const candidates: ResolvedPath[] = [];
  for (const spelling of spellings) {
    try {
      candidates.push(resolvePath(spelling, options.cwd));
    } catch (error) {
      return { candidates, contained: false, escape: spelling, error: (error as Error).message };
    }
  }
  for (const candidate of candidates) {
    for (const form of [candidate.lexical, candidate.real]) {
      if (!containingRoot(options.roots, form)) return { candidates, contained: false, escape: form };
    }
  }
  return { candidates, contained: true };
}

// ---------------------------------------------------------------------------------------------------
// Protected paths
// ---------------------------------------------------------------------------------------------------

/** Shell start-up files: whoever can write them runs code in the user's next shell. */
export const SHELL_RC_FILES: readonly string[] = [
  ".bashrc",
  ".bash_profile",
  ".bash_login",
  ".bash_logout",
  ".profile",
  ".zshrc",
  ".zshenv",
  ".zprofile",
  ".zlogin",
  ".zlogout",
  ".cshrc",
  ".tcshrc",
  ".kshrc",
  ".mkshrc",
  ".envrc",
];

export type ProtectedMatch = { path: string; what: string };

/** Directories whose whole content is protected, with what they hold. */
const PROTECTED_DIRS: Record<string, string> = {
  ".cairn": "cairn's project config",
  ".ssh": "ssh configuration and keys",
  ".vscode": "editor tasks and settings (.vscode)",
  ".husky": "git hooks (.husky)",
  ".claude": "another agent's config (.claude)",
  ".cursor": "another agent's config (.cursor)",
  ".codex": "another agent's config (.codex)",
};

/**
 * Whether writing `p` (an absolute path) touches a protected location. Matched on path components
 * anywhere in the path, so the rule also holds in nested repositories and before the file exists:
 * - `.git/**` (hooks and config run code; nothing else in `.git` is the model's to write),
 * - `.cairn/**` (project permissions) and `cairnHome/**` (user config, transcripts),
 * - shell start-up files (`.bashrc`, `.zshrc`, `.profile`, ..., `.envrc`), `fish/config.fish`,
 * - `.ssh/**`, `.gitconfig`, `.config/git/**`, `.vscode/**` (tasks run code), `.husky/**` (git
 *   hooks), and other agents' config directories (`.claude/**`, `.cursor/**`, `.codex/**`).
 *
 * Components are compared without regard to case: on a case-insensitive file system (macOS,
 * Windows, a casefolded ext4 directory) `.GIT/hooks` is `.git/hooks`. Telling such directories
 * apart would need a probe per directory (and mounts differ within one tree); on a case-sensitive
 * one the cost is asking about a file named `.Git/x`.
 */
export function protectedPath(p: string, cairnHome: string): ProtectedMatch | undefined {
  if (isInside(cairnHome.toLowerCase(), p.toLowerCase()))
    return { path: p, what: "cairn's home directory (user config, transcripts)" };
  const parts = p
    .split(path.sep)
    .filter(Boolean)
    .map((part) => part.toLowerCase());
  const base = parts.at(-1) ?? "";
  for (let i = 0; i < parts.length; i += 1) {
    const part = parts[i]!;
    if (part === ".git") {
      const next = parts[i + 1];
      const what =
        next === "hooks" ? "git hooks" : next === "config" ? "the git config" : "the git directory";
      return { path: p, what };
    }
    const dir = PROTECTED_DIRS[part];
    if (dir) return { path: p, what: dir };
    if (part === ".config" && parts[i + 1] === "git") return { path: p, what: "the user's git config" };
  }
  if (SHELL_RC_FILES.includes(base)) return { path: p, what: `a shell start-up file (${base})` };
  if (base === ".gitconfig") return { path: p, what: "the user's git config" };
  if (base === "config.fish" && parts.at(-2) === "fish") return { path: p, what: "a shell start-up file" };
  return undefined;
}
