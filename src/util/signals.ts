import { EXIT } from "./exit-codes.js";

/** After a signal, the run has this long to wind down (kill tool processes, flush) before a hard exit. */
export const FORCE_EXIT_MS = 3000;

const SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
const EXIT_CODES: Record<(typeof SIGNALS)[number], number> = {
  SIGINT: EXIT.sigint,
  SIGTERM: EXIT.sigterm,
  SIGHUP: EXIT.sighup,
};

/**
 * SIGINT / SIGTERM / SIGHUP for the whole process, whichever door runs, installed before anything
 * can wait (reading stdin included). The first signal aborts `signal`, which the prompt reader and
 * the engine honour (the engine stops the model call and the tools' process groups, the run its
 * leftover processes); the process then exits 130, 143 or 129. A second signal, or a run that does
 * not wind down within FORCE_EXIT_MS, exits at once with the same code. SIGHUP (the terminal or ssh
 * session went away) is handled like SIGTERM: without a handler Node would die at once and leave
 * the commands running.
 */
export class Interrupts {
  private readonly controller = new AbortController();
  /** 130 after SIGINT, 143 after SIGTERM, 129 after SIGHUP; undefined while no signal came. */
  exitCode: number | undefined;
  private readonly handler = (signal: NodeJS.Signals) => this.receive(signal);

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  install(): this {
    for (const name of SIGNALS) process.on(name, this.handler);
    return this;
  }

  dispose(): void {
    for (const name of SIGNALS) process.off(name, this.handler);
  }

  private receive(signal: NodeJS.Signals): void {
    const code = EXIT_CODES[signal as (typeof SIGNALS)[number]] ?? EXIT.sigterm;
    if (this.exitCode !== undefined)
      hardExit(`${signal} again: exiting without waiting for the run to wind down`, this.exitCode);
    this.exitCode = code;
    this.controller.abort(new Error(`Interrupted by ${signal}`));
    // Referenced on purpose: it must fire even if a wedged await left nothing else in the loop.
    setTimeout(
      () =>
        hardExit(`the run did not wind down within ${FORCE_EXIT_MS / 1000} s of ${signal}; exiting`, code),
      FORCE_EXIT_MS,
    );
  }
}

/**
 * Exits now, saying why on stderr (the one line of an interrupted run otherwise never comes). What
 * was not written stays unwritten: a resumed session marks the open tool call as interrupted.
 */
function hardExit(why: string, code: number): never {
  process.stderr.write(`cairn: ${why}; a resumed session marks unfinished tool calls as interrupted\n`);
  process.exit(code);
}
