/**
 * Writes projection output to stdout, coalescing what is produced within one tick into a single
 * write (many deltas arrive per network chunk) while never holding text back across ticks.
 * Respects backpressure: when the pipe is full, production waits for `drain`.
 */
export class StdoutWriter {
  private buffer = "";
  private scheduled = false;
  private blocked: Promise<void> | undefined;

  constructor(private readonly stream: NodeJS.WritableStream = process.stdout) {}

  write(text: string): void {
    if (text === "") return;
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

  /** Writes everything buffered and resolves once the stream has accepted it. */
  flush(): Promise<void> {
    this.flushNow();
    return new Promise((resolve) => this.stream.write("", () => resolve()));
  }

  private flushNow(): void {
    this.scheduled = false;
    if (this.buffer === "") return;
    const chunk = this.buffer;
    this.buffer = "";
    const ok = this.stream.write(chunk);
    if (!ok && !this.blocked) {
      this.blocked = new Promise((resolve) =>
        this.stream.once("drain", () => {
          this.blocked = undefined;
          resolve();
        }),
      );
    }
  }
}
