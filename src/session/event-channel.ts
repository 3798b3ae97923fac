/**
 * Events that arise beside the engine's own stream (a permission question asked from inside a tool
 * call, a mode change, a notice): queued here and merged into the turn's events by `mergeWith`, so
 * they reach the door while the engine is still waiting for them.
 */
export class EventChannel<T> {
  // One shared promise per wait, resolved with a marker: racing it against the engine's next event
  // costs no promise of its own per event.
  private items: T[] = [];
  private wake: ((value: Woken) => void) | undefined;
  private woken: Promise<Woken> | undefined;

  push(item: T): void {
    this.items.push(item);
    const wake = this.wake;
    this.wake = undefined;
    this.woken = undefined;
    wake?.(WOKEN);
  }

  /** Everything queued so far, in order (the queue is emptied). */
  take(): T[] {
    if (this.items.length === 0) return EMPTY as unknown as T[];
    const items = this.items;
    this.items = [];
    return items;
  }

  /** Resolves on the next `push` (one promise shared by every waiter until then). */
  next(): Promise<Woken> {
    this.woken ??= new Promise<Woken>((resolve) => {
      this.wake = resolve;
    });
    return this.woken;
  }
}

const EMPTY: readonly never[] = [];
const WOKEN: unique symbol = Symbol("woken");
type Woken = typeof WOKEN;

/**
 * `source`'s items with the channel's merged in: whatever the channel holds is yielded before the
 * next item of `source`, and also while `source` is still working on it (it may be waiting for one
 * of them to be acted on: a permission question someone answers). A source that cannot wait on
 * the channel is better read directly, taking the channel's items between its own.
 */
export async function* mergeWith<T, S, R>(
  source: AsyncIterator<T, R>,
  channel: EventChannel<S>,
): AsyncGenerator<T | S, R> {
  while (true) {
    for (const item of channel.take()) yield item;
    const pending = source.next();
    let step: IteratorResult<T, R> | Woken = await Promise.race([pending, channel.next()]);
    while (step === WOKEN) {
      for (const item of channel.take()) yield item;
      step = await Promise.race([pending, channel.next()]);
    }
    if (step.done) return step.value;
    yield step.value;
  }
}
