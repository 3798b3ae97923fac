#!/usr/bin/env node
/**
 * The `cairn` command. Kept tiny: `--version` answers before anything else is imported, and the
 * print-mode machinery is loaded only when a run is about to start.
 */
import { readFileSync } from "node:fs";

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
  const { runCli } = await import("./run-cli.js");
  // Exit as soon as the run is over: idle keep-alive sockets or timers must never hold the process.
  process.exit(await runCli(argv, readVersion()));
}
