import { bwrapCommand } from "../sandbox/bwrap.js";
import { type SandboxPolicy, sandboxRunner } from "../sandbox/policy.js";
import { nowMs } from "../util/clock.js";
import { spawn } from "../util/spawn.js";
import { type Watchdog, watchGroup } from "./orphan-watchdog.js";
import { findShell, KILL_GRACE_MS, signalGroup, stopGroup } from "./process-group.js";
import { UnreadOutput } from "./unread-output.js";

/** `running` until the shell has exited and its output is closed; `killed`: stopped by cairn. */
export type BackgroundShellStatus = "running" | "completed" | "failed" | "killed";

/** Why cairn stopped a shell. */
export type StopReason = "killed" | "timeout" | "session_end";

/** A background shell as the tools report it. */
export type BackgroundShellInfo = {
  id: string;
  command: string;
  description?: string;
  status: BackgroundShellStatus;
  exitCode: number | null;
  signal: string | null;
  stoppedBy?: StopReason;
  /** Milliseconds since it started, up to its end. */
  runtimeMs: number;
};

export type BackgroundShellStart = {
  command: string;
  description?: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Milliseconds it may run before it is stopped. */
  timeout: number;
  sandbox?: SandboxPolicy;
};

type Shell = {
  info: Omit<BackgroundShellInfo, "runtimeMs">;
  startedAt: number;
  endedAt?: number;
  pid?: number;
  stdout: UnreadOutput;
  stderr: UnreadOutput;
  /** Resolves once the shell has exited and its output is closed. */
  closed: Promise<void>;
  watchdog?: Watchdog;
  timer?: NodeJS.Timeout;
  /** Stops reading output that a process which left the group (`setsid`) still holds after a stop. */
  dropOutput?: () => void;
};

/**
 * The shells a session runs in the background (Bash `run_in_background`): started at once, read
 * with BashOutput, ended by TaskStop (KillShell), by their timeout, or with the session (`closeAll`).
 * Each runs in a process group of its own, sandboxed like any command; what it prints waits in
 * memory, capped (unread-output.ts). Should cairn die without ending them (SIGKILL), a watchdog per
 * shell ends its group (orphan-watchdog.ts), and under the sandbox bubblewrap's `--die-with-parent`
 * takes the whole PID namespace down.
 */
export class BackgroundShells {
  private readonly shells = new Map<string, Shell>();
  private closedWith: string | undefined;
  private started = 0;
  private readonly listeners = new Set<() => void>();

  /** Calls `listener` whenever a shell starts or ends (a view of the running ones redraws); returns its removal. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }

  async start(options: BackgroundShellStart): Promise<BackgroundShellInfo> {
    if (this.closedWith) throw new Error(this.closedWith);
    // bash_1, bash_2, … in the order the session starts them: short for the model to repeat. Taken
    // before any wait, so two subagents starting shells at once never get the same id.
    const id = `bash_${++this.started}`;
    const shellPath = await findShell(options.env.PATH ?? "");
    const bwrapPath = await sandboxRunner(options.sandbox);
    // The session may have ended while the shell and the sandbox were looked up.
    if (this.closedWith) throw new Error(this.closedWith);
    const sandboxed =
      options.sandbox && bwrapPath
        ? bwrapCommand(options.sandbox, bwrapPath, [shellPath, "-c", options.command], options.cwd)
        : undefined;
    const shell: Shell = {
      info: {
        id,
        command: options.command,
        ...(options.description ? { description: options.description } : {}),
        status: "running",
        exitCode: null,
        signal: null,
      },
      startedAt: nowMs(),
      stdout: new UnreadOutput(),
      stderr: new UnreadOutput(),
      closed: Promise.resolve(),
    };
    const child = spawn(sandboxed?.file ?? shellPath, sandboxed?.args ?? ["-c", options.command], {
      cwd: options.cwd,
      env: options.env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    shell.pid = child.pid;
    if (child.pid !== undefined) shell.watchdog = watchGroup(child.pid);
    shell.dropOutput = () => {
      child.stdout.destroy();
      child.stderr.destroy();
    };
    child.stdout.on("data", (chunk: Buffer) => shell.stdout.write(chunk));
    child.stderr.on("data", (chunk: Buffer) => shell.stderr.write(chunk));
    shell.timer = setTimeout(() => void this.stopShell(shell, "timeout"), options.timeout);
    shell.timer.unref();
    shell.closed = new Promise<void>((resolve) => {
      let exited: { code: number | null; signal: string | null } | undefined;
      child.once("exit", (code, signal) => {
        exited = { code, signal };
      });
      const finish = (code: number | null, signal: string | null, error?: Error) => {
        if (shell.endedAt !== undefined) return; // a failed spawn reports both error and close
        clearTimeout(shell.timer);
        sandboxed?.release();
        shell.stdout.end();
        shell.stderr.end();
        if (error) shell.stderr.write(Buffer.from(`Failed to start ${shellPath}: ${error.message}\n`));
        shell.endedAt = nowMs();
        shell.info.exitCode = error ? null : code;
        shell.info.signal = signal;
        shell.info.status = shell.info.stoppedBy
          ? "killed"
          : error || signal || code !== 0
            ? "failed"
            : "completed";
        // Nothing of the group left: no watchdog needed (and none that could hit a reused group id).
        if (shell.pid === undefined || !signalGroup(shell.pid, 0)) this.release(shell);
        resolve();
        this.changed();
      };
      child.once("close", (code, signal) => {
        const end = exited ?? { code, signal };
        finish(end.code, end.signal);
      });
      child.once("error", (error) => finish(null, null, error));
    });
    this.shells.set(id, shell);
    this.changed();
    return this.view(shell);
  }

  /** The shell with this id, or undefined when this session started none by that id. */
  info(id: string): BackgroundShellInfo | undefined {
    const shell = this.shells.get(id);
    return shell ? this.view(shell) : undefined;
  }

