import { readFileSync } from "node:fs";

/**
 * True while a process with this pid exists and is not a zombie: a killed process whose parent is
 * gone may linger as a zombie (state Z, or X while being reaped) until something reaps it, and
 * counts as dead here. Without /proc, falls back to signal 0.
 */
export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The state follows the command name, which is in parentheses and may itself hold ") ".
    return !/^\d+ \(.*\) [ZX] /.test(stat);
  } catch {
    // No /proc, or the process is gone.
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
