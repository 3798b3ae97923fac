/**
 * Events that arise beside the engine's own stream (a permission question asked from inside a tool
 * call, a mode change, a notice): queued here and merged into the turn's events by `mergeWith`, so
 * they reach the door while the engine is still waiting for them.
 */
export class EventChannel<T> {
  private items: T[] = [];
  // One waiter at a time, replaced by the next wait: nothing accumulates on the channel over a long
  // turn in which nothing is pushed (a shared promise raced against every engine event kept one
  // reaction per event until the next push: thousands in a long session).
  private waiter: (() => void) | undefined;

  push(item: T): void {
    this.items.push(item);
    const wake = this.waiter;
    this.waiter = undefined;
    wake?.();
  }

  /** Everything queued so far, in order (the queue is emptied). */
  take(): T[] {
    if (this.items.length === 0) return EMPTY as unknown as T[];
    const items = this.items;
    this.items = [];
    return items;
  }

  /** `wake` is called at the next `push`, unless another wait replaced it before. */
  wakeOnPush(wake: () => void): void {
    this.waiter = wake;
  }
}

const EMPTY: readonly never[] = [];
const WOKEN: unique symbol = Symbol("woken");
type Woken = typeof WOKEN;

/** The source's next item, or WOKEN as soon as something is pushed to the channel. */
function nextOrWoken<T, R, S>(
  pending: Promise<IteratorResult<T, R>>,
  channel: EventChannel<S>,
): Promise<IteratorResult<T, R> | Woken> {
  return new Promise((resolve, reject) => {
    channel.wakeOnPush(() => resolve(WOKEN));
    pending.then(resolve, reject);
  });
}

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
    let step: IteratorResult<T, R> | Woken = await nextOrWoken(pending, channel);
    while (step === WOKEN) {
      for (const item of channel.take()) yield item;
      step = await nextOrWoken(pending, channel);
    }
    if (step.done) return step.value;
    yield step.value;
  }
}
