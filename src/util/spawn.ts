/**
 * `child_process.spawn`, with node:child_process loaded on the first call: with it come dgram and
 * the child-process internals, about 0.6 ms of every CLI start, and a run without a shell command,
 * hook or Grep never spawns. (The CLI's build gives commander the same treatment.)
 */
import type * as ChildProcess from "node:child_process";
import { createRequire } from "node:module";

let childProcess: typeof ChildProcess | undefined;

export const spawn = ((...args: Parameters<typeof ChildProcess.spawn>) => {
  childProcess ??= createRequire(import.meta.url)("node:child_process") as typeof ChildProcess;
  return childProcess.spawn(...args);
}) as typeof ChildProcess.spawn;