  /** Its output since the last read (each stream's kept tail and what was dropped), and how it stands. */
  read(id: string) {
    const shell = this.shells.get(id);
    if (!shell) return undefined;
    return { ...this.view(shell), stdout: shell.stdout.take(), stderr: shell.stderr.take() };
  }

  /** Stops a running shell (its whole process group) and waits for its end; undefined: no such shell. */
  async stop(id: string, reason: StopReason = "killed"): Promise<BackgroundShellInfo | undefined> {
    const shell = this.shells.get(id);
    if (!shell) return undefined;
    await this.stopShell(shell, reason);
    return this.view(shell);
  }

  /** The shells still running. */
  running(): BackgroundShellInfo[] {
    return [...this.shells.values()]
      .filter((shell) => shell.info.status === "running")
      .map((s) => this.view(s));
  }

  /**
   * Ends every shell with the session, and whatever their groups left running, and refuses new ones
   * (`reason`). Resolves once they are gone (SIGKILL after the grace for one ignoring SIGTERM).
   */
  async closeAll(reason = "The session has ended; its background shells were stopped."): Promise<void> {
    this.closedWith = reason;
    await Promise.all(
      [...this.shells.values()].map(async (shell) => {
        if (shell.info.status === "running") await this.stopShell(shell, "session_end");
        else if (shell.pid !== undefined && signalGroup(shell.pid, 0)) await stopLeftovers(shell.pid);
        this.release(shell);
      }),
    );
  }

  private async stopShell(shell: Shell, reason: StopReason): Promise<void> {
    if (shell.info.status === "running" && shell.pid !== undefined && !shell.info.stoppedBy) {
      shell.info.stoppedBy = reason;
      stopGroup(shell.pid);
      const holder = setTimeout(() => shell.dropOutput?.(), KILL_GRACE_MS + 500);
      void shell.closed.then(() => clearTimeout(holder));
    }
    await shell.closed;
  }

  private release(shell: Shell): void {
    shell.watchdog?.disarm();
    shell.watchdog = undefined;
  }

  private view(shell: Shell): BackgroundShellInfo {
    return { ...shell.info, runtimeMs: Math.round((shell.endedAt ?? nowMs()) - shell.startedAt) };
  }
}

/** Ends what a finished shell's group left running (a job that redirected its output elsewhere). */
async function stopLeftovers(pgid: number): Promise<void> {
  stopGroup(pgid);
  const deadline = Date.now() + KILL_GRACE_MS + 1000;
  while (signalGroup(pgid, 0) && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 50));
}
