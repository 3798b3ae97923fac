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
  // Node's fetch parses HTTP with a WebAssembly module; V8's optimising tier then compiles it in the
  // background, which costs about 30 MB of peak memory and 40 ms of CPU per run for code that parses
  // a few kilobytes. The baseline tier is plenty (docs/performance.md). Set before fetch is first used.
  setFlagsFromString("--liftoff-only");
  // Signals are handled from here on (exit 130/143/129), also while the rest of cairn is loading.
  const { Interrupts } = await import("./signals.js");
  const interrupts = new Interrupts().install();
  const { runCli } = await import("./run-cli.js");
  // Exit as soon as the run is over: idle keep-alive sockets or timers must never hold the process.
  process.exit(await runCli(argv, readVersion(), interrupts));
}
