#!/usr/bin/env node
/**
 * The `cairn` bin (package.json `bin`; tsc emits it as dist/cli/bin.cjs). A CommonJS file: Node starts
 * one about 5 ms sooner than an ES module, which is most of `--version`'s time.
 *
 * Everything else runs the CLI bundle, dist/cli/cli.cjs (src/entry/start.ts and all it imports, one
 * CommonJS file built by scripts/post-build.mjs), compiled through `vm.Script` with a V8 code cache:
 * compiling the bundle's ES modules was the largest item of a run's start-up (docs/performance.md).
 * The cache is what V8 produced for this very bundle, Node and set of V8 flags; V8 checks Node's
 * version and the flags itself and rejects a cache that does not fit, and the file name carries a
 * hash of the bundle (V8 only compares the source's length). No V8 flag is set at run time: any
 * change to V8's flags also makes V8 reject the code cache Node ships for its own built-in modules,
 * which then compile from source, about 25 ms more per run (docs/performance.md). It lives next to the bundle
 * (dist/cli/.code-cache/) when that is writable, else in the user's cache directory, never in a
 * shared temporary directory (a cache is code). CAIRN_CODE_CACHE=0 turns it off;
 * CAIRN_CODE_CACHE=<dir> puts it in <dir>. A missing or rejected cache is written when the process
 * exits, once; a cache that cannot be read or written only costs the compile.
 */
import type * as Fs from "node:fs";
import type * as Vm from "node:vm";

/** Replaced by scripts/post-build.mjs with a hash of dist/cli/cli.cjs. */
const BUNDLE_ID = "unbuilt";
/**
 * Replaced by scripts/post-build.mjs with package.json's version: requiring package.json (finding,
 * reading and parsing it) was about 1 ms of every run. Unbuilt, it is read at run time.
 */
const PACKAGE_VERSION: string = "unbuilt";

const argv = process.argv.slice(2);
const version = (): string =>
  PACKAGE_VERSION !== "unbuilt"
    ? PACKAGE_VERSION
    : (require("../../package.json") as { version: string }).version;

if (argv.length === 1 && (argv[0] === "-v" || argv[0] === "--version")) {
  process.stdout.write(`${version()}\n`);
} else {
  const cli = loadBundle() as { startCli(argv: string[], version: string): Promise<void> };
  void cli.startCli(argv, version());
}

/** Compiles and runs dist/cli/cli.cjs as a CommonJS module, with the code cache when there is one. */
function loadBundle(): unknown {
  const fs = require("node:fs") as typeof Fs;
  const path = require("node:path") as typeof import("node:path");
  const vm = require("node:vm") as typeof Vm;
  const file = path.join(__dirname, "cli.cjs");
  // The bundle is ASCII (the build checks), so Latin-1 reads it as it is, without UTF-8 decoding.
  const source = fs.readFileSync(file, "latin1");
  const cacheFiles = codeCacheFiles(path);
  let cachedData: Buffer | undefined;
  for (const candidate of cacheFiles) {
    try {
      cachedData = fs.readFileSync(candidate);
      break;
    } catch {}
  }
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: file,
    cachedData,
    // import() inside the bundle (optional dependencies such as node-llama-cpp) goes to Node's loader.
    importModuleDynamically:
      vm.constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER ??
      ((specifier: string) => import(specifier) as unknown as Promise<Vm.Module>),
  });
  if (cacheFiles.length > 0 && (cachedData === undefined || script.cachedDataRejected === true)) {
    // At exit, the cache holds every function the run compiled, not just the top level.
    process.once("exit", () => writeCodeCache(fs, path, script, cacheFiles));
  }
  const module = { exports: {} };
  const { createRequire } = require("node:module") as typeof import("node:module");
  script.runInThisContext()(module.exports, createRequire(file), module, file, path.dirname(file));
  return module.exports;
}

/** Where this bundle's cache may be, first choice first; none when turned off. */
function codeCacheFiles(path: typeof import("node:path")): string[] {
  const setting = process.env.CAIRN_CODE_CACHE;
  if (setting === "0" || setting === "off") return [];
  const name = `cli-${BUNDLE_ID}-${process.version}-${process.arch}-${flagsKey()}.cache`;
  if (setting) return [path.join(path.resolve(setting), name)];
  const dirs = [path.join(__dirname, ".code-cache")];
  // Only absolute directories (the XDG rule): a relative one would put the cache in whatever
  // directory the run happens to start in.
  const xdg = process.env.XDG_CACHE_HOME;
  const home = process.env.HOME;
  const userCache =
    xdg && path.isAbsolute(xdg) ? xdg : home && path.isAbsolute(home) ? path.join(home, ".cache") : undefined;
  if (userCache) dirs.push(path.join(userCache, "cairn", "code-cache"));
  return dirs.map((dir) => path.join(dir, name));
}

/**
 * The options Node was started with change V8's flags, and a cache made under other flags is
 * rejected: one cache per set of options, so processes started differently do not overwrite each
 * other's. (FNV-1a; no crypto module on the start-up path.)
 */
function flagsKey(): string {
  const text = `${process.execArgv.join("\0")}\0${process.env.NODE_OPTIONS ?? ""}`;
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return (hash >>> 0).toString(16);
}

/** Writes the cache to the first place that takes it, atomically (parallel runs each write whole files). */
function writeCodeCache(fs: typeof Fs, path: typeof import("node:path"), script: Vm.Script, files: string[]) {
  let data: Buffer;
  try {
    data = script.createCachedData();
  } catch {
    return;
  }
  for (const file of files) {
    const temp = `${file}.${process.pid}.tmp`;
    try {
      fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
      fs.writeFileSync(temp, data, { mode: 0o600 });
      fs.renameSync(temp, file);
      removeOtherBuilds(fs, path, file);
      return;
    } catch {
      try {
        fs.rmSync(temp, { force: true });
      } catch {}
    }
  }
}

/** Caches of earlier builds next to this one are dead weight (a rebuilt bundle has a new hash). */
function removeOtherBuilds(fs: typeof Fs, path: typeof import("node:path"), file: string) {
  const dir = path.dirname(file);
  if (dir !== path.join(__dirname, ".code-cache")) return; // a shared directory may serve other installs
  for (const name of fs.readdirSync(dir)) {
    if (name.startsWith("cli-") && !name.startsWith(`cli-${BUNDLE_ID}-`))
      fs.rmSync(path.join(dir, name), { force: true });
  }
}
