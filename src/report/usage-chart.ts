import { escapeHtml } from "./escape-html.js";
import type { ModelTotal } from "./report-data.js";

const PARTS = [
  { key: "input", label: "input" },
  { key: "cacheRead", label: "cache read" },
  { key: "cacheCreation", label: "cache write" },
  { key: "output", label: "output" },
] as const;

const ROW = 28;
const LABEL = 190;
const BAR = 360;
const WIDTH = LABEL + BAR + 150;

/**
 * Tokens per model as stacked horizontal bars (input, cache read, cache write, output), each
 * model's cost at the end of its bar: an inline SVG, coloured by the page's theme (CSS classes).
 */
export function usageChart(models: readonly ModelTotal[]): string {
  if (models.length === 0) return "";
  const totals = models.map((model) => PARTS.reduce((sum, part) => sum + model[part.key], 0));
  const max = Math.max(1, ...totals);
  const height = models.length * ROW + 30;
  const rows = models.map((model, index) => {
    const y = index * ROW + 4;
    let x = LABEL;
    const segments = PARTS.map((part) => {
      const width = (model[part.key] / max) * BAR;
      const rect = `<rect class="chart-${part.key}" x="${x.toFixed(1)}" y="${y}" width="${width.toFixed(1)}" height="${ROW - 10}"><title>${escapeHtml(`${model.model}: ${model[part.key].toLocaleString("en-US")} ${part.label} tokens`)}</title></rect>`;
      x += width;
      return rect;
    }).join("");
    const cost = model.costUsd === null ? "price unknown" : formatUsd(model.costUsd);
    return (
      `<text class="chart-label" x="0" y="${y + 13}">${escapeHtml(truncate(model.model, 28))}</text>${segments}` +
      `<text class="chart-value" x="${(x + 6).toFixed(1)}" y="${y + 13}">${escapeHtml(`${totals[index]!.toLocaleString("en-US")} tok · ${cost}`)}</text>`
    );
  });
  const legendY = models.length * ROW + 16;
  const legend = PARTS.map(
    (part, index) =>
      `<rect class="chart-${part.key}" x="${LABEL + index * 90}" y="${legendY - 9}" width="10" height="10"></rect>` +
      `<text class="chart-legend" x="${LABEL + index * 90 + 14}" y="${legendY}">${part.label}</text>`,
  ).join("");
  return `<svg class="usage-chart" role="img" aria-label="Tokens and cost per model" viewBox="0 0 ${WIDTH} ${height}" width="${WIDTH}" height="${height}">${rows.join("")}${legend}</svg>`;
}

export function formatUsd(value: number): string {
  return value < 0.01 && value > 0 ? `$${value.toFixed(4)}` : `$${value.toFixed(2)}`;
}

function truncate(text: string, length: number): string {
  return text.length > length ? `${text.slice(0, length - 1)}…` : text;
}
