// `npm run build`: tsc emits dist/ (every module and the .d.ts files), then scripts/post-build.mjs
// bundles the entry points. A stamp in dist/ then records the inputs that build saw.
//
// `node scripts/build.mjs --if-stale` builds only when an input differs from the stamp. Vitest runs it
// once before any test file (test/global-setup.ts), so `npx vitest run <file>` after an edit under src/
// never tests an old dist/, and costs a walk over src/ when nothing changed.
//
// One build at a time per checkout: two vitest invocations (or vitest and `npm run build`) started
// together wait for each other through a lock file, and the second then finds the build fresh.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { linkSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
/** Everything the build reads besides node_modules (package.json: the bundler's externals). */
const INPUT_DIRS = ["src"];
const INPUT_FILES = [
  "package.json",
  "package-lock.json",
  "tsconfig.json",
  "tsconfig.build.json",
  "scripts/build.mjs",
  "scripts/post-build.mjs",
  "scripts/prime-code-cache.mjs",
];
/** Files a usable build has; a dist/ without them is rebuilt whatever the stamp says. */
const OUTPUTS = ["dist/cli/bin.cjs", "dist/cli/main.js", "dist/index.js", "dist/testing/index.js"];
const STAMP = join(root, "dist/.build-inputs");
const LOCK = join(root, "dist/.build-lock");
const POLL_MS = 200;
/** Longer than any build takes. */
const LOCK_STALE_MS = 10 * 60_000;

const ifStale = process.argv.includes("--if-stale");
mkdirSync(join(root, "dist"), { recursive: true });
try {
  await holdingLock(() => {
    // Taken before the build: a file edited while tsc runs leaves the stamp behind, so the next
    // run builds again.
    const inputs = fingerprint();
    if (ifStale && isFresh(inputs)) return;
    if (ifStale) process.stderr.write("cairn: dist/ is missing or older than its sources; building it …\n");
    // From nothing: a module deleted from src/ must not linger in dist/, where tests import it and
    // `npm pack` would ship it. Only the lock stays.
    for (const entry of readdirSync(join(root, "dist")))
      if (!entry.startsWith(".build-lock"))
        rmSync(join(root, "dist", entry), { recursive: true, force: true });
    run(createRequire(join(root, "package.json")).resolve("typescript/bin/tsc"), [
      "-p",
      "tsconfig.build.json",
    ]);
    run(join(root, "scripts/post-build.mjs"), []);
    writeFileSync(STAMP, inputs);
  });
} catch (error) {
  process.stderr.write(`cairn: ${error instanceof Error ? error.message : error}\n`);
  process.exitCode = 1;
}

/** A hash over the path, size and modification time of every input (no contents read). */
function fingerprint() {
  const files = [
    ...INPUT_FILES,
    ...INPUT_DIRS.flatMap((dir) =>
      readdirSync(join(root, dir), { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile())
        .map((entry) => join(entry.parentPath ?? entry.path, entry.name).slice(root.length)),
    ),
  ].sort();
  const hash = createHash("sha256");
  for (const file of files) {
    const stat = statSync(join(root, file), { throwIfNoEntry: false });
    hash.update(`${file}\0${stat ? `${stat.size}\0${stat.mtimeMs}` : "missing"}\n`);
  }
  return hash.digest("hex");
}

function isFresh(inputs) {
  return (
    readIfExists(STAMP) === inputs &&
    OUTPUTS.every((file) => statSync(join(root, file), { throwIfNoEntry: false }))
  );
}

/** Runs a node script from the repository root (tsc's and esbuild's errors go to stderr as they are). */
function run(script, args) {
  const result = spawnSync(process.execPath, [script, ...args], { cwd: root, stdio: "inherit" });
  if (result.status !== 0) {
    const how = result.signal ? `was stopped by ${result.signal}` : `exited with ${result.status}`;
    throw new Error(`the build failed (${script.slice(root.length)} ${how}); dist/ is not up to date.`);
  }
}

/**
 * The lock is a file holding its owner's pid, created with link() so that it appears whole or not at
 * all. A lock whose owner is gone (a build killed with a signal) or that is older than any build
 * takes (its pid reused by another program) is taken over. Two waiters taking over the same dead
 * lock at the same instant could both build; that needs a killed build first and costs a build.
 */
async function holdingLock(work) {
  const mine = `${LOCK}.${process.pid}`;
  writeFileSync(mine, String(process.pid));
  try {
    let announced = false;
    while (!tryLink(mine, LOCK)) {
      const owner = Number(readIfExists(LOCK));
      const age = Date.now() - (statSync(LOCK, { throwIfNoEntry: false })?.mtimeMs ?? 0);
      if (!isRunning(owner) || age > LOCK_STALE_MS) {
        rmSync(LOCK, { force: true });
        continue;
      }
      if (!announced) process.stderr.write(`cairn: waiting for the build in process ${owner} …\n`);
      announced = true;
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  } finally {
    rmSync(mine, { force: true });
  }
  try {
    work();
  } finally {
    if (readIfExists(LOCK) === String(process.pid)) rmSync(LOCK, { force: true });
  }
}

function tryLink(from, to) {
  try {
    linkSync(from, to);
    return true;
  } catch (error) {
    if (error.code === "EEXIST") return false;
    throw error;
  }
}

function readIfExists(file) {
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    if (error.code === "ENOENT") return undefined;
    throw error;
  }
}

function isRunning(pid) {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === "EPERM";
  }
}
