import { readdirSync, readFileSync } from "node:fs";
import { KILL_GRACE_MS } from "./process-group.js";

/** Environment variable carrying a run's tag into every process its commands start. */
export const RUN_TAG_VAR = "CAIRN_RUN_TAG";

/** Set to 1 in cairn's environment, background jobs that outlive a command may outlive the run too. */
export const KEEP_JOBS_VAR = "CAIRN_KEEP_BACKGROUND_JOBS";

const POLL_MS = 50;

/**
 * The tags some command's environment has carried (`taggedEnvironment`): only those runs can have
 * left a tagged process behind, so only those need the scan of /proc when they end (it reads every
 * process's environment, about 1.5 ms a run here: an SDK query that ran no command skips it).
 */
const handedOut = new Set<string>();

/** `env` plus the run's tag, for a process a command of the run starts. */
export function taggedEnvironment(env: NodeJS.ProcessEnv, runTag: string): NodeJS.ProcessEnv {
  handedOut.add(runTag);
  return { ...env, [RUN_TAG_VAR]: runTag };
}

/**
 * Stops what the run's commands left running: every process whose environment carries the run's tag
 * (found through /proc on Linux, so jobs that left the command's process group with `setsid` or
 * `nohup … &` are found too). SIGTERM, then SIGKILL after the grace for those still there. A process
 * that cleared its environment (`env -i`) is not found: the sandbox's PID namespace is the boundary
 * that holds for those (docs/security.md). Does nothing when the user opted in to keeping jobs.
 */
export async function stopRunProcesses(runTag: string, env: NodeJS.ProcessEnv): Promise<void> {
  if (env[KEEP_JOBS_VAR] === "1" || !handedOut.has(runTag)) return;
  try {
    let pids = taggedProcesses(runTag);
    if (pids.length === 0) return;
    for (const pid of pids) signal(pid, "SIGTERM");
    const deadline = Date.now() + KILL_GRACE_MS;
    while (Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      pids = taggedProcesses(runTag);
      if (pids.length === 0) return;
    }
    for (const pid of pids) signal(pid, "SIGKILL");
  } finally {
    // The run has ended: its tag is not handed out again (a command started later tags it anew).
    handedOut.delete(runTag);
  }
}

/**
 * The last resort when cairn exits without winding down (a second Ctrl-C, the forced exit after a
 * signal): SIGKILL for every tagged process, synchronously, from an `exit` handler.
 */
export function killRunProcessesOnExit(runTag: string, env: NodeJS.ProcessEnv): () => void {
  const onExit = () => {
    if (env[KEEP_JOBS_VAR] === "1") return;
    for (const pid of taggedProcesses(runTag)) signal(pid, "SIGKILL");
  };
  process.once("exit", onExit);
  return () => process.off("exit", onExit);
}

/** Pids of this user's live processes whose environment holds `CAIRN_RUN_TAG=<runTag>`. */
export function taggedProcesses(runTag: string): number[] {
  let names: string[];
  try {
    names = readdirSync("/proc");
  } catch {
    return []; // no /proc (macOS): only the process group is stopped
  }
  const needle = Buffer.from(`${RUN_TAG_VAR}=${runTag}\0`);
  const found: number[] = [];
  for (const name of names) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    let environ: Buffer;
    try {
      environ = readFileSync(`/proc/${name}/environ`);
    } catch {
      continue; // gone, or another user's
    }
    const at = environ.indexOf(needle);
    if (at === 0 || (at > 0 && environ[at - 1] === 0)) found.push(Number(name));
  }
  return found;
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // already gone
  }
}
