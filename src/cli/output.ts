/**
 * Writes projection output to stdout, coalescing what is produced within one tick into a single
 * write (many deltas arrive per network chunk) while never holding text back across ticks.
 * Respects backpressure: when the pipe is full, production waits for `drain`.
 *
 * When the reader goes away (EPIPE: `cairn … | head -1`, or a wrapper that closes the pipe as soon as
 * it saw `result`), the error is absorbed instead of crashing with a stack trace; `onClosed` tells the
 * caller, which stops the run, and later writes are dropped.
 */
export class StdoutWriter {
  private buffer = "";
  private scheduled = false;
  private blocked: Promise<void> | undefined;
  private releaseBlocked: (() => void) | undefined;
  /** True once the stream failed or was closed by its reader. */
  closed = false;
  onClosed: ((error: Error) => void) | undefined;

  constructor(private readonly stream: NodeJS.WritableStream = process.stdout) {
    stream.on("error", (error: Error) => this.fail(error));
  }

  write(text: string): void {
    if (text === "" || this.closed) return;
    this.buffer += text;
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flushNow());
    }
  }

  /** Resolves when the consumer may produce more (the pipe is not over its high-water mark). */
  ready(): Promise<void> | undefined {
    return this.blocked;
  }

  /** Writes everything buffered and resolves once the stream has accepted it (or failed). */
  flush(): Promise<void> {
    this.flushNow();
    if (this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      this.stream.write("", () => resolve());
      // A failing stream may never call back; its error settles the flush instead.
      this.stream.once("error", () => resolve());
    });
  }

  private flushNow(): void {
    this.scheduled = false;
    if (this.buffer === "" || this.closed) return;
    const chunk = this.buffer;
    this.buffer = "";
    const ok = this.stream.write(chunk);
    if (!ok && !this.blocked) {
      this.blocked = new Promise((resolve) => {
        this.releaseBlocked = resolve;
        this.stream.once("drain", () => this.unblock());
      });
    }
  }

  private unblock(): void {
    this.blocked = undefined;
    this.releaseBlocked?.();
    this.releaseBlocked = undefined;
  }

  private fail(error: Error): void {
    if (this.closed) return;
    this.closed = true;
    this.buffer = "";
    this.unblock();
    this.onClosed?.(error);
  }
}
