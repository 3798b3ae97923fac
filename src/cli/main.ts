#!/usr/bin/env node
/**
 * `node dist/cli/main.js`: the same CLI as the `cairn` bin (dist/cli/bin.cjs), for programs that
 * expect a `.js` entry: the agent SDKs run a `.js` executable with node, and the Python SDK spawns
 * this file directly (docs/protocols.md). It is the SDKs' entry, so its `-v` answers as they read it:
 * the protocol version first, cairn's own after it (src/claude-protocol/protocol-version.ts). The
 * `cairn` bin's `-v` stays cairn's version alone.
 */
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const argv = process.argv.slice(2);

if (argv.length === 1 && (argv[0] === "-v" || argv[0] === "--version")) {
  const { agentSdkVersionLine } = await import("../claude-protocol/protocol-version.js");
  const { version } = require("../../package.json") as { version: string };
  process.stdout.write(agentSdkVersionLine(version));
} else require("./bin.cjs");
