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

/**
 * Signals the process `pid`, if it is one: a pid read from a file or a listing that came out empty
 * (`Number("")` is 0) must never reach `process.kill`, where 0 is the caller's whole process group
 * — the test runner, npm and the shell that started them, ended without a word. Anything but an
 * integer above 1 is refused with an error; a process already gone is not one.
 */
export function signalPid(pid: number, signal: NodeJS.Signals = "SIGTERM"): void {
  if (!Number.isInteger(pid) || pid <= 1) throw new Error(`not a process to signal: ${pid}`);
  try {
    process.kill(pid, signal);
  } catch {
    // already gone
  }
}
