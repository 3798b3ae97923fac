#!/usr/bin/env node
/**
 * `node dist/cli/main.js`: the same CLI as the `cairn` bin (dist/cli/bin.cjs), for programs that
 * expect a `.js` entry (the agent SDKs run a `.js` executable with node; docs/protocols.md).
 */
import { createRequire } from "node:module";

createRequire(import.meta.url)("./bin.cjs");
