import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmdirSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { forgetUse, recordUse, usedByOtherProcess, withPlaceholderLock } from "./placeholder-registry.js";

/**
 * Placeholders: the mount points bubblewrap creates in a writable root for protected paths that do
 * not exist yet, removed once no command of any cairn process uses them; and the empty, read-only
 * directory and file mounted there (and over hidden paths).
 */

/** Commands of this process using each placeholder (SDK queries may run commands side by side). */
const placeholderUsers = new Map<string, number>();

/** The placeholders one command holds: claimed while its mounts are worked out, released at its end. */
export type PlaceholderClaims = {
  /**
   * What is at `p` for the command's mounts: "missing" when nothing is there or when it is a
   * placeholder another command (of any cairn process) still uses, which goes away when that command
   * ends and so must be covered as missing, never bound as an existing directory. A "missing" path
   * is claimed: it stays on disk, whoever created it, until this command releases it.
   */
  kindOf(p: string): "dir" | "file" | "missing";
  release(): void;
};

export function claimPlaceholders(): PlaceholderClaims {
  const claimed = new Set<string>();
  return {
    kindOf(p) {
      if (claimed.has(p)) return "missing";
      return withPlaceholderLock(p, () => {
        const inUse = placeholderUsers.has(p) || usedByOtherProcess(p);
        const kind = inUse ? "missing" : kindOf(p);
        if (kind === "missing") {
          claimed.add(p);
          use(p, +1);
        }
        return kind;
      });
    },
    release() {
      for (const p of claimed) withPlaceholderLock(p, () => use(p, -1));
      claimed.clear();
    },
  };
}

/** Counts this process's users of `p`; the first records it for other processes, the last removes it. */
function use(placeholder: string, delta: number): void {
  const users = (placeholderUsers.get(placeholder) ?? 0) + delta;
  if (users > 0) {
    if (!placeholderUsers.has(placeholder)) {
      recordUse(placeholder);
      releaseAllAtExit();
    }
    placeholderUsers.set(placeholder, users);
    return;
  }
  placeholderUsers.delete(placeholder);
  forgetUse(placeholder);
  if (!usedByOtherProcess(placeholder)) removeIfEmpty(placeholder);
}

let exitHookSet = false;

/** A process that exits with commands running (interrupted, timed out) still releases their placeholders. */
function releaseAllAtExit(): void {
  if (exitHookSet) return;
  exitHookSet = true;
  process.once("exit", () => {
    for (const placeholder of [...placeholderUsers.keys()]) {
      try {
        withPlaceholderLock(placeholder, () => use(placeholder, -(placeholderUsers.get(placeholder) ?? 0)));
      } catch {
        // the lock could not be had: the placeholder stays, which is safe
      }
    }
  });
}

function kindOf(p: string): "dir" | "file" | "missing" {
  try {
    return lstatSync(p).isDirectory() ? "dir" : "file";
  } catch {
    return "missing";
  }
}

/** Only an empty directory or file is ours to remove; anything with content is left alone. */
function removeIfEmpty(p: string): void {
  try {
    const info = lstatSync(p);
    if (info.isDirectory() && readdirSync(p).length === 0) rmdirSync(p);
    else if (info.isFile() && info.size === 0) unlinkSync(p);
  } catch {
    // gone already, or not ours to remove
  }
}

// One directory per process holds the empty sources; removed at exit.

let emptySources: { dir: string; file: string } | undefined;

function sources(): { dir: string; file: string } {
  if (emptySources) return emptySources;
  const base = mkdtempSync(path.join(os.tmpdir(), "cairn-sandbox-"));
  const dir = path.join(base, "empty-dir");
  const file = path.join(base, "empty-file");
  mkdirSync(dir, { mode: 0o555 });
  writeFileSync(file, "", { mode: 0o444 });
  process.once("exit", () => rmSync(base, { recursive: true, force: true }));
  emptySources = { dir, file };
  return emptySources;
}

export function emptyDir(): string {
  return sources().dir;
}

export function emptyFile(): string {
  return sources().file;
}
