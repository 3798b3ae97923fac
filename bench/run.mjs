// `npm run bench`: cairn's benchmark suite. Builds first (see package.json), then runs each scenario
// several times after a warm-up, prints medians / min / max and the ratio to `node -e 0` measured in
// the same run, and writes bench/results/<timestamp>.json and latest.json. Method: docs/performance.md.
//
//   node bench/run.mjs [--quick] [--only id,id] [--runs N] [--warmup N] [--out DIR] [--dist DIR]
//                      [--env clean|caller|both] [--peers]
//
// Start-up scenarios run in the clean environment (no NODE_EXTRA_CA_CERTS, no NODE_OPTIONS) and,
// when the caller's differs, again in the caller's (`--env both`, the default); every other
// scenario runs in the clean one. Each start-up row reports cairn's own overhead: its median minus
// the median of `node -e 0` runs interleaved with it in the same environment.
// --dist measures another build of cairn (default: dist/); bench/ab.mjs uses it to compare two.
// --peers (never in CI) also runs the one-line answer through Claude Code and Codex, installed at
// pinned versions into .tmp/peers/ the first time (bench/scenarios/peers.mjs), for the side-by-side
// rows, and the interactive modes of cairn, Claude Code, Codex and pi side by side on a
// pseudo-terminal (bench/scenarios/peers-interactive.mjs, id interactive-peers); naming a peer's id
// in --only selects it too.
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import {
  callerEnvironmentDiffers,
  distFile,
  nodeBaseline,
  ROOT,
  removeTempDirs,
  START_UP_VARIABLES,
  setDist,
  setEnvironment,
} from "./lib/harness.mjs";
import { formatTable, machineInfo, sourceInfo, writeResults } from "./lib/report.mjs";
import { summarize } from "./lib/stats.mjs";
import { agentSdkFirstMessage } from "./scenarios/agent-sdk.mjs";
import { grep } from "./scenarios/grep.mjs";
import {
  interactiveFirstFrame,
  interactiveLineModeSession,
  interactiveLongSession,
} from "./scenarios/interactive.mjs";
import { compactionCost, longSessionRss } from "./scenarios/long-session.mjs";
import { mcpStartup } from "./scenarios/mcp.mjs";
import { claudeCodeOneLine, codexOneLine, PEER_VERSIONS } from "./scenarios/peers.mjs";
import { interactivePeers } from "./scenarios/peers-interactive.mjs";
import { renderJobs } from "./scenarios/render-jobs.mjs";
import { reportBig } from "./scenarios/report.mjs";
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

/**
 * Scenarios in the order they run, with their default number of timed runs; `startUp` ones run in
 * both environments; `peer` ones only with --peers (or when --only names them).
 */
