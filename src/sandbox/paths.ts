import { type Dirent, readdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { SHELL_RC_FILES } from "../permissions/paths.js";

/**
 * Inside every writable root, these stay read-only under the sandbox, also with `--force`: writing
 * them runs code later, outside the sandbox (git hooks and config, and `commondir`, which points git
 * at another directory's config and hooks; husky's hooks; direnv's `.envrc`; the project settings of
 * cairn and of the other agents, which name hooks and commands; editor tasks). The rest of `.git`
 * stays writable: commits, checkouts and stashes write it. The checker asks about all of `.git`.
 */
export const PROTECTED_IN_EVERY_ROOT: readonly string[] = [
  ".git/hooks",
  ".git/config",
  ".git/config.worktree",
  ".git/commondir",
  ".husky",
  ".envrc",
  ".cairn",
  ".claude",
  ".cursor",
  ".codex",
  ".vscode",
];

/** How deep and how many submodule git directories are looked for (nested submodules included). */
const MAX_MODULE_DEPTH = 8;
const MAX_MODULES = 256;

/**
 * Inside `<root>/.git`, what points git elsewhere per submodule and linked worktree: each submodule's
 * git directory under `modules` (names may hold slashes; a submodule's own submodules are in its
 * `modules`) with its config and hooks, which run code when git works in the submodule, `git status`
 * of the repository above included; and each linked worktree's `commondir` and `config.worktree`
 * under `worktrees`. Looked for at each command, since a command may add either.
 */
export function nestedGitPaths(root: string): string[] {
  return [...submoduleGitPaths(root), ...worktreeGitPaths(root)];
}

function worktreeGitPaths(root: string): string[] {
  const dir = path.join(root, ".git", "worktrees");
  let names: string[];
  try {
    names = readdirSync(dir).slice(0, MAX_MODULES);
  } catch {
    return [];
  }
  return names.flatMap((name) => [
    path.join(dir, name, "commondir"),
    path.join(dir, name, "config.worktree"),
  ]);
}

function submoduleGitPaths(root: string): string[] {
  const found: string[] = [];
  const visit = (dir: string, depth: number) => {
    if (depth > MAX_MODULE_DEPTH || found.length >= MAX_MODULES * 2) return;
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    if (entries.some((entry) => entry.name === "HEAD" && entry.isFile())) {
      found.push(path.join(dir, "config"), path.join(dir, "hooks"), path.join(dir, "commondir"));
      visit(path.join(dir, "modules"), depth + 1);
      return;
    }
    for (const entry of entries) if (entry.isDirectory()) visit(path.join(dir, entry.name), depth + 1);
  };
  visit(path.join(root, ".git", "modules"), 0);
  return found;
}

/** Read-only too when a writable root holds them (the workspace is the home directory, say). */
function protectedInHome(home: string): string[] {
  return [
    ...SHELL_RC_FILES.map((name) => path.join(home, name)),
    path.join(home, ".gitconfig"),
    path.join(home, ".config", "git"),
    path.join(home, ".config", "fish"),
    path.join(home, ".ssh"),
  ];
}

/**
 * Credentials commands have no business reading: replaced by an empty read-only file or directory in
 * the sandbox when they exist. A short list of the usual places, not a guarantee (docs/security.md).
 */
function secretsInHome(home: string): string[] {
  return [
    ".ssh",
    ".aws",
    ".azure",
    ".gnupg",
    ".kube",
    ".docker/config.json",
    ".netrc",
    ".git-credentials",
    ".pypirc",
    ".config/gh",
    ".config/gcloud",
  ].map((name) => path.join(home, name));
}

/**
 * Host IPC the network namespace does not cover: a Unix socket on a read-only path can still be
 * connected to. These give a command root (the container engines) or the user's session (D-Bus,
 * the ssh and gpg agents under the runtime directory); covered by an empty file or directory.
 */
function hostSockets(env: NodeJS.ProcessEnv): string[] {
  const uid = process.getuid?.();
  const unixPath = (address: string | undefined, prefix: string) =>
    address?.startsWith(prefix) ? address.slice(prefix.length).split(",")[0] : undefined;
  return [
    "/run/docker.sock",
    "/var/run/docker.sock",
    "/run/containerd/containerd.sock",
    "/run/podman/podman.sock",
    "/run/dbus/system_bus_socket",
    ...(uid === undefined ? [] : [`/run/user/${uid}`]),
    env.XDG_RUNTIME_DIR,
    env.SSH_AUTH_SOCK,
    unixPath(env.DOCKER_HOST, "unix://"),
    unixPath(env.DBUS_SESSION_BUS_ADDRESS, "unix:path="),
  ].filter((p): p is string => typeof p === "string" && path.isAbsolute(p));
}

export type SandboxPaths = {
  /** Read-only even inside a writable root; a missing one cannot be created. */
  protectedPaths: string[];
  /** Replaced by an empty read-only file or directory when they exist. */
  hiddenPaths: string[];
};

/**
 * The protected and hidden paths for these writable roots. cairn's home (user config with keys,
 * transcripts) is both: hidden from reads, and not writable when a root holds it.
 */
export function sandboxPaths(
  writableRoots: readonly string[],
  context: { cairnHome: string; home?: string; env: NodeJS.ProcessEnv },
): SandboxPaths {
  const home = context.home ?? os.homedir();
  const inRoots = (p: string) => writableRoots.some((root) => isInsideOrSame(root, p));
  const perRoot = writableRoots.flatMap((root) => PROTECTED_IN_EVERY_ROOT.map((rel) => path.join(root, rel)));
  const homeLevel = [...protectedInHome(home), context.cairnHome].filter(inRoots);
  return {
    protectedPaths: [...new Set([...perRoot, ...homeLevel])],
    hiddenPaths: [...new Set([...secretsInHome(home), context.cairnHome, ...hostSockets(context.env)])],
  };
}

export function isInsideOrSame(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}
