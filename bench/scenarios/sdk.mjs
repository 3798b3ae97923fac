// The SDK in-process: first message latency, and 1,000 concurrent queries with the memory each one
// costs (bench/sdk-probe.mjs runs them in a process of its own, the scripted server in another).
import { join } from "node:path";
import { cleanEnv, distFile, ROOT, row, unavailable } from "../lib/harness.mjs";
import { timeProcess } from "../lib/processes.mjs";
import { round2 } from "../lib/stats.mjs";

/** @typedef {import("../run.mjs").Context} Context */

const FIRST_TARGET = /** @type {const} */ ({ text: "≤ 5 ms after the call", kind: "max", value: 5 });
/** Issue 19: (peak RSS − the warmed-up baseline) ÷ queries, with every query answered its own answer. */
const PER_QUERY_TARGET = /** @type {const} */ ({ text: "≤ 1 MB per query", kind: "max", value: 1 });

async function probe(/** @type {number} */ sequential, /** @type {number} */ concurrent) {
  const run = await timeProcess(
    process.execPath,
    // --expose-gc: the memory baseline is taken after a full collection.
    ["--expose-gc", join(ROOT, "bench/sdk-probe.mjs"), distFile("."), String(sequential), String(concurrent)],
    {
      env: cleanEnv(),
    },
  );
  const line = run.stdout.trim().split("\n").at(-1) ?? "";
  try {
    return JSON.parse(line);
  } catch {
    throw new Error(`sdk-probe exited ${run.code}: ${run.stderr.trim() || run.stdout.slice(-400)}`);
  }
}

export const sdkFirstMessage = {
  id: "sdk-first-message",
  title: "SDK: first message after query()",
  /** @param {Context} ctx */
  async run(ctx) {
    const sequential = ctx.quick ? 3 : 20;
    const concurrent = ctx.quick ? 10 : 1000;
    const out = await probe(sequential, concurrent);
    if (out.status !== "ok") {
      return [
        unavailable(this.id, this.title, out.reason, FIRST_TARGET),
        unavailable("sdk-concurrent", `SDK: ${concurrent} concurrent queries`, out.reason, PER_QUERY_TARGET),
      ];
    }
    /** @type {number[]} */
    const first = out.firstMessageMs;
    const warm = first.slice(1);
    return [
      row({
        id: this.id,
        title: this.title,
        unit: "ms",
        values: warm,
        target: FIRST_TARGET,
        details: { coldFirstQueryMs: round2(first[0]), firstMessageTypes: out.firstMessageTypes },
        note: "the first query of the process (cold, loads the provider) is in details",
      }),
      concurrentRow(out),
    ];
  },
};

/**
 * The concurrent queries' row: the memory each query costs, met only when it is within the target
 * and every query completed with the answer of its own request under a session id of its own.
 * @param {{ concurrent: Record<string, number>, memoryMB: Record<string, number> }} out
 */
function concurrentRow(out) {
  const c = out.concurrent;
  const m = out.memoryMB;
  const noCrossTalk = c.completed === c.queries && c.crossTalk === 0 && c.distinctSessions === c.queries;
  const r = row({
    id: "sdk-concurrent",
    title: `SDK: ${c.queries} concurrent queries, memory per query`,
    unit: "MB/query",
    values: [m.rssPerQuery],
    target: PER_QUERY_TARGET,
    details: { ...c, noCrossTalk, memoryMB: m },
    note:
      `${c.completed}/${c.queries} completed, ${c.crossTalk} with another query's answer, ` +
      `${c.distinctSessions} distinct sessions; wall ${c.wallMs} ms (${c.msPerQuery} ms/query); ` +
      `RSS ${m.baselineRss} MB → peak ${m.peakRss} MB, heap ${m.baselineHeapUsed} → ${m.peakHeapUsed} MB`,
  });
  return { ...r, met: r.met === true && noCrossTalk };
}
