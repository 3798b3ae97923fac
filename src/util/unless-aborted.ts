/**
 * `promise`'s outcome, unless `signal` aborts first: then what `aborted()` returns (or throws). For
 * waits on code that is not ours (a callback, a host) that may never settle: an abort must end them.
 */
export function unlessAborted<T, A>(
  signal: AbortSignal,
  promise: Promise<T>,
  aborted: () => A,
): Promise<T | A> {
  if (signal.aborted) return Promise.resolve().then(aborted);
  return new Promise<T | A>((resolve, reject) => {
    const onAbort = () => {
      try {
        resolve(aborted());
      } catch (error) {
        reject(error);
      }
    };
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
