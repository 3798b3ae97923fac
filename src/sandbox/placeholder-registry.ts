import {
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  type Stats,
  statSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";

/**
 * Which placeholders each cairn process of this user holds, shared between processes.
 *
 * A placeholder is a mount point a command's bubblewrap created in a writable root (placeholders.ts).
 * It is on the host: when one cairn process removes it while another process's command has a mount
 * there, the kernel detaches that mount and the path becomes writable to the other command (seen:
 * `mkdir -p .git/hooks` then succeeds and stays on disk). So each process records what it holds, and
 * a placeholder is removed only when no live process records it; recording and deciding to remove
 * both happen under one lock.
 *
 * The record is a directory of the user's own in /dev/shm (memory: a lock and a record cost a few
 * microseconds there, against about 40 µs per call on a disk), or /tmp where there is none; never
 * $TMPDIR, which may differ between processes. Sandboxed commands do not see /dev/shm (they get a
 * /dev of their own), nor /tmp unless a writable root contains it. In it: one file per process,
 * named by its pid, listing the placeholders it holds, and `lock` while one of them is deciding. A
 * record whose process is gone is removed by the next one to look.
 */

const LOCK_WAIT_MS = 1;
/** The lock is held for a few file-system calls; one this old belongs to a process killed holding it. */
const STALE_LOCK_MS = 2_000;
const GIVE_UP_MS = 10_000;

let registryDir: string | null | undefined;

/** The shared directory, or null where it cannot be had safely (then each process counts alone). */
function registry(): string | null {
  if (registryDir === undefined) registryDir = findRegistry();
  return registryDir;
}

function findRegistry(): string | null {
  const uid = process.getuid?.();
  if (uid === undefined) return null;
  for (const base of ["/dev/shm", "/tmp"]) {
    const dir: string = `${base}/cairn-placeholders-${uid}`;
    try {
      mkdirSync(dir, { mode: 0o700 });
    } catch {
      // exists already (checked below), or cannot be made here
    }
    try {
      // Another user could have made it first: only a directory of ours that no one else can
      // write may decide what is removed from a workspace.
      const info: Stats = lstatSync(dir);
      if (info.isDirectory() && info.uid === uid && (info.mode & 0o022) === 0) return dir;
    } catch {
      // not here
    }
  }
  return null;
}

/** Runs `fn` holding the lock shared by every cairn process of this user. */
export function withRegistryLock<T>(fn: () => T): T {
  const dir = registry();
  if (!dir) return fn();
  const lock = path.join(dir, "lock");
  acquire(lock);
  try {
    return fn();
  } finally {
    try {
      rmdirSync(lock);
    } catch {
      // broken as stale by another process: nothing left to release
    }
  }
}

function acquire(lock: string): void {
  const started = Date.now();
  for (;;) {
    try {
      mkdirSync(lock);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    breakIfStale(lock);
    if (Date.now() - started > GIVE_UP_MS)
      throw new Error(`sandbox: ${lock} stays locked; remove it if no cairn process is running`);
    sleepSync(LOCK_WAIT_MS);
  }
}

function breakIfStale(lock: string): void {
  try {
    if (Date.now() - statSync(lock).mtimeMs > STALE_LOCK_MS) rmdirSync(lock);
  } catch {
    // released meanwhile
  }
}

let sleeper: Int32Array | undefined;

/** Blocks for `ms`: the lock is held for microseconds, and a command's mounts are worked out synchronously. */
function sleepSync(ms: number): void {
  sleeper ??= new Int32Array(new SharedArrayBuffer(4));
  Atomics.wait(sleeper, 0, 0, ms);
}

/** Records the placeholders this process holds now (call holding the lock). */
export function recordHeld(placeholders: readonly string[]): void {
  const dir = registry();
  if (!dir) return;
  const file = path.join(dir, String(process.pid));
  if (placeholders.length > 0) writeFileSync(file, placeholders.join("\0"));
  else unlinkQuietly(file);
}

/**
 * The placeholders live processes other than this one hold (call holding the lock). The records of
 * processes that are gone (killed with SIGKILL: no exit handler ran) are removed, and what they held
 * goes to `orphaned`, for the caller to remove what nobody else holds.
 */
export function heldByOtherProcesses(orphaned?: (placeholder: string) => void): Set<string> {
  const held = new Set<string>();
  const dir = registry();
  if (!dir) return held;
  for (const name of readdirSync(dir)) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) continue;
    const file = path.join(dir, name);
    const alive = isAlive(pid);
    try {
      for (const placeholder of readFileSync(file, "utf8").split("\0"))
        if (alive) held.add(placeholder);
        else orphaned?.(placeholder);
    } catch {
      // gone meanwhile
    }
    if (!alive) unlinkQuietly(file);
  }
  return held;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function unlinkQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // not there
  }
}
