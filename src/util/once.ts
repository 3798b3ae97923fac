/**
 * `make()`'s value, computed on the first call and kept: for what start-up should not pay for
 * unless it is used (zod schemas, docs/performance.md).
 */
export function once<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => {
    made ??= { value: make() };
    return made.value;
  };
}
