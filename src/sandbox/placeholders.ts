import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { heldByOtherProcesses, recordHeld, withRegistryLock } from "./placeholder-registry.js";

/**
 * Placeholders: the mount points bubblewrap creates in a writable root for protected paths that do
 * not exist yet, removed once no command of any cairn process uses them; and the empty, read-only
 * directory and file mounted there (and over hidden paths).
 */

/** Commands of this process using each placeholder (SDK queries may run commands side by side). */
const placeholderUsers = new Map<string, number>();

/**
 * What is at `p` for a command's mounts: "missing" when nothing is there, or when it is a placeholder
 * another command (of any cairn process) still uses, which goes away when that command ends and so
 * must be covered as missing, never bound as an existing directory. A "missing" path is claimed: it
 * stays on disk, whoever created it, until the command releases it.
 */
export type PlaceholderKind = (p: string) => "dir" | "file" | "missing";

/**
 * Works out one command's mounts with `work`, holding the lock shared with other cairn processes, and
 * claims the placeholders it covers; `release()` (at the command's end) gives them up, removing each
 * that no command of any process still uses.
 */
export function claimingPlaceholders<T>(work: (kindOf: PlaceholderKind) => T): {
  result: T;
  release(): void;
} {
  const claimed = new Set<string>();
  const result = withRegistryLock(() => {
    // Placeholders of a process killed outright stay on disk: the first command after it removes
    // them (if still empty and nobody holds them) before looking at what is there.
    const orphans: string[] = [];
    const others = heldByOtherProcesses((orphan) => orphans.push(orphan));
    for (const orphan of orphans)
      if (!others.has(orphan) && !placeholderUsers.has(orphan)) removeIfEmpty(orphan);
    const value = work((p) => {
      if (claimed.has(p)) return "missing";
      const kind = placeholderUsers.has(p) || others.has(p) ? "missing" : kindOf(p);
      if (kind === "missing") claimed.add(p);
      return kind;
    });
    use(claimed, +1);
    return value;
  });
  let released = false;
  return {
    result,
    release() {
      if (released) return;
      released = true;
      withRegistryLock(() => use(claimed, -1));
    },
  };
}

/**
 * Counts this process's users of each placeholder (call holding the lock). The record other processes
 * read changes only when a placeholder is first held or last given up; one given up that no other
 * process holds is removed.
 */
function use(placeholders: Iterable<string>, delta: number): void {
  const givenUp: string[] = [];
  let changed = false;
  for (const placeholder of placeholders) {
    const users = (placeholderUsers.get(placeholder) ?? 0) + delta;
    if (users > 0) {
      changed ||= !placeholderUsers.has(placeholder);
      placeholderUsers.set(placeholder, users);
    } else if (placeholderUsers.delete(placeholder)) {
      changed = true;
      givenUp.push(placeholder);
    }
  }
  if (!changed) return;
  recordHeld([...placeholderUsers.keys()]);
  releaseAllAtExit();
  if (givenUp.length === 0) return;
  const others = heldByOtherProcesses();
  for (const placeholder of givenUp) if (!others.has(placeholder)) removeIfEmpty(placeholder);
}

let exitHookSet = false;

/** A process that exits with commands running (interrupted, timed out) still gives up their placeholders. */
function releaseAllAtExit(): void {
  if (exitHookSet) return;
  exitHookSet = true;
  process.once("exit", () => {
    if (placeholderUsers.size === 0) return;
    try {
      withRegistryLock(() => use([...placeholderUsers.keys()], -Infinity));
    } catch {
      // the lock could not be had: the placeholders stay, which is safe
    }
  });
}

/** What is at `p`, symbolic links not followed. */
export function kindOf(p: string): "dir" | "file" | "missing" {
  try {
    return lstatSync(p).isDirectory() ? "dir" : "file";
  } catch {
    return "missing";
  }
}

/**
 * Names whose empty placeholder would break the tools that read them: git dies on an empty
 * `commondir` ("failed to read"), where "." (this directory) is what having none means. Such a
 * placeholder is written with that content by cairn before bubblewrap runs, so that git outside
 * the sandbox reads it as harmless too while the command runs.
 */
const PLACEHOLDER_CONTENT: Readonly<Record<string, string>> = { commondir: ".\n" };

/** Where a missing protected file is covered from: an empty file, or one holding what makes it harmless. */
export function missingFileSource(placeholder: string): string {
  const content = PLACEHOLDER_CONTENT[path.basename(placeholder)];
  if (content === undefined) return emptyFile();
  try {
    writeFileSync(placeholder, content, { flag: "wx", mode: 0o444 });
  } catch {
    // there already (another command's placeholder): bubblewrap mounts over it as it is
  }
  return sourceWith(content);
}

/** Only what a placeholder holds (an empty directory or file, or its harmless content) is ours to remove. */
function removeIfEmpty(p: string): void {
  try {
    const info = lstatSync(p);
    if (info.isDirectory() && readdirSync(p).length === 0) rmdirSync(p);
    else if (info.isFile() && (info.size === 0 || isHarmlessContent(p))) unlinkSync(p);
  } catch {
    // gone already, or not ours to remove
  }
}

function isHarmlessContent(p: string): boolean {
  const content = PLACEHOLDER_CONTENT[path.basename(p)];
  return content !== undefined && readFileSync(p, "utf8") === content;
}

// One directory per process holds the sources; removed at exit.

let sourceDir: string | undefined;

function sources(): string {
  if (sourceDir) return sourceDir;
  const base = mkdtempSync(path.join(os.tmpdir(), "cairn-sandbox-"));
  mkdirSync(path.join(base, "empty-dir"), { mode: 0o555 });
  writeFileSync(path.join(base, "empty-file"), "", { mode: 0o444 });
  process.once("exit", () => rmSync(base, { recursive: true, force: true }));
  sourceDir = base;
  return base;
}

function sourceWith(content: string): string {
  const file = path.join(sources(), `content-${Buffer.from(content).toString("hex")}`);
  try {
    writeFileSync(file, content, { flag: "wx", mode: 0o444 });
  } catch {
    // written for an earlier command
  }
  return file;
}

export function emptyDir(): string {
  return path.join(sources(), "empty-dir");
}

export function emptyFile(): string {
  return path.join(sources(), "empty-file");
}
