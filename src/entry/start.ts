/**
 * The `cairn` executable after `--version`'s fast path: what `dist/cli/bin.cjs` runs. The build
 * bundles this module and everything it imports into one CommonJS file, `dist/cli/cli.cjs`, which the
 * bin compiles with a V8 code cache (src/cli/bin.cts, docs/performance.md).
 */

/** Runs cairn on `argv` (without node and the script) and exits with its code. */
export async function startCli(argv: string[], version: string): Promise<void> {
  // Signals are handled from here on (exit 130/143/129), also while the rest of cairn is loading.
  const { Interrupts } = await import("../util/signals.js");
  const interrupts = new Interrupts().install();
  // (zod loads on its first use, without its per-schema compiler: lazyZod in scripts/post-build.mjs.)
  const { runCairn } = await import("./run-cairn.js");
  // Exit as soon as the run is over: idle keep-alive sockets or timers must never hold the process.
  process.exit(await runCairn(argv, version, interrupts));
}
