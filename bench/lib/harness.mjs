// What every scenario shares: where the built CLI is, a clean environment, temp workspaces, the
// scripted model server, and runs paired with `node -e 0` so ratios survive a machine drifting.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { timeNodeBaseline, timeProcess } from "./processes.mjs";
import { median, round2, summarize } from "./stats.mjs";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** The build under test: dist/ by default; `--dist DIR` measures another (docs/performance.md, A/B). */
let dist = join(ROOT, "dist");

export function setDist(/** @type {string} */ dir) {
  dist = dir;
}

/** A file of the build under test, e.g. distFile("cli/main.js"). */
export function distFile(/** @type {string} */ relative) {
  return join(dist, relative);
}

/**
 * The `cairn` bin of the build under test (dist/cli/bin.cjs, what package.json's `bin` names), or
 * dist/cli/main.js for an older build that has no bin of its own (A/B against earlier snapshots).
 */
export function cliEntry() {
  const bin = distFile("cli/bin.cjs");
  return existsSync(bin) ? bin : distFile("cli/main.js");
}

/** The project's scripted model server, from the build (`npm run build`). */
export async function loadTesting() {
  const path = distFile("testing/index.js");
  if (!existsSync(path)) throw new Error(`${path} is missing: run \`npm run build\` first`);
  return import(pathToFileURL(path).href);
}

/** One throw-away $CAIRN_HOME for the whole bench run: transcripts never reach the user's ~/.cairn. */
export const BENCH_CAIRN_HOME = mkdtempSync(join(tmpdir(), "cairn-bench-home-"));
process.on("exit", () => rmSync(BENCH_CAIRN_HOME, { recursive: true, force: true }));

/**
 * Which environment the measured processes get (docs/performance.md, "Two environments"):
 * - `clean`: without the variables that make every Node process slower at start (the certificate
 *   bundle of NODE_EXTRA_CA_CERTS is parsed before any code runs; NODE_OPTIONS can preload anything),
 *   the figures the targets are judged by;
 * - `caller`: the bench's own environment as it is, what a user with that environment sees.
 * @typedef {"clean" | "caller"} EnvironmentName
 */
/** @type {EnvironmentName} */
let environment = "clean";

/** Variables removed in the clean environment: they slow every Node process, `node -e 0` included. */
export const START_UP_VARIABLES = ["NODE_EXTRA_CA_CERTS", "NODE_OPTIONS"];

export function setEnvironment(/** @type {EnvironmentName} */ name) {
  environment = name;
}

export function currentEnvironment() {
  return environment;
}

/** Whether the caller's environment differs from the clean one (else measuring both is pointless). */
export function callerEnvironmentDiffers() {
  return START_UP_VARIABLES.some((name) => process.env[name] !== undefined);
}

/**
 * The environment for a measured process: this process's, without anything that could pick another
 * model or leak a real key (and, in the clean environment, without START_UP_VARIABLES), plus
 * `extra`. CAIRN_HOME points at the bench's own temp directory.
 * @param {NodeJS.ProcessEnv} [extra]
 */
export function cleanEnv(extra = {}) {
  /** @type {NodeJS.ProcessEnv} */
  const env = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (name.startsWith("ANTHROPIC_") || name.startsWith("OPENAI_") || name.startsWith("CAIRN_")) continue;
    if (name.endsWith("_API_KEY")) continue;
    if (environment === "clean" && START_UP_VARIABLES.includes(name)) continue;
    env[name] = value;
  }
  return { ...env, CAIRN_HOME: BENCH_CAIRN_HOME, ...extra };
}

/** `node -e 0` in the current environment: the yardstick of every start-up figure. */
export function nodeBaseline() {
  return timeNodeBaseline(cleanEnv());
}

/** Environment that points cairn's default provider at a scripted server. @param {{ url: string }} server */
export function serverEnv(server) {
  return cleanEnv({ ANTHROPIC_API_KEY: "bench-key", ANTHROPIC_BASE_URL: server.url });
}

/** @type {string[]} */
const tempDirs = [];

/** A fresh temp directory holding `files` (relative path → content); removed by `removeTempDirs()`. */
export function tempWorkspace(/** @type {Record<string, string>} */ files = {}) {
  const dir = mkdtempSync(join(tmpdir(), "cairn-bench-"));
  tempDirs.push(dir);
  for (const [path, content] of Object.entries(files)) writeFileSync(join(dir, path), content);
  return dir;
}

