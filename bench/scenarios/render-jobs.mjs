// What the interactive mode pays for running without V8's optimizing compilers
// (src/interactive/memory-reclaim.ts, docs/performance.md): its larger drawing jobs — a long
// answer streamed through the markdown renderer, the diff of a large Edit, a long code block
// highlighted — timed in child processes with the compilers off (as the interactive mode runs)
// and on (as every other mode runs), alternating, in the same run.
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { distFile, row } from "../lib/harness.mjs";
import { median } from "../lib/stats.mjs";

/** @typedef {import("../run.mjs").Context} Context */

const CHILD = fileURLToPath(new URL("../lib/render-jobs.mjs", import.meta.url));
const JOBS = {
  stream: "a 30 KB markdown answer streamed in 16-character deltas (committed blocks and live rows)",
  diff: "the diff of an Edit to a 5,000-line file, every 50th line changed",
  highlight: "300 lines of TypeScript highlighted",
};

export const renderJobs = {
  id: "interactive-render-jobs",
  title: "interactive: larger drawing jobs without V8's optimizing compilers, against with them",
  /** @param {Context} ctx */
  async run(ctx) {
    /** @type {Record<"on" | "off", Record<string, number[]>>} */
    const steady = { on: {}, off: {} };
    /** @type {Record<"on" | "off", Record<string, number[]>>} */
    const first = { on: {}, off: {} };
    for (let round = 0; round < ctx.warmup + ctx.runs; round++) {
      for (const compilers of /** @type {const} */ (["off", "on"])) {
        const out = execFileSync(process.execPath, [CHILD, distFile(""), compilers], { encoding: "utf8" });
        if (round < ctx.warmup) continue;
        for (const [job, times] of Object.entries(JSON.parse(out))) {
          steady[compilers][job] ??= [];
          first[compilers][job] ??= [];
          // The first runs load and warm up; from the third on, what a long session pays.
          steady[compilers][job].push(median(times.slice(2)));
          first[compilers][job].push(times[0]);
        }
      }
    }
    return Object.entries(JOBS).map(([job, what]) => {
      const on = median(steady.on[job]);
      const off = median(steady.off[job]);
      return row({
        id: `interactive-render-${job}`,
        title: `interactive: ${what}, compilers off`,
        unit: "ms",
        values: steady.off[job],
        details: {
          withCompilersMs: Math.round(on * 100) / 100,
          offOverOn: Math.round((off / on) * 100) / 100,
          firstRunOffMs: Math.round(median(first.off[job]) * 10) / 10,
          firstRunOnMs: Math.round(median(first.on[job]) * 10) / 10,
        },
        note: "median of a process's runs 3–12, one process per round; details: the same with the compilers on, their ratio, and each side's first run",
      });
    });
  },
};
