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

/**
 * Placeholders: the mount points bubblewrap creates in a writable root for protected paths that do
 * not exist yet, removed once no command of this process uses them; and the empty, read-only
 * directory and file mounted there (and over hidden paths).
 */

/** Commands of this process using each placeholder (SDK queries may run commands side by side). */
const placeholderUsers = new Map<string, number>();

/**
 * Whether `p` is a placeholder a command of this process still uses. Such a path is on disk only
 * while that command runs: another command must cover it as missing (and so hold it too), never
 * bind it as an existing directory that vanishes when the first command is over.
 */
export function isPlaceholderInUse(p: string): boolean {
  return placeholderUsers.has(p);
}

export function usePlaceholder(placeholder: string, delta: number): void {
  const users = (placeholderUsers.get(placeholder) ?? 0) + delta;
  if (users > 0) {
    placeholderUsers.set(placeholder, users);
    return;
  }
  placeholderUsers.delete(placeholder);
  removeIfEmpty(placeholder);
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
