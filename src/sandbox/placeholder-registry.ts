import { lstatSync, mkdirSync, readdirSync, rmdirSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";

/**
 * Which cairn processes use each placeholder, shared between processes.
 *
 * A placeholder is a mount point a command's bubblewrap created in a writable root (placeholders.ts).
 * It is on the host: when one cairn process removes it while another process's command has a mount
 * there, the kernel detaches that mount and the path becomes writable to the other command (seen:
 * `mkdir -p .git/hooks` then succeeds and stays on disk). So each process records its use here, and
 * a placeholder is removed only when no live process has it recorded; recording and deciding to
 * remove both happen under a lock per placeholder.
 *
 * The record is a directory of the user's own under /tmp (not $TMPDIR, which differs between
 * processes; sandboxed commands get a private /tmp): one empty file `<key>.<pid>` per process using
 * a placeholder, and `<key>.lock` while one of them is deciding. A record whose process is gone is
 * removed by the next one to look.
 */

const LOCK_WAIT_MS = 1;
/** A lock is held for a few file-system calls; one this old belongs to a process killed holding it. */
const STALE_LOCK_MS = 2_000;
const GIVE_UP_MS = 10_000;

let registryDir: string | null | undefined;

/** The shared directory, or null where it cannot be had safely (then each process counts alone). */
function registry(): string | null {
  if (registryDir !== undefined) return registryDir;
  registryDir = null;
  const uid = process.getuid?.();
  if (uid === undefined) return null;
  const dir = `/tmp/cairn-placeholders-${uid}`;
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch {
    // exists already (checked below), or /tmp is not writable
  }
  try {
    // Another user could have made it first: only a directory of ours that no one else can write
    // may decide what is removed from a workspace.
    const info = lstatSync(dir);
    if (info.isDirectory() && info.uid === uid && (info.mode & 0o022) === 0) registryDir = dir;
  } catch {
    // not usable
  }
  return registryDir;
}

function keyOf(placeholder: string): string {
  return bytesToHex(sha256(utf8ToBytes(placeholder))).slice(0, 32);
}

/** Runs `fn` holding the placeholder's lock (shared by every cairn process of this user). */
export function withPlaceholderLock<T>(placeholder: string, fn: () => T): T {
  const dir = registry();
  if (!dir) return fn();
  const lock = path.join(dir, `${keyOf(placeholder)}.lock`);
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

/** Blocks for `ms`: the lock is held for microseconds, and the commands are built synchronously. */
function sleepSync(ms: number): void {
  sleeper ??= new Int32Array(new SharedArrayBuffer(4));
  Atomics.wait(sleeper, 0, 0, ms);
}

/** Records that this process uses `placeholder` (call holding its lock). */
export function recordUse(placeholder: string): void {
  const dir = registry();
  if (dir) writeFileSync(path.join(dir, `${keyOf(placeholder)}.${process.pid}`), placeholder);
}

/** Forgets this process's use of `placeholder` (call holding its lock). */
export function forgetUse(placeholder: string): void {
  const dir = registry();
  if (!dir) return;
  try {
    unlinkSync(path.join(dir, `${keyOf(placeholder)}.${process.pid}`));
  } catch {
    // not recorded
  }
}

/** Whether another live process has recorded `placeholder` (call holding its lock). */
export function usedByOtherProcess(placeholder: string): boolean {
  const dir = registry();
  if (!dir) return false;
  const prefix = `${keyOf(placeholder)}.`;
  let used = false;
  for (const name of readdirSync(dir)) {
    if (!name.startsWith(prefix)) continue;
    const pid = Number(name.slice(prefix.length));
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    if (isAlive(pid)) used = true;
    else unlinkQuietly(path.join(dir, name));
  }
  return used;
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
    // removed by another process meanwhile
  }
}
