// The SDK in-process: first message latency and 100 concurrent queries (bench/sdk-probe.mjs runs
// them in a process of its own).
import { join } from "node:path";
import { cleanEnv, distFile, ROOT, row, unavailable } from "../lib/harness.mjs";
import { timeProcess } from "../lib/processes.mjs";
import { round2 } from "../lib/stats.mjs";

/** @typedef {import("../run.mjs").Context} Context */

const FIRST_TARGET = /** @type {const} */ ({ text: "≤ 5 ms after the call", kind: "max", value: 5 });

async function probe(/** @type {number} */ sequential, /** @type {number} */ concurrent) {
  const run = await timeProcess(
    process.execPath,
    [join(ROOT, "bench/sdk-probe.mjs"), distFile("."), String(sequential), String(concurrent)],
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
    const concurrent = ctx.quick ? 10 : 100;
    const out = await probe(sequential, concurrent);
    if (out.status !== "ok") {
      return [
        unavailable(this.id, this.title, out.reason, FIRST_TARGET),
        unavailable("sdk-concurrent", `SDK: ${concurrent} concurrent queries`, out.reason),
      ];
    }
    /** @type {number[]} */
    const first = out.firstMessageMs;
    const warm = first.slice(1);
    const c = out.concurrent;
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
      {
        ...row({
          id: "sdk-concurrent",
          title: `SDK: ${c.queries} concurrent queries`,
          unit: "ms",
          values: [c.wallMs],
          details: { ...c, memoryMB: out.memoryMB },
          note: `${c.completed}/${c.queries} completed, ${c.crossTalk} with another query's answer; peak RSS ${out.memoryMB.peakRss} MB`,
        }),
        met: c.completed === c.queries && c.crossTalk === 0 && c.distinctSessions === c.queries,
        target: { text: "all complete, no cross-talk", kind: "max", value: 0 },
      },
    ];
  },
};
