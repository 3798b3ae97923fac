/**
 * The `node:fs/promises` functions cairn uses, with the module loaded on the first call. Loading it
 * (it brings the readline interface and the file-handle internals) was about 1 ms of every CLI
 * start, and a run without tools now makes no asynchronous file-system call before it answers
 * (missing config, agent and rules files are found out by `stat`s that do not throw).
 */
import type * as FsPromises from "node:fs/promises";
import { lazyRequire } from "./lazy-require.js";

export type { FileHandle } from "node:fs/promises";

const require = lazyRequire(import.meta.url);
let loaded: typeof FsPromises | undefined;
function fsPromises(): typeof FsPromises {
  loaded ??= require("node:fs/promises") as typeof FsPromises;
  return loaded;
}

/** A function of node:fs/promises with its own type (overloads included), loaded when called. */
function deferred<K extends keyof typeof FsPromises>(name: K): (typeof FsPromises)[K] {
  return ((...args: unknown[]) =>
    (fsPromises()[name] as (...a: unknown[]) => unknown)(...args)) as (typeof FsPromises)[K];
}

export const access = deferred("access");
export const chmod = deferred("chmod");
export const mkdir = deferred("mkdir");
export const open = deferred("open");
export const readdir = deferred("readdir");
export const readFile = deferred("readFile");
export const realpath = deferred("realpath");
export const rename = deferred("rename");
export const rm = deferred("rm");
export const stat = deferred("stat");
export const unlink = deferred("unlink");
export const writeFile = deferred("writeFile");
