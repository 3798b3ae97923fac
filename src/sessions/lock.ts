import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from "node:fs";

export class SessionLockedError extends Error {
  constructor(
    readonly sessionId: string,
    readonly pid: number | undefined,
  ) {
    const who = pid === undefined ? "another cairn process" : `another cairn process (pid ${pid})`;
    super(
      `session ${sessionId} is in use by ${who}; wait for it to end, or continue it under a new id with --fork-session`,
    );
    this.name = "SessionLockedError";
  }
}

/**
 * An advisory lock on a transcript: `<transcript>.lock`, created with O_EXCL, holding the owner's
 * pid and its start time. Two writers appending to one transcript would interleave two
 * conversations; the second is refused instead. A lock whose owner is gone (killed with -9, say) is
 * stale and taken over; the start time tells a live owner from an unrelated process that got the
 * same pid later. Advisory: only cairn honours it.
 */
export class TranscriptLock {
  private constructor(private readonly file: string) {}

  static acquire(transcript: string, sessionId: string): TranscriptLock {
    const file = `${transcript}.lock`;
    const content = JSON.stringify(currentOwner());
    // Twice at most: once, and once more after removing a stale lock.
    for (let attempt = 0; ; attempt += 1) {
      try {
        const fd = openSync(file, "wx", 0o600);
        try {
          writeSync(fd, content);
        } finally {
          closeSync(fd);
        }
        return new TranscriptLock(file);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      }
      const owner = readOwner(file);
      if ((owner && isRunning(owner)) || attempt > 0) throw new SessionLockedError(sessionId, owner?.pid);
      try {
        unlinkSync(file);
      } catch {
        // another process took it over first; the next attempt tells
      }
    }
  }

  release(): void {
    try {
      unlinkSync(this.file);
    } catch {
      // already gone
    }
  }
}

type Owner = { pid: number; started?: string };

function currentOwner(): Owner {
  const started = startTime(process.pid);
  return { pid: process.pid, ...(started ? { started } : {}) };
}

function readOwner(file: string): Owner | undefined {
  try {
    const owner = JSON.parse(readFileSync(file, "utf8")) as Owner;
    return Number.isInteger(owner.pid) && owner.pid > 0 ? owner : undefined;
  } catch {
    return undefined; // unreadable or half-written by a process killed while writing it: stale
  }
}

function isRunning(owner: Owner): boolean {
  try {
    process.kill(owner.pid, 0);
  } catch (error) {
    // EPERM: the pid is alive but another user's, so not a cairn of ours... unless it is; be safe.
    if ((error as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  if (!owner.started) return true;
  const started = startTime(owner.pid);
  return started === undefined || started === owner.started;
}

/** The process's start time in clock ticks since boot (Linux /proc), to tell reused pids apart. */
function startTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name, which is in parentheses and may hold spaces: starttime is 22nd.
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
  } catch {
    return undefined;
  }
}
