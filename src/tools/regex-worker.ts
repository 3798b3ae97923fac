import type { Worker } from "node:worker_threads";
import { lazyRequire } from "../util/lazy-require.js";

// node:worker_threads is required on the first match, not at start: every run loads this module
// (with the Grep tool) and most never use the fallback (docs/performance.md).
const requireBuiltin = lazyRequire(import.meta.url);

/** How long one file may take to match before the pattern is given up as runaway backtracking. */
export const REGEX_FILE_DEADLINE_MS = 5000;

export class RegexDeadlineError extends Error {
  override name = "RegexDeadlineError";
}

/**
 * Runs in the worker: JS regular expressions backtrack, and a pattern like `(a+)+$` can take longer
 * than the universe's age on one line, blocking whatever thread runs it. Line by line, it answers
 * the indices of matching lines; with the multiline searcher (flag m), the [start, end) offsets of
 * every match.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const regex = new RegExp(workerData.source, workerData.flags);
parentPort.on("message", (text) => {
  const out = [];
  if (regex.multiline) {
    regex.lastIndex = 0;
    for (let m = regex.exec(text); m; m = regex.exec(text)) {
      out.push(m.index, m.index + m[0].length);
      if (m[0].length === 0) regex.lastIndex += 1;
    }
  } else {
    const lines = text.split("\\n");
    if (text.endsWith("\\n")) lines.pop();
    for (let i = 0; i < lines.length; i++) if (regex.test(lines[i])) out.push(i);
  }
  parentPort.postMessage(out);
});
`;

/**
 * One regular expression, matched off the event loop in a worker thread that is terminated when a
 * file takes longer than the deadline (RegexDeadlineError) or the signal aborts. Started on first use.
 */
export class RegexWorker {
  private worker: Worker | undefined;

  constructor(
    private readonly regex: RegExp,
    private readonly signal: AbortSignal,
    private readonly deadlineMs = REGEX_FILE_DEADLINE_MS,
  ) {}

  /** Whether `match` answers offsets (the multiline searcher) rather than line indices. */
  get multiline(): boolean {
    return this.regex.multiline;
  }

  /** Matching line indices, or flat [start, end, start, end, ...] offsets (multiline). */
  match(text: string): Promise<number[]> {
    if (this.signal.aborted) return Promise.reject(this.signal.reason);
    if (!this.worker) {
      const threads = requireBuiltin("node:worker_threads") as typeof import("node:worker_threads");
      this.worker = new threads.Worker(WORKER_SOURCE, {
        eval: true,
        workerData: { source: this.regex.source, flags: this.regex.flags },
      });
    }
    const worker = this.worker;
    return new Promise<number[]>((resolve, reject) => {
      const finish = (settle: () => void) => {
        clearTimeout(timer);
        this.signal.removeEventListener("abort", onAbort);
        worker.off("message", onMessage);
        worker.off("error", onError);
        settle();
      };
      const onMessage = (result: number[]) => finish(() => resolve(result));
      const onError = (error: Error) => finish(() => reject(error));
      const onAbort = () => finish(() => this.close().then(() => reject(this.signal.reason)));
      const timer = setTimeout(() => {
        finish(() =>
          this.close().then(() =>
            reject(
              new RegexDeadlineError(
                `the pattern took more than ${this.deadlineMs / 1000} s on one file and was stopped; it likely backtracks without end (nested repetition such as (a+)+): simplify it`,
              ),
            ),
          ),
        );
      }, this.deadlineMs);
      worker.on("message", onMessage);
      worker.on("error", onError);
      this.signal.addEventListener("abort", onAbort, { once: true });
      worker.postMessage(text);
    });
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    await worker?.terminate();
  }
}
