// The printed table and the results file.
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";

/** @param {number | null | undefined} value @param {string} unit */
function formatValue(value, unit) {
  if (value === null || value === undefined || !Number.isFinite(value)) return "–";
  if (unit === "deltas/s") return Math.round(value).toLocaleString("en");
  if (unit === "MB/query") return value.toFixed(2);
  if (Math.abs(value) >= 100) return value.toFixed(0);
  return value.toFixed(1);
}

/** @typedef {{ median: number, min: number, max: number, samples: number[] }} Summary */

/** The yardstick's row. @param {string} title @param {Summary} baseline */
function yardstickLine(title, baseline) {
  return [
    title,
    formatValue(baseline.median, "ms"),
    formatValue(baseline.min, "ms"),
    formatValue(baseline.max, "ms"),
    "ms",
    "1.00",
    "0",
    "",
    "",
  ];
}

/**
 * @param {Summary} baseline
 * @param {Record<string, any>[]} rows
 * @param {Summary} [callerBaseline] the yardstick in the caller's environment, when it was measured too
 */
export function formatTable(baseline, rows, callerBaseline) {
  const header = ["scenario", "median", "min", "max", "unit", "ratio", "own ms", "target", "met"];
  /** @type {string[][]} */
  const lines = [yardstickLine("node -e 0 (yardstick)", baseline)];
  if (callerBaseline) lines.push(yardstickLine("node -e 0 (yardstick) [caller env]", callerBaseline));
  for (const r of rows) {
    if (r.status !== "ok") {
      lines.push([r.title, r.status, "", "", "", "", "", r.target?.text ?? "", r.reason ?? r.error ?? ""]);
      continue;
    }
    const own = typeof r.ownOverheadMs === "number" ? formatValue(r.ownOverheadMs, "ms") : "";
    const ratio = r.ratio !== undefined ? `${r.ratio.toFixed(2)}${r.ratioTo ? ` (${r.ratioTo})` : ""}` : "";
    const met = r.met === true ? "yes" : r.met === false ? "NO" : "";
    lines.push([
      r.title,
      formatValue(r.median, r.unit),
      formatValue(r.min, r.unit),
      formatValue(r.max, r.unit),
      r.unit,
      ratio,
      own,
      r.target?.text ?? "",
      met,
    ]);
  }
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => (i === 8 ? 3 : l[i].length))));
  const numeric = (/** @type {number} */ i) => (i >= 1 && i <= 3) || i === 6;
  const pad = (/** @type {string[]} */ cells) =>
    cells
      .map((c, i) => (numeric(i) ? c.padStart(widths[i]) : c.padEnd(widths[i])))
      .join("  ")
      .trimEnd();
  return [pad(header), widths.map((w) => "-".repeat(w)).join("  "), ...lines.map(pad)].join("\n");
}

export function machineInfo() {
  const cpus = os.cpus();
  return {
    node: process.version,
    v8: process.versions.v8,
    platform: `${process.platform} ${os.release()}`,
    arch: process.arch,
    cpus: cpus.length,
    cpuModel: cpus[0]?.model ?? "unknown",
    memoryGB: Number((os.totalmem() / 1e9).toFixed(1)),
  };
}

/** The commit measured, and whether the tree had changes (a figure is only as good as its source). @param {string} root */
export function sourceInfo(root) {
  try {
    const commit = execFileSync("git", ["rev-parse", "HEAD"], { cwd: root, encoding: "utf8" }).trim();
    const dirty = execFileSync("git", ["status", "--porcelain", "--", "src", "package.json"], {
      cwd: root,
      encoding: "utf8",
    }).trim();
    return { commit, dirty: dirty !== "" };
  } catch {
    return { commit: null, dirty: null };
  }
}

/** Writes `<dir>/<timestamp>.json` and `<dir>/latest.json`; returns the timestamped path. */
export function writeResults(/** @type {string} */ dir, /** @type {Record<string, unknown>} */ results) {
  mkdirSync(dir, { recursive: true });
  const stamp = String(results.startedAt).replace(/[:.]/g, "-");
  const file = join(dir, `${stamp}.json`);
  writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
  copyFileSync(file, join(dir, "latest.json"));
  return file;
}