const SUITE = [
  { scenario: version, runs: 15, startUp: true },
  { scenario: oneLine, runs: 10, startUp: true },
  { scenario: threeTurn, runs: 10, startUp: true },
  { scenario: claudeCodeOneLine, runs: 10, startUp: true, peer: true },
  { scenario: codexOneLine, runs: 10, startUp: true, peer: true },
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
  { scenario: interactiveFirstFrame, runs: 10 },
  { scenario: interactiveLongSession, runs: 1 },
  { scenario: interactiveLineModeSession, runs: 1 },
  { scenario: renderJobs, runs: 5 },
  { scenario: interactivePeers, runs: 3, peer: true },
  { scenario: reportBig, runs: 3 },
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
    env: { type: "string", default: "both" },
    peers: { type: "boolean", default: false },
    help: { type: "boolean", short: "h", default: false },
  },
});
if (flags.help) {
  process.stdout.write(
    "node bench/run.mjs [--quick] [--only id,id] [--runs N] [--warmup N] [--out DIR] [--dist DIR] [--env clean|caller|both] [--peers]\n" +
      `scenarios: ${SUITE.filter((s) => !s.peer)
        .map((s) => s.scenario.id)
        .join(", ")}\n` +
      `peers (--peers): ${SUITE.filter((s) => s.peer)
        .map((s) => s.scenario.id)
        .join(", ")}\n`,
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
const namesPeer = only?.some((id) => SUITE.some((entry) => entry.peer && entry.scenario.id === id)) ?? false;
const selected = SUITE.filter((entry) =>
  entry.peer
    ? only?.includes(entry.scenario.id) || (flags.peers && !namesPeer)
    : !only || only.includes(entry.scenario.id),
);
if (selected.length === 0) {
  process.stderr.write(`bench: no scenario matches --only ${flags.only}\n`);
  process.exit(2);
}
if (!["clean", "caller", "both"].includes(String(flags.env))) {
  process.stderr.write(`bench: --env must be clean, caller or both, not ${flags.env}\n`);
  process.exit(2);
}
/** @type {import("./lib/harness.mjs").EnvironmentName[]} */
const startUpEnvironments =
  flags.env === "both"
    ? callerEnvironmentDiffers()
      ? ["clean", "caller"]
      : ["clean"]
    : [/** @type {any} */ (flags.env)];
const outDir = resolve(flags.out ?? join(ROOT, "bench/results"));
const log = (/** @type {string} */ message) => process.stderr.write(`bench: ${message}\n`);
/** Every `node -e 0` time of this run, per environment (scenarios with a ratio add their paired runs). @type {Record<string, number[]>} */
const baselines = { clean: [], caller: [] };
const startedAt = new Date().toISOString();
/** @type {Record<string, unknown>[]} */
const rows = [];

// The yardstick on its own first, in each environment measured.
for (const name of startUpEnvironments) {
  setEnvironment(name);
  await nodeBaseline();
  for (let i = 0; i < (flags.quick ? 2 : 5); i++) baselines[name].push((await nodeBaseline()).ms);
}

/** Runs one scenario in one environment; a caller-environment row gets its id suffixed `@caller`. */
async function runScenario(
  /** @type {(typeof SUITE)[number]} */ entry,
  /** @type {import("./lib/harness.mjs").EnvironmentName} */ name,
) {
  const { scenario } = entry;
  setEnvironment(name);
  /** @type {Context} */
  const ctx = {
    runs: flags.runs ? Number(flags.runs) : flags.quick ? 2 : entry.runs,
    warmup: flags.warmup ? Number(flags.warmup) : flags.quick ? 0 : 1,
    quick: flags.quick,
    baseline: baselines[name],
    log,
  };
  const label = name === "clean" ? scenario.id : `${scenario.id}@${name}`;
  log(`${label}: ${ctx.warmup} warm-up + ${ctx.runs} runs`);
  const started = performance.now();
  /** @type {Record<string, any>[]} */
  let produced;
  try {
    const result = await scenario.run(ctx);
    produced = Array.isArray(result) ? result : [result];
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    log(`${label} failed: ${message}`);
    produced = [{ id: scenario.id, title: scenario.title, status: "error", error: message, met: null }];
  } finally {
    removeTempDirs();
  }
  for (const r of produced) {
    rows.push(name === "clean" ? r : { ...r, id: `${r.id}@${name}`, title: `${r.title} [${name} env]` });
  }
  log(`${label}: ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

for (const entry of selected) {
  for (const name of entry.startUp ? startUpEnvironments : ["clean"]) {
    await runScenario(entry, /** @type {import("./lib/harness.mjs").EnvironmentName} */ (name));
  }
}

const results = {
  schema: "cairn-bench/1",
  startedAt,
  finishedAt: new Date().toISOString(),
  quick: flags.quick,
  machine: machineInfo(),
  source: sourceInfo(ROOT),
  dist: distFile("."),
  environments: {
    measured: startUpEnvironments,
    cleanRemoves: START_UP_VARIABLES.filter((name) => process.env[name] !== undefined),
  },
  // The first environment measured (the clean one unless `--env caller`) is the headline's.
  baseline: {
    id: "node-e-0",
    title: "node -e 0",
    unit: "ms",
    ...summarize(baselines[startUpEnvironments[0]]),
  },
  ...(startUpEnvironments.length > 1
    ? {
        baselineCaller: {
          id: "node-e-0@caller",
          title: "node -e 0 [caller env]",
          unit: "ms",
          ...summarize(baselines.caller),
        },
      }
    : {}),
  ...(selected.some((entry) => entry.peer) ? { peers: PEER_VERSIONS } : {}),
  scenarios: rows,
};
process.stdout.write(`\n${formatTable(results.baseline, rows, results.baselineCaller)}\n\n`);
const file = writeResults(outDir, results);
process.stdout.write(`results: ${file}\n`);
process.exitCode = rows.some((r) => r.status === "error") ? 1 : 0;
