// `cairn report` on a big session: 10,000 events and 50 MB of tool output (bench/lib/big-session.mjs),
// with the default cap per text. Times the built CLI writing the page; the details give the
// transcript's and the page's sizes and, where Chromium and playwright-core are there, how long the
// page takes to open until its first rows are on screen (docs/report.md).
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { writeBigSession } from "../lib/big-session.mjs";
import { row, runCli, tempWorkspace } from "../lib/harness.mjs";
import { median, round2 } from "../lib/stats.mjs";

/** @typedef {import("../run.mjs").Context} Context */

const CHROMIUM = "/usr/bin/chromium";
const TARGET = /** @type {const} */ ({ text: "≤ 5 s", kind: "max", value: 5000 });

/** Milliseconds from navigation to the first turn rows, in headless Chromium; null without it. */
async function openTime(/** @type {string} */ file, /** @type {number} */ runs) {
  if (!existsSync(CHROMIUM)) return null;
  /** @type {typeof import("playwright-core")} */
  let playwright;
  try {
    playwright = await import("playwright-core");
  } catch {
    return null;
  }
  const browser = await playwright.chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
  try {
    /** @type {number[]} */
    const times = [];
    for (let i = 0; i < runs; i++) {
      const page = await browser.newPage();
      const started = performance.now();
      await page.goto(`file://${file}`);
      await page.locator("details.turn").first().waitFor();
      times.push(performance.now() - started);
      await page.close();
    }
    return round2(median(times));
  } finally {
    await browser.close();
  }
}

export const reportBig = {
  id: "report-big-session",
  title: "cairn report, 10,000 events / 50 MB of output",
  /** @param {Context} ctx */
  async run(ctx) {
    const dir = tempWorkspace();
    const transcript = join(dir, "big.jsonl");
    const out = join(dir, "big.html");
    const made = await writeBigSession(transcript, ctx.quick ? { turns: 500 } : {});
    const once = async () => (await runCli(["report", transcript, "-o", out])).ms;
    for (let i = 0; i < ctx.warmup; i++) await once();
    /** @type {number[]} */
    const times = [];
    for (let i = 0; i < ctx.runs; i++) times.push(await once());
    const openMs = await openTime(out, Math.min(ctx.runs, 3));
    const mb = (/** @type {number} */ bytes) => round2(bytes / 1e6);
    return row({
      id: this.id,
      title: this.title,
      unit: "ms",
      values: times,
      target: TARGET,
      details: {
        events: made.events,
        toolOutputMB: mb(made.outputBytes),
        transcriptMB: mb(statSync(transcript).size),
        reportMB: mb(statSync(out).size),
        openInChromiumMs: openMs,
      },
      note: `page ${mb(statSync(out).size)} MB from a ${mb(statSync(transcript).size)} MB transcript${openMs === null ? "" : `; opens in ${openMs} ms (headless Chromium, first rows shown)`}`,
    });
  },
};
