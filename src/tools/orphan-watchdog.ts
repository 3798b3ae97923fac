import { spawn } from "../util/spawn.js";
import { KILL_GRACE_MS } from "./process-group.js";

/** Stops watching (the group was ended by cairn itself, or is gone). */
export type Watchdog = { disarm(): void };

/**
 * `read` returns when cairn's end of the pipe closes, which the kernel does when cairn dies however
 * it dies; then the group gets SIGTERM and, if some of it is still there after the grace (checked
 * every 0.1 s, so a group that is gone is never signalled again), SIGKILL. (dash's kill takes no
 * `--`: `-TERM` is the signal, `-<pgid>` the group.)
 */
const SCRIPT =
  'read _; kill -TERM "-$1" 2>/dev/null || exit 0; i=0; ' +
  'while kill -0 "-$1" 2>/dev/null; do [ "$i" -ge "$2" ] && { kill -KILL "-$1" 2>/dev/null; exit 0; }; sleep 0.1; i=$((i+1)); done';

/**
 * Watches a background shell's process group on behalf of a cairn that may be killed with SIGKILL,
 * when no exit handler runs: a `/bin/sh` of its own (a few hundred kilobytes, no Node) holding the
 * read end of a pipe whose write end only cairn holds (Node's pipes are close-on-exec, so no other
 * child inherits it). It is detached, so a Ctrl-C to cairn's terminal does not end it before it has
 * done its job, and unreferenced, so it never keeps cairn running.
 */
export function watchGroup(pgid: number): Watchdog {
  const graceTicks = String(Math.ceil(KILL_GRACE_MS / 100));
  const child = spawn("/bin/sh", ["-c", SCRIPT, "cairn-watchdog", String(pgid), graceTicks], {
    stdio: ["pipe", "ignore", "ignore"],
    detached: true,
  });
  // Without /bin/sh nothing watches: the session's end still stops the group (docs/tools.md).
  child.on("error", () => {});
  child.stdin?.on("error", () => {});
  child.unref();
  (child.stdin as unknown as { unref?(): void } | null)?.unref?.();
  return {
    disarm() {
      child.kill("SIGKILL");
    },
  };
}
