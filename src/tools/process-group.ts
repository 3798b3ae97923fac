import { constants } from "node:fs";
import path from "node:path";
import { access } from "../util/fs-async.js";

let shellLookup: Promise<string> | undefined;

/**
 * bash from the commands' PATH (looked up once per process), else the POSIX `/bin/sh`: commands the
 * model writes usually assume bash.
 */
export function findShell(searchPath: string): Promise<string> {
  shellLookup ??= findOnPath("bash", searchPath).then((found) => found ?? "/bin/sh");
  return shellLookup;
}

/** The absolute path of an executable on PATH, like `command -v`. */
export async function findOnPath(name: string, searchPath: string): Promise<string | undefined> {
  for (const dir of searchPath.split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    try {
      await access(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here; keep looking
    }
  }
  return undefined;
}

/**
 * Signals every process in the group led by `pid` (children spawned with `detached: true` lead their
 * own group), so a command's background jobs and pipelines stop with it. False when none is left.
 */
export function signalGroup(pid: number, signal: NodeJS.Signals | 0): boolean {
  // -0 is 0: cairn's own process group, the user's shell job with it. Never a child's group.
  if (!Number.isInteger(pid) || pid <= 1) return false;
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}

/** Grace between SIGTERM and SIGKILL, so well-behaved programs can clean up. */
export const KILL_GRACE_MS = 2000;

/** How often a stopping group is checked for being gone. */
const GONE_POLL_MS = 50;

/**
 * Stops a process group: SIGTERM now, SIGKILL after the grace if anything of the group is left.
 * The group is polled meanwhile, so the pending SIGKILL holds the event loop only while something
 * of the group is still alive (an SDK host process is not kept waiting for the full grace).
 * Returns a function that cancels the pending SIGKILL.
 */
export function stopGroup(pid: number): () => void {
  signalGroup(pid, "SIGTERM");
  const deadline = Date.now() + KILL_GRACE_MS;
  let timer: NodeJS.Timeout | undefined;
  const check = () => {
    if (!signalGroup(pid, 0)) return;
    if (Date.now() >= deadline) {
      signalGroup(pid, "SIGKILL");
      return;
    }
    timer = setTimeout(check, Math.min(GONE_POLL_MS, deadline - Date.now()));
  };
  timer = setTimeout(check, GONE_POLL_MS);
  return () => clearTimeout(timer);
}
