import { escapeHtml } from "./escape-html.js";
import { PAGE_STYLE } from "./page-style.js";
import type { ReportData } from "./report-data.js";
import { formatUsd, usageChart } from "./usage-chart.js";
import { VIEWER_SCRIPT } from "./viewer-script.js";

/**
 * The report: one HTML file with everything inline. The summary (prompt, answer, totals, chart)
 * is HTML; the timeline is the embedded JSON, rendered by the inline script as it is opened, so a
 * session of thousands of turns opens as fast as a short one. The Content-Security-Policy allows
 * no request at all: the page works from disk, as a CI artifact, offline.
 */
export function renderPage(data: ReportData): string {
  const { totals } = data;
  const title = `cairn session ${data.session.id}`;
  const json = JSON.stringify(data).replace(/</g, "\\u003c");
  const stat = (label: string, value: string, id: string) =>
    `<div class="stat" data-stat="${id}"><div class="stat-value">${escapeHtml(value)}</div><div class="stat-label">${escapeHtml(label)}</div></div>`;
  const tokens = totals.input + totals.output + totals.cacheRead + totals.cacheCreation;
  const notes = [
    data.redacted ? "File contents and command output were left out (--redact)." : "",
    `Texts longer than ${data.capChars.toLocaleString("en-US")} characters are cut in the middle; the cut says how much is missing.`,
    data.resultCapChars < data.capChars
      ? `This session's tool output passes the report's ${data.outputBudgetChars.toLocaleString("en-US")} characters for it: each tool result is cut to ${data.resultCapChars.toLocaleString("en-US")} characters.`
      : "",
    "Secrets the transcript had already scrubbed stay scrubbed.",
  ].filter(Boolean);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<title>${escapeHtml(title)}</title>
<style>${PAGE_STYLE}</style>
</head>
<body>
<header class="top">
  <h1>cairn session <code>${escapeHtml(data.session.id)}</code></h1>
  <div class="meta">${escapeHtml(data.session.cwd)} · started ${escapeHtml(data.session.createdAt)}${data.session.forkedFrom ? ` · forked from ${escapeHtml(data.session.forkedFrom)}` : ""}</div>
  <button type="button" id="theme-toggle" class="theme-toggle" aria-label="Switch theme">Theme: auto</button>
</header>
<main>
<section class="summary">
  <h2>Prompt</h2>
  <pre class="prompt" id="prompt">${escapeHtml(data.prompt)}</pre>
  <h2>Final answer</h2>
  <pre class="answer" id="answer">${escapeHtml(data.answer || "(no answer)")}</pre>
  <div class="stats">
    ${stat("total time", formatMs(totals.durationMs), "duration")}
    ${stat("model time", formatMs(totals.modelMs), "model")}
    ${stat("tool time", formatMs(totals.toolMs), "tool")}
    ${stat("cairn's own time", formatMs(totals.cairnMs), "cairn")}
    ${stat("turns", String(totals.turns), "turns")}
    ${stat("tool calls", String(totals.toolCalls), "calls")}
    ${stat("errors", String(totals.errors), "errors")}
    ${stat("denied", String(totals.denials), "denials")}
    ${stat("retries", String(totals.retries), "retries")}
    ${stat("compactions", String(totals.compactions), "compactions")}
    ${stat("subagents", String(totals.subagents), "subagents")}
    ${stat("tokens", tokens.toLocaleString("en-US"), "tokens")}
    ${stat("cost", totals.costUsd === null ? "unknown" : formatUsd(totals.costUsd), "cost")}
  </div>
  <h2>Tokens and cost per model</h2>
  <table class="models" id="models">
    <thead><tr><th>model</th><th>calls</th><th>input</th><th>cache read</th><th>cache write</th><th>output</th><th>cost</th></tr></thead>
    <tbody>${data.models
      .map(
        (model) =>
          `<tr><td>${escapeHtml(model.model)}</td><td>${model.calls}</td><td>${n(model.input)}</td><td>${n(model.cacheRead)}</td><td>${n(model.cacheCreation)}</td><td>${n(model.output)}</td><td>${model.costUsd === null ? "price unknown" : formatUsd(model.costUsd)}</td></tr>`,
      )
      .join("")}</tbody>
  </table>
  ${usageChart(data.models)}
  <ul class="notes">${notes.map((note) => `<li>${escapeHtml(note)}</li>`).join("")}</ul>
</section>
<section class="timeline-section">
  <h2>Timeline</h2>
  <div class="toolbar">
    <input type="search" id="search" placeholder="Search prompts, answers, commands, files, output…" aria-label="Search">
    <select id="filter" aria-label="Filter"></select>
    <label class="diff-mode"><input type="checkbox" id="side-by-side"> diffs side by side</label>
    <span id="match-count" class="match-count"></span>
  </div>
  <div class="legend"><span class="swatch model"></span>model <span class="swatch tool"></span>tools <span class="swatch cairn"></span>cairn</div>
  <div id="timeline" class="timeline"><noscript>The timeline needs JavaScript; the summary above does not.</noscript></div>
</section>
</main>
<footer>Report made by cairn on ${escapeHtml(data.generatedAt)}. Everything is in this one file; it loads nothing from the network.</footer>
<script type="application/json" id="report-data">${json}</script>
<script>${VIEWER_SCRIPT}</script>
</body>
</html>
`;
}

function n(value: number): string {
  return value.toLocaleString("en-US");
}

/** 1234 → "1.2 s", 75000 → "1 min 15 s". */
export function formatMs(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const minutes = Math.floor(ms / 60_000);
  return `${minutes} min ${Math.round((ms % 60_000) / 1000)} s`;
}
