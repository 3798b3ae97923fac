import os from "node:os";
import path from "node:path";
import { resolvePhysical, SHELL_RC_FILES } from "../permissions/paths.js";
import { bridgedArgv } from "./network-bridge.js";
import { isInsideOrSame, nestedGitPaths } from "./paths.js";
import {
  claimingPlaceholders,
  emptyDir,
  emptyFile,
  kindOf,
  missingFileSource,
  type PlaceholderKind,
} from "./placeholders.js";
import type { SandboxPolicy } from "./policy.js";

/**
 * bubblewrap argv for one shell command. The mounts, in order (a later mount covers an earlier one):
 * the whole file system read-only; a fresh /dev and a /proc of the command's own PID namespace (so
 * cairn's /proc/<pid>/environ is out of sight); private, writable /tmp (and $TMPDIR); the writable
 * roots; the protected paths (and `writeDenied`) read-only over them; the hidden paths (and
 * `readDenied`) replaced by empty read-only ones. With a domain list, the proxy's socket is bound in
 * and the command runs behind the bridge to it (network-bridge.ts).
 *
 * A protected path that does not exist yet is covered at its first missing component by an empty
 * read-only directory or file, so it cannot be created either. bubblewrap has to create that mount
 * point in the (writable) root; `release()` removes it again once no command of any cairn process
 * uses it. Commands run side by side (the hooks of one event, SDK queries, other cairn processes in
 * the same workspace), so each covers the others' placeholders as missing and holds them too.
 * Every directory between a root and a protected path is bound onto itself as well: a mount point
 * cannot be renamed or removed, so
 * `mv .git .git2 && mkdir -p .git/hooks` cannot sidestep the protection.
 */
export function bwrapCommand(
  policy: SandboxPolicy,
  bwrapPath: string,
  shellArgv: string[],
  cwd: string,
): { file: string; args: string[]; release(): void } {
  const args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"];
  for (const dir of privateTempDirs(policy.writableRoots)) args.push("--tmpfs", dir);
  for (const root of policy.writableRoots) args.push("--bind", root, root);
  const { result, release } = claimingPlaceholders((kindOf) =>
    mountArgs(policy, kindOf, args, shellArgv, cwd),
  );
  return { file: bwrapPath, args: result, release };
}

function mountArgs(
  policy: SandboxPolicy,
  placeholderKind: PlaceholderKind,
  args: string[],
  shellArgv: string[],
  cwd: string,
): string[] {
  const selfBound = new Set<string>();
  const covered = new Set<string>();
  const nested = policy.writableRoots.flatMap((root) => nestedGitPaths(root));
  // A path the settings deny writing is protected like the built-in ones.
  for (const protectedPath of [...policy.protectedPaths, ...nested, ...policy.writeDenied]) {
    // Mounts go where the path really leads: over a symlink's target (a dangling one included),
    // which needs covering only when it lies in a writable root.
    const target = realPath(protectedPath);
    const root = target && policy.writableRoots.find((r) => isInsideOrSame(r, target));
    if (!target || !root) continue;
    const cover = coverFor(root, target, placeholderKind);
    if (covered.has(cover.path)) continue;
    covered.add(cover.path);
    for (const dir of cover.ancestors) {
      if (selfBound.has(dir)) continue;
      selfBound.add(dir);
      args.push("--bind", dir, dir);
    }
    if (cover.kind === "existing") args.push("--ro-bind", cover.path, cover.path);
    else
      args.push(
        "--ro-bind",
        cover.kind === "missing-file" ? missingFileSource(cover.path) : emptyDir(),
        cover.path,
      );
  }
  // A path the settings deny reading is hidden like the credential stores.
  for (const hiddenPath of [...policy.hiddenPaths, ...policy.readDenied]) {
    const hidden = realPath(hiddenPath);
    const kind = hidden ? kindOf(hidden) : "missing";
    if (hidden && kind !== "missing")
      args.push("--ro-bind", kind === "dir" ? emptyDir() : emptyFile(), hidden);
  }
  // Run as root (CI containers), bubblewrap keeps every capability unless told: the command could
  // unmount the protections, remount / writable, or undo the /proc that hides cairn's environment.
  args.push("--cap-drop", "ALL", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--die-with-parent");
  if (!policy.network) args.push("--unshare-net");
  // A domain list: the only way out is the run's proxy, through its socket and the bridge to it.
  const socket = policy.network ? undefined : policy.proxy?.socketPath;
  if (socket && policy.bridgeNode) {
    args.push("--bind", socket, socket);
    // The node that runs the bridge may live where the sandbox shows nothing (a private /tmp, a
    // hidden directory): its binary is shown, read-only, where it is.
    const node = realPath(policy.bridgeNode) ?? policy.bridgeNode;
    args.push("--ro-bind", node, node);
    args.push("--chdir", cwd, "--", ...bridgedArgv(policy.bridgeNode, socket, shellArgv));
    return args;
  }
  args.push("--chdir", cwd, "--", ...shellArgv);
  return args;
}

type Cover =
  | { kind: "existing"; path: string; ancestors: string[] }
  | { kind: "missing-dir" | "missing-file"; path: string; ancestors: string[] };

/**
 * What to mount to protect `target` inside `root`: the target itself when it exists; else its first
 * missing component, or the first component that is not a directory (a `.git` file of a worktree).
 */
function coverFor(root: string, target: string, placeholderKind: PlaceholderKind): Cover {
  const parts = path.relative(root, target).split(path.sep);
  const ancestors: string[] = [];
  let current = root;
  for (let i = 0; i < parts.length; i++) {
    current = path.join(current, parts[i]!);
    // Another command's placeholder counts as missing: it goes away when that command ends.
    const kind = placeholderKind(current);
    const last = i === parts.length - 1;
    if (kind === "missing") {
      return {
        kind: last && isFileName(parts[i]!) ? "missing-file" : "missing-dir",
        path: current,
        ancestors,
      };
    }
    if (last || kind !== "dir") return { kind: "existing", path: current, ancestors };
    ancestors.push(current);
  }
  return { kind: "existing", path: current, ancestors };
}

/** Protected names that are files where they exist (`.bashrc`, `.git/config`); the rest are directories. */
function isFileName(name: string): boolean {
  return (
    SHELL_RC_FILES.includes(name) || [".gitconfig", "config", "config.worktree", "commondir"].includes(name)
  );
}

/** Every symbolic link followed (missing components appended); undefined for a loop. */
function realPath(p: string): string | undefined {
  try {
    return resolvePhysical(p).real;
  } catch {
    return undefined;
  }
}

/** /tmp, and $TMPDIR when it is elsewhere, unless a writable root is there (it is bound over it). */
function privateTempDirs(writableRoots: readonly string[]): string[] {
  const dirs = new Set(["/tmp"]);
  const tmp = os.tmpdir();
  if (kindOf(tmp) === "dir") dirs.add(tmp);
  return [...dirs].filter((dir) => !writableRoots.some((root) => isInsideOrSame(root, dir)));
}
