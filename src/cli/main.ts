#!/usr/bin/env node
/**
 * The `cairn` command. Kept tiny: `--version` answers before anything else is imported, and the
 * print-mode machinery is loaded only when a run is about to start.
 */
import { readFileSync } from "node:fs";
import { setFlagsFromString } from "node:v8";

function readVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
    version: string;
  };
  return pkg.version;
}

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === "-v" || argv[0] === "--version")) {
  process.stdout.write(`${readVersion()}\n`);
} else {
  // Node's fetch (still used by HTTP MCP servers; the model clients send over node:http) parses HTTP
  // with a WebAssembly module; V8's optimising tier then compiles it in the background, which costs
  // about 30 MB of peak memory and 40 ms of CPU per run for code that parses a few kilobytes. The
  // baseline tier is plenty (docs/performance.md). Set before fetch is first used.
  setFlagsFromString("--liftoff-only");
  // V8 optimises a function after about 132 kB of its bytecode has run; in a CLI run that is mostly
  // code that will not run much longer, compiled on the second core while the stream is busy. With
  // 64 times that, a 20,000-delta stream ran about 20 % faster (docs/performance.md); code that stays
  // hot through a long session is still optimised.
  setFlagsFromString("--interrupt-budget=8388608");
  // Signals are handled from here on (exit 130/143/129), also while the rest of cairn is loading.
  const { Interrupts } = await import("./signals.js");
  const interrupts = new Interrupts().install();
  const { runCli } = await import("./run-cli.js");
  // Exit as soon as the run is over: idle keep-alive sockets or timers must never hold the process.
  process.exit(await runCli(argv, readVersion(), interrupts));
}
