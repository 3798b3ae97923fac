/**
 * The V8 flags the CLI runs with (never the SDK: the caller's process is not ours to tune).
 *
 * - `--liftoff-only`: Node's fetch (still used by HTTP MCP servers; the model clients send over
 *   node:http) parses HTTP with a WebAssembly module, and V8's optimising tier would compile it in
 *   the background: about 30 MB of peak memory and 40 ms of CPU per run for code that parses a few
 *   kilobytes. The baseline tier is plenty.
 * - `--interrupt-budget`: V8 optimises a function after about 132 kB of its bytecode has run; in a
 *   CLI run that is mostly code that will not run much longer, compiled on the second core while the
 *   stream is busy. With 64 times that, a 20,000-delta stream ran about 20 % faster; code that stays
 *   hot through a long session is still optimised.
 *
 * docs/performance.md has the measurements. src/cli/bin.cts keeps its own copy of this list (it
 * must not load anything before it compiles the bundle); test/cli/code-cache.test.ts checks the two agree.
 */
export const V8_FLAGS: readonly string[] = ["--liftoff-only", "--interrupt-budget=8388608"];
