import type { ReportOptions, ReportSource } from "./render-report.js";

export type { ReportOptions, ReportSource };

/**
 * A session's report as one self-contained HTML page (docs/report.md). The report's code (and the
 * diff library) loads on the first call, so importing cairn costs nothing for it.
 */
export async function renderReport(source: ReportSource, options: ReportOptions = {}): Promise<string> {
  return (await import("./render-report.js")).renderReport(source, options);
}
