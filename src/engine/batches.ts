/**
 * One event at a time from a generator of event batches, passing on its return value. Stopping
 * early (`return()`, a `break` in `for await`) closes the source too, so its `finally` blocks run
 * (timers cleared, the model request released), as `yield*` would.
 */
export async function* eachEvent<T, R>(batches: AsyncGenerator<T[], R>): AsyncGenerator<T, R> {
  let finished = false;
  try {
    while (true) {
      const next = await batches.next();
      if (next.done) {
        finished = true;
        return next.value;
      }
      for (const event of next.value) yield event;
    }
  } finally {
    if (!finished) await batches.return(undefined as R);
  }
}