export function removeTempDirs() {
  for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/**
 * Runs the built CLI once and fails loudly when it does not exit 0 (a broken run must never be
 * timed as a fast one).
 * @param {string[]} args
 * @param {import("./processes.mjs").RunOptions} [options]
 */
export async function runCli(args, options = {}) {
  const run = await timeProcess(process.execPath, [cliEntry(), ...args], {
    env: cleanEnv(),
    ...options,
  });
  if (run.code !== 0) {
    throw new Error(
      `cairn ${args.join(" ")} exited ${run.code ?? run.signal}: ${run.stderr.trim() || run.stdout.slice(-500)}`,
    );
  }
  return run;
}

/**
 * Runs `once` `warmup` times untimed, then `runs` times, each followed by one `node -e 0`, so that
 * the ratio compares runs made under the same conditions. `once` returns milliseconds (or an object
 * with `ms`). Returns both series and the ratio of their medians.
 * @template {{ ms: number }} T
 * @param {{ runs: number, warmup: number, baseline: number[] }} ctx
 * @param {() => Promise<T>} once
 */
export async function pairedWithBaseline(ctx, once) {
  for (let i = 0; i < ctx.warmup; i++) {
    await once();
    await nodeBaseline();
  }
  /** @type {T[]} */
  const results = [];
  /** @type {number[]} */
  const base = [];
  for (let i = 0; i < ctx.runs; i++) {
    results.push(await once());
    const b = (await nodeBaseline()).ms;
    base.push(b);
    ctx.baseline.push(b);
  }
  const times = results.map((r) => r.ms);
  return {
    results,
    times,
    base,
    ratio: median(times) / median(base),
  };
}

/**
 * A scenario's row: the summary of `values` plus what it is compared with.
 * @param {object} spec
 * @param {string} spec.id
 * @param {string} spec.title
 * @param {string} spec.unit
 * @param {number[]} spec.values
 * @param {{ text: string, kind: "overhead-max" | "ratio-max" | "max" | "below" | "min", value: number }} [spec.target]
 *   `max` is met at or under the value, `below` only under it, `min` at or over it
 * @param {number[]} [spec.base] paired `node -e 0` times, when the target is a ratio
 * @param {Record<string, unknown>} [spec.details]
 * @param {string} [spec.note]
 */
export function row(spec) {
  const summary = summarize(spec.values);
  const baseMedian = spec.base ? median(spec.base) : undefined;
  const ratio = baseMedian !== undefined ? median(spec.values) / baseMedian : undefined;
  // cairn's own time: what it adds to a bare Node process started the same way, in the same run.
  const ownOverhead = baseMedian !== undefined ? median(spec.values) - baseMedian : undefined;
  /** @type {boolean | null} */
  let met = null;
  if (spec.target) {
    const kind = spec.target.kind;
    const measured =
      kind === "ratio-max" ? ratio : kind === "overhead-max" ? ownOverhead : median(spec.values);
    if (measured !== undefined && Number.isFinite(measured)) {
      met =
        kind === "min"
          ? measured >= spec.target.value
          : kind === "below"
            ? measured < spec.target.value
            : measured <= spec.target.value;
    }
  }
  return {
    id: spec.id,
    title: spec.title,
    environment,
    status: "ok",
    unit: spec.unit,
    ...summary,
    ...(ratio !== undefined
      ? {
          ratio: round2(ratio),
          baselineMedianMs: round2(baseMedian ?? Number.NaN),
          ownOverheadMs: round2(ownOverhead ?? Number.NaN),
        }
      : {}),
    ...(spec.target ? { target: spec.target } : {}),
    met,
    ...(spec.note ? { note: spec.note } : {}),
    ...(spec.details ? { details: spec.details } : {}),
  };
}

/** A scenario that could not run here (a missing tool or module), with the reason. */
export function unavailable(
  /** @type {string} */ id,
  /** @type {string} */ title,
  /** @type {string} */ reason,
  /** @type {{ text: string, kind: "ratio-max" | "max" | "min", value: number } | undefined} */ target,
) {
  return { id, title, status: "unavailable", reason, ...(target ? { target } : {}), met: null };
}

/** Splits NDJSON output into parsed objects (lines that are not JSON are skipped). @param {string} text */
export function parseLines(text) {
  /** @type {Record<string, unknown>[]} */
  const out = [];
  for (const line of text.split("\n")) {
    if (line === "") continue;
    try {
      out.push(JSON.parse(line));
    } catch {
      // not a JSON line
    }
  }
  return out;
}

/** The stream-json result line of a run; throws when the run did not end in success. @param {string} stdout */
export function resultOf(stdout) {
  const result = parseLines(stdout).find((line) => line.type === "result");
  if (!result || result.is_error) throw new Error(`no successful result line in: ${stdout.slice(-400)}`);
  return result;
}
