// Compares two builds scenario by scenario, alternating A and B so that a machine drifting during the
// comparison affects both alike (each side's ratio is to its own `node -e 0`, measured alongside):
//
//   node bench/ab.mjs --a .tmp/ab/before/dist --b dist [--only id,id] [--rounds 3] [--runs N]
//
// Prints medians of the rounds' medians and B/A, and writes bench/results/ab-<timestamp>.json.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { ROOT } from "./lib/harness.mjs";
import { median } from "./lib/stats.mjs";

const { values: flags } = parseArgs({
  options: {
    a: { type: "string" },
    b: { type: "string" },
    only: { type: "string" },
    rounds: { type: "string", default: "3" },
    runs: { type: "string" },
  },
});
if (!flags.a || !flags.b) {
  process.stderr.write("usage: node bench/ab.mjs --a DIST --b DIST [--only id,id] [--rounds 3] [--runs N]\n");
  process.exit(2);
}
const sides = { A: resolve(flags.a), B: resolve(flags.b) };
const rounds = Number(flags.rounds);
const scratch = mkdtempSync(join(tmpdir(), "cairn-bench-ab-"));
/** @type {Record<"A" | "B", Record<string, { title: string, unit: string, medians: number[], ratios: number[], own: number[] }>>} */
const seen = { A: {}, B: {} };

try {
  for (let round = 0; round < rounds; round++) {
    for (const side of /** @type {const} */ (["A", "B"])) {
      const out = join(scratch, `${side}-${round}`);
      const args = [join(ROOT, "bench/run.mjs"), "--dist", sides[side], "--out", out];
      if (flags.only) args.push("--only", flags.only);
      if (flags.runs) args.push("--runs", flags.runs);
      process.stderr.write(`ab: round ${round + 1}/${rounds}, ${side} = ${sides[side]}\n`);
      try {
        execFileSync(process.execPath, args, { stdio: ["ignore", "ignore", "inherit"] });
      } catch {
        // a failed scenario is reported in its results file like the others
      }
      const results = JSON.parse(readFileSync(join(out, "latest.json"), "utf8"));
      for (const row of results.scenarios) {
        if (row.status !== "ok") continue;
        seen[side][row.id] ??= { title: row.title, unit: row.unit, medians: [], ratios: [], own: [] };
        const entry = seen[side][row.id];
        entry.medians.push(row.median);
        if (typeof row.ratio === "number") entry.ratios.push(row.ratio);
        const own = row.details?.ownOverheadMs ?? row.ownOverheadMs;
        if (typeof own === "number" && Number.isFinite(own)) entry.own.push(own);
      }
    }
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

/** @type {Record<string, unknown>[]} */
const comparison = [];
const lines = [["scenario", "unit", "A", "B", "B/A", "A ratio", "B ratio", "A own ms", "B own ms"]];
for (const [id, a] of Object.entries(seen.A)) {
  const b = seen.B[id];
  if (!b) continue;
  const ma = median(a.medians);
  const mb = median(b.medians);
  const ra = a.ratios.length ? median(a.ratios) : undefined;
  const rb = b.ratios.length ? median(b.ratios) : undefined;
  // Own overhead: the scenario's median minus its interleaved `node -e 0` median, per round.
  const oa = a.own.length ? median(a.own) : undefined;
  const ob = b.own.length ? median(b.own) : undefined;
  comparison.push({
    id,
    title: a.title,
    unit: a.unit,
    a: ma,
    b: mb,
    bOverA: mb / ma,
    aRatio: ra,
    bRatio: rb,
    aOwnMs: oa,
    bOwnMs: ob,
    rounds: { a, b },
  });
  const fmt = (/** @type {number | undefined} */ x) =>
    x === undefined ? "" : x >= 100 ? x.toFixed(0) : x.toFixed(2);
  lines.push([a.title, a.unit, fmt(ma), fmt(mb), (mb / ma).toFixed(2), fmt(ra), fmt(rb), fmt(oa), fmt(ob)]);
}
const widths = lines[0].map((_, i) => Math.max(...lines.map((l) => l[i].length)));
process.stdout.write(`${lines.map((l) => l.map((c, i) => c.padEnd(widths[i])).join("  ")).join("\n")}\n`);
let commit = null;
try {
  commit = execFileSync("git", ["rev-parse", "HEAD"], { cwd: ROOT, encoding: "utf8" }).trim();
} catch {
  // not a git checkout
}
mkdirSync(join(ROOT, "bench/results"), { recursive: true });
const file = join(ROOT, "bench/results", `ab-${new Date().toISOString().replace(/[:.]/g, "-")}.json`);
writeFileSync(
  file,
  `${JSON.stringify({ schema: "cairn-bench-ab/1", commit, sides, rounds, comparison }, null, 2)}\n`,
);
process.stdout.write(`results: ${file}\n`);
