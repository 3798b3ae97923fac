// Spawning and timing whole processes: from just before spawn() to the child's exit with its output
// drained, the way a user or a parent program experiences it.
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * @typedef {object} RunOptions
 * @property {NodeJS.ProcessEnv} [env]
 * @property {string} [cwd]
 * @property {(chunk: Buffer, at: number) => void} [onStdout] called with each stdout chunk and performance.now()
 * @property {boolean} [keepStdout] keep stdout as a string (default true)
 * @property {number} [timeoutMs] kill the child after this long (default 120 s)
 */

/**
 * Runs a command and resolves with its wall time in milliseconds, exit code and output.
 * @param {string} command
 * @param {string[]} args
 * @param {RunOptions} [options]
 * @returns {Promise<{ ms: number, code: number | null, signal: string | null, stdout: string, stderr: string, startedAt: number, endedAt: number }>}
 */
export function timeProcess(command, args, options = {}) {
  const keep = options.keepStdout ?? true;
  return new Promise((resolve, reject) => {
    const startedAt = performance.now();
    const child = spawn(command, args, {
      env: options.env ?? process.env,
      cwd: options.cwd,
      stdio: ["ignore", "pipe", "pipe"],
    });
    /** @type {Buffer[]} */
    const out = [];
    /** @type {Buffer[]} */
    const err = [];
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 120_000);
    child.stdout.on("data", (/** @type {Buffer} */ chunk) => {
      if (options.onStdout) options.onStdout(chunk, performance.now());
      if (keep) out.push(chunk);
    });
    child.stderr.on("data", (/** @type {Buffer} */ chunk) => err.push(chunk));
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on("close", (code, signal) => {
      const endedAt = performance.now();
      clearTimeout(timer);
      resolve({
        ms: endedAt - startedAt,
        code,
        signal,
        stdout: Buffer.concat(out).toString("utf8"),
        stderr: Buffer.concat(err).toString("utf8"),
        startedAt,
        endedAt,
      });
    });
  });
}

/** `node -e 0` in `env`: the yardstick every start-up figure is compared with. @param {NodeJS.ProcessEnv} [env] */
export function timeNodeBaseline(env = process.env) {
  return timeProcess(process.execPath, ["-e", "0"], { env });
}

// Loaded with --import into a measured child when GNU time is missing: at exit it writes the
// process's own peak resident set (getrusage's ru_maxrss, in KiB) to CAIRN_BENCH_RSS_FILE. It cannot
// see what V8 does after the 'exit' event (background compile jobs finishing at teardown can add tens
// of MB), so its figure is a lower bound; GNU time reads the kernel's figure for the whole process.
const RSS_PROBE =
  "data:text/javascript," +
  encodeURIComponent(
    'import { writeFileSync } from "node:fs";' +
      'process.on("exit", () => { try { writeFileSync(process.env.CAIRN_BENCH_RSS_FILE, String(process.resourceUsage().maxRSS)); } catch {} });',
  );

const GNU_TIME = "/usr/bin/time";
/** @type {boolean | undefined} */
let gnuTime;

/** Whether /usr/bin/time is GNU time (it takes -f and -o). */
function hasGnuTime() {
  if (gnuTime === undefined) {
    const probe = spawnSync(GNU_TIME, ["-f", "%M", "-o", "/dev/null", "true"], { stdio: "ignore" });
    gnuTime = probe.status === 0;
  }
  return gnuTime;
}

/**
 * Runs `node [nodeArgs]` and returns its peak RSS in MB (10^6 bytes, as the targets are written)
 * along with the run and how it was measured.
 * @param {string[]} nodeArgs arguments for node: the script and its arguments
 * @param {RunOptions} [options]
 */
export async function measurePeakRss(nodeArgs, options = {}) {
  const dir = mkdtempSync(join(tmpdir(), "cairn-bench-rss-"));
  const file = join(dir, "maxrss");
  try {
    if (hasGnuTime()) {
      const run = await timeProcess(
        GNU_TIME,
        ["-f", "%M", "-o", file, process.execPath, ...nodeArgs],
        options,
      );
      const kib = Number(readFileSync(file, "utf8").trim().split("\n").at(-1));
      return { run, peakMB: (kib * 1024) / 1e6, method: "kernel (GNU time)" };
    }
    const run = await timeProcess(process.execPath, ["--import", RSS_PROBE, ...nodeArgs], {
      ...options,
      env: { ...(options.env ?? process.env), CAIRN_BENCH_RSS_FILE: file },
    });
    const kib = Number(readFileSync(file, "utf8"));
    return { run, peakMB: (kib * 1024) / 1e6, method: "in-process at exit (lower bound)" };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
