/**
 * Events tool calls report while they run (a subagent's events), for the loop to yield between its
 * waits on the calls. `push` resolves once the loop has yielded the event and its consumer took it:
 * a reporting call never runs ahead of what its consumer has seen.
 */
export class ReportQueue<T> {
  static readonly READY = Symbol("reports ready");
  private items: { value: T; ack: () => void }[] = [];
  private wake: (() => void) | undefined;

  get size(): number {
    return this.items.length;
  }

  push(value: T): Promise<void> {
    return new Promise((ack) => {
      this.items.push({ value, ack });
      this.wake?.();
      this.wake = undefined;
    });
  }

  /** Resolves when something is queued (at once when something already is). */
  ready(): Promise<typeof ReportQueue.READY> {
    if (this.items.length > 0) return Promise.resolve(ReportQueue.READY);
    return new Promise((resolve) => {
      this.wake = () => resolve(ReportQueue.READY);
    });
  }

  /** Everything queued, oldest first; the caller acks each once it is delivered. */
  take(): { value: T; ack: () => void }[] {
    return this.items.splice(0);
  }
}
