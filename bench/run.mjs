// `npm run bench`: cairn's benchmark suite. Builds first (see package.json), then runs each scenario
// several times after a warm-up, prints medians / min / max and the ratio to `node -e 0` measured in
// the same run, and writes bench/results/<timestamp>.json and latest.json. Method: docs/performance.md.
//
//   node bench/run.mjs [--quick] [--only id,id] [--runs N] [--warmup N] [--out DIR] [--dist DIR]
//
// --dist measures another build of cairn (default: dist/); bench/ab.mjs uses it to compare two.
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { distFile, ROOT, removeTempDirs, setDist } from "./lib/harness.mjs";
import { timeNodeBaseline } from "./lib/processes.mjs";
import { formatTable, machineInfo, sourceInfo, writeResults } from "./lib/report.mjs";
import { summarize } from "./lib/stats.mjs";
import { agentSdkFirstMessage } from "./scenarios/agent-sdk.mjs";
import { grep } from "./scenarios/grep.mjs";
import { compactionCost, longSessionRss } from "./scenarios/long-session.mjs";
import { mcpStartup } from "./scenarios/mcp.mjs";
import { sandboxPerCommand } from "./scenarios/sandbox.mjs";
import { sdkFirstMessage } from "./scenarios/sdk.mjs";
import { sessionResume } from "./scenarios/sessions.mjs";
import { oneLine, peakRss, threeTurn, version } from "./scenarios/startup.mjs";
import { slowStream, stream20k } from "./scenarios/streaming.mjs";
import { bash50 } from "./scenarios/tool-turns.mjs";

/**
 * What a scenario gets.
 * @typedef {object} Context
 * @property {number} runs timed runs
 * @property {number} warmup untimed runs first
 * @property {boolean} quick the smoke-test size
 * @property {number[]} baseline every `node -e 0` time measured in this run (pooled for the table)
 * @property {(message: string) => void} log progress, on stderr
 */

/** Scenarios in the order they run, with their default number of timed runs. */
const SUITE = [
  { scenario: version, runs: 15 },
  { scenario: oneLine, runs: 10 },
  { scenario: threeTurn, runs: 10 },
  { scenario: peakRss, runs: 5 },
  { scenario: stream20k, runs: 7 },
  { scenario: slowStream, runs: 3 },
  { scenario: bash50, runs: 5 },
  { scenario: sandboxPerCommand, runs: 5 },
  { scenario: sdkFirstMessage, runs: 1 },
  { scenario: grep, runs: 5 },
  { scenario: sessionResume, runs: 5 },
  { scenario: mcpStartup, runs: 7 },
  { scenario: agentSdkFirstMessage, runs: 7 },
  { scenario: compactionCost, runs: 5 },
  { scenario: longSessionRss, runs: 1 },
];
const QUICK = ["one-line"];

const { values: flags } = parseArgs({
  options: {
    quick: { type: "boolean", default: false },
    only: { type: "string" },
    runs: { type: "string" },
    warmup: { type: "string" },
    out: { type: "string" },
    dist: { type: "string" },
    help: { type: "boolean", short: "h", default: false },
  },
});
if (flags.help) {
  process.stdout.write(
    "node bench/run.mjs [--quick] [--only id,id] [--runs N] [--warmup N] [--out DIR] [--dist DIR]\n" +
      `scenarios: ${SUITE.map((s) => s.scenario.id).join(", ")}\n`,
  );
  process.exit(0);
}
if (flags.dist) setDist(resolve(flags.dist));
if (!existsSync(distFile("cli/main.js"))) {
  process.stderr.write(
    `bench: ${distFile("cli/main.js")} is missing; run \`npm run bench\` (it builds first)\n`,
  );
  process.exit(2);
}

const only = flags.only ? flags.only.split(",") : flags.quick ? QUICK : undefined;
const selected = SUITE.filter((entry) => !only || only.includes(entry.scenario.id));
if (selected.length === 0) {
  process.stderr.write(`bench: no scenario matches --only ${flags.only}\n`);
  process.exit(2);
}
const outDir = resolve(flags.out ?? join(ROOT, "bench/results"));
const log = (/** @type {string} */ message) => process.stderr.write(`bench: ${message}\n`);
/** @type {number[]} */
const baseline = [];
const startedAt = new Date().toISOString();
/** @type {Record<string, unknown>[]} */
const rows = [];

// The yardstick on its own first (scenarios with a ratio add their paired runs to it).
await timeNodeBaseline();
for (let i = 0; i < (flags.quick ? 2 : 5); i++) baseline.push((await timeNodeBaseline()).ms);

for (const entry of selected) {
  const { scenario } = entry;
  /** @type {Context} */
  const ctx = {
    runs: flags.runs ? Number(flags.runs) : flags.quick ? 2 : entry.runs,
    warmup: flags.warmup ? Number(flags.warmup) : flags.quick ? 0 : 1,
    quick: flags.quick,
    baseline,
    log,
  };
  log(`${scenario.id}: ${ctx.warmup} warm-up + ${ctx.runs} runs`);
  const started = performance.now();
  try {
    const produced = await scenario.run(ctx);
    for (const r of Array.isArray(produced) ? produced : [produced]) rows.push(r);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    log(`${scenario.id} failed: ${message}`);
    rows.push({ id: scenario.id, title: scenario.title, status: "error", error: message, met: null });
  } finally {
    removeTempDirs();
  }
  log(`${scenario.id}: ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

const results = {
  schema: "cairn-bench/1",
  startedAt,
  finishedAt: new Date().toISOString(),
  quick: flags.quick,
  machine: machineInfo(),
  source: sourceInfo(ROOT),
  dist: distFile("."),
  baseline: { id: "node-e-0", title: "node -e 0", unit: "ms", ...summarize(baseline) },
  scenarios: rows,
};
process.stdout.write(`\n${formatTable(results.baseline, rows)}\n\n`);
const file = writeResults(outDir, results);
process.stdout.write(`results: ${file}\n`);
process.exitCode = rows.some((r) => r.status === "error") ? 1 : 0;
