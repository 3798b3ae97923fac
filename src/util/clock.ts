/**
 * Milliseconds on a monotonic clock, as `performance.now()` gives them (both count from the start
 * of the process). The first use of the `performance` global loads Node's perf_hooks, about a
 * millisecond of every CLI run's start-up (docs/performance.md).
 */
export function nowMs(): number {
  return process.uptime() * 1000;
}
