// The official agent SDK driving cairn's CLI (the agent-SDK protocol, docs/protocols.md) against
// cairn's in-process query(): time to the first message, paired in one loop (bench/agent-sdk-probe.mjs).
import { join } from "node:path";
import { cleanEnv, distFile, ROOT, row, unavailable } from "../lib/harness.mjs";
import { timeProcess } from "../lib/processes.mjs";
import { median, round2 } from "../lib/stats.mjs";

/** @typedef {import("../run.mjs").Context} Context */

export const agentSdkFirstMessage = {
  id: "agent-sdk-first-message",
  title: "official agent SDK → cairn CLI: first message (vs in-process query())",
  /** @param {Context} ctx */
  async run(ctx) {
    const run = await timeProcess(
      process.execPath,
      [join(ROOT, "bench/agent-sdk-probe.mjs"), distFile("."), String(ctx.quick ? 2 : ctx.runs)],
      { env: cleanEnv() },
    );
    const line = run.stdout.trim().split("\n").at(-1) ?? "";
    /** @type {{ status: string, reason?: string, viaOfficial: number[], inProcess: number[], firstTypes: string[] }} */
    let out;
    try {
      out = JSON.parse(line);
    } catch {
      throw new Error(`agent-sdk-probe exited ${run.code}: ${run.stderr.trim() || run.stdout.slice(-400)}`);
    }
    if (out.status !== "ok") return unavailable(this.id, this.title, out.reason ?? "unavailable", undefined);
    return row({
      id: this.id,
      title: this.title,
      unit: "ms",
      values: out.viaOfficial,
      details: {
        inProcessMedianMs: round2(median(out.inProcess)),
        officialSdkMedianMs: round2(median(out.viaOfficial)),
        ratio: round2(median(out.viaOfficial) / median(out.inProcess)),
        firstMessageTypes: out.firstTypes,
      },
      note: "the official SDK spawns cairn's CLI per query; the in-process query() spawns nothing",
    });
  },
};
