/**
 * The report's stylesheet. Light by default, dark where the system prefers it; the page's toggle
 * sets `data-theme` on <html>, which wins over the system. System fonts only (nothing to download).
 */
export const PAGE_STYLE = `
:root {
  --bg: #ffffff; --fg: #1f2328; --muted: #59636e; --panel: #f6f8fa; --border: #d1d9e0;
  --accent: #0969da; --error: #cf222e; --ok: #1a7f37; --warn: #9a6700;
  --add-bg: #dafbe1; --del-bg: #ffebe9; --add-fg: #116329; --del-fg: #82071e;
  --model: #8250df; --tool: #0969da; --cairn: #bf8700;
  --c-input: #0969da; --c-cacheRead: #54aeff; --c-cacheCreation: #bf8700; --c-output: #8250df;
  color-scheme: light;
}
:root[data-theme="dark"] {
  --bg: #0d1117; --fg: #e6edf3; --muted: #9198a1; --panel: #151b23; --border: #3d444d;
  --accent: #4493f8; --error: #f85149; --ok: #3fb950; --warn: #d29922;
  --add-bg: #12361f; --del-bg: #3c1618; --add-fg: #7ee787; --del-fg: #ffa198;
  --model: #ab7df8; --tool: #4493f8; --cairn: #d29922;
  --c-input: #4493f8; --c-cacheRead: #1f6feb; --c-cacheCreation: #d29922; --c-output: #ab7df8;
  color-scheme: dark;
}
@media (prefers-color-scheme: dark) {
  :root:not([data-theme="light"]) {
    --bg: #0d1117; --fg: #e6edf3; --muted: #9198a1; --panel: #151b23; --border: #3d444d;
    --accent: #4493f8; --error: #f85149; --ok: #3fb950; --warn: #d29922;
    --add-bg: #12361f; --del-bg: #3c1618; --add-fg: #7ee787; --del-fg: #ffa198;
    --model: #ab7df8; --tool: #4493f8; --cairn: #d29922;
    --c-input: #4493f8; --c-cacheRead: #1f6feb; --c-cacheCreation: #d29922; --c-output: #ab7df8;
    color-scheme: dark;
  }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg);
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
code, pre, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace; font-size: 12.5px; }
header.top { display: flex; flex-wrap: wrap; align-items: baseline; gap: 12px; padding: 16px 24px; border-bottom: 1px solid var(--border); }
header.top h1 { font-size: 18px; margin: 0; }
header.top .meta { color: var(--muted); flex: 1; }
main { padding: 0 24px 24px; max-width: 1300px; }
h2 { font-size: 15px; margin: 20px 0 8px; }
pre { white-space: pre-wrap; word-break: break-word; margin: 0; background: var(--panel); border: 1px solid var(--border); border-radius: 6px; padding: 8px 10px; max-height: 420px; overflow: auto; }
button, select, input { font: inherit; color: inherit; background: var(--panel); border: 1px solid var(--border); border-radius: 6px; padding: 4px 8px; }
button { cursor: pointer; }
.stats { display: flex; flex-wrap: wrap; gap: 8px; margin-top: 16px; }
.stat { background: var(--panel); border: 1px solid var(--border); border-radius: 6px; padding: 6px 12px; min-width: 100px; }
.stat-value { font-size: 16px; font-weight: 600; }
.stat-label { color: var(--muted); font-size: 12px; }
table.models { border-collapse: collapse; margin-bottom: 10px; }
table.models th, table.models td { border: 1px solid var(--border); padding: 3px 10px; text-align: right; }
table.models th:first-child, table.models td:first-child { text-align: left; }
.usage-chart text { fill: var(--fg); font-size: 12px; }
.usage-chart .chart-legend { fill: var(--muted); }
.chart-input { fill: var(--c-input); } .chart-cacheRead { fill: var(--c-cacheRead); }
.chart-cacheCreation { fill: var(--c-cacheCreation); } .chart-output { fill: var(--c-output); }
.notes { color: var(--muted); font-size: 12px; padding-left: 18px; }
.toolbar { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; margin-bottom: 8px; }
.toolbar input[type=search] { flex: 1; min-width: 240px; }
.match-count { color: var(--muted); }
.legend { color: var(--muted); font-size: 12px; margin-bottom: 6px; }
.swatch { display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin: 0 3px 0 10px; vertical-align: middle; }
.swatch.model, .bar .model { background: var(--model); }
.swatch.tool, .bar .tool { background: var(--tool); }
.swatch.cairn, .bar .cairn { background: var(--cairn); }
.run { margin: 14px 0; border-left: 3px solid var(--border); padding-left: 10px; }
.run-head { font-weight: 600; margin-bottom: 6px; }
.run-end { color: var(--muted); margin: 6px 0; }
.run-end.error { color: var(--error); }
details { border: 1px solid var(--border); border-radius: 6px; margin: 4px 0; background: var(--bg); }
details > summary { cursor: pointer; padding: 4px 8px; list-style-position: outside; display: flex; gap: 8px; align-items: center; flex-wrap: wrap; }
details > summary::-webkit-details-marker { display: none; }
details > summary::before { content: "▸"; color: var(--muted); }
details[open] > summary::before { content: "▾"; }
details > .body { padding: 6px 10px 10px; display: flex; flex-direction: column; gap: 6px; }
.turn-label { font-weight: 600; min-width: 64px; }
.bar { display: inline-flex; height: 10px; width: 160px; background: var(--panel); border-radius: 2px; overflow: hidden; }
.bar span { display: block; height: 100%; }
.times { color: var(--muted); font-size: 12px; }
.chip { font-size: 12px; padding: 0 6px; border-radius: 10px; border: 1px solid var(--border); color: var(--muted); }
.chip.error, .decision-denied { color: var(--error); border-color: var(--error); }
.chip.ok, .decision-allowed { color: var(--ok); border-color: var(--ok); }
.call-name { font-weight: 600; }
.call-summary { font-family: ui-monospace, monospace; font-size: 12.5px; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; max-width: 640px; }
.label { color: var(--muted); font-size: 12px; }
.assistant-text { white-space: pre-wrap; }
.thinking { color: var(--muted); font-style: italic; }
.note { color: var(--muted); padding: 2px 8px; }
.note.error, .error-text { color: var(--error); }
.compaction { border: 1px dashed var(--warn); }
.compaction > summary { color: var(--warn); }
.retry { color: var(--warn); }
.cut { color: var(--warn); font-size: 12px; }
.diff { border: 1px solid var(--border); border-radius: 6px; overflow: auto; max-height: 520px; }
.diff table { border-collapse: collapse; width: 100%; font-family: ui-monospace, monospace; font-size: 12.5px; }
.diff td { padding: 0 6px; white-space: pre-wrap; word-break: break-word; vertical-align: top; }
.diff td.op { width: 1.5em; color: var(--muted); user-select: none; }
.diff tr.add td, .diff td.add { background: var(--add-bg); color: var(--add-fg); }
.diff tr.del td, .diff td.del { background: var(--del-bg); color: var(--del-fg); }
.diff tr.gap td { color: var(--muted); background: var(--panel); }
.diff-head { display: flex; gap: 8px; align-items: baseline; }
.subagent { border-left: 3px solid var(--model); padding-left: 8px; }
.show-more { margin: 8px 0; }
mark { background: #fff8c5; color: #1f2328; }
footer { color: var(--muted); font-size: 12px; padding: 12px 24px; border-top: 1px solid var(--border); }
`;
