import { EXIT } from "./exit-codes.js";

/** After a signal, the run has this long to wind down (kill tool processes, flush) before a hard exit. */
export const FORCE_EXIT_MS = 3000;

/**
 * SIGINT / SIGTERM for the whole CLI, installed before anything can wait (reading stdin included).
 * The first signal aborts `signal`, which the prompt reader and the engine honour (the engine stops
 * the model call and the tools' process groups); the CLI then exits 130 or 143. A second signal, or
 * a run that does not wind down within FORCE_EXIT_MS, exits at once with the same code.
 */
export class Interrupts {
  private readonly controller = new AbortController();
  /** 130 after SIGINT, 143 after SIGTERM; undefined while no signal came. */
  exitCode: number | undefined;
  private readonly handler = (signal: NodeJS.Signals) => this.receive(signal);

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  install(): this {
    process.on("SIGINT", this.handler);
    process.on("SIGTERM", this.handler);
    return this;
  }

  dispose(): void {
    process.off("SIGINT", this.handler);
    process.off("SIGTERM", this.handler);
  }

  private receive(signal: NodeJS.Signals): void {
    const code = signal === "SIGINT" ? EXIT.sigint : EXIT.sigterm;
    if (this.exitCode !== undefined) process.exit(this.exitCode);
    this.exitCode = code;
    this.controller.abort(new Error(`Interrupted by ${signal}`));
    // Referenced on purpose: it must fire even if a wedged await left nothing else in the loop.
    setTimeout(() => process.exit(code), FORCE_EXIT_MS);
  }
}
