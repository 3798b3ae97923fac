/**
 * `child_process.spawn`, with node:child_process loaded on the first call: with it come dgram and
 * the child-process internals, about 0.6 ms of every CLI start, and a run without a shell command,
 * hook or Grep never spawns. (The CLI's build gives commander the same treatment.)
 */
import type * as ChildProcess from "node:child_process";
import { lazyRequire } from "./lazy-require.js";

const require = lazyRequire(import.meta.url);

export const spawn = ((...args: Parameters<typeof ChildProcess.spawn>) =>
  (require("node:child_process") as typeof ChildProcess).spawn(...args)) as typeof ChildProcess.spawn;
