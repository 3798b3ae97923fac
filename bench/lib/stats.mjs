// Small statistics helpers. Every figure the bench reports is a median with its min and max.

/** @param {number[]} values */
export function median(values) {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Nearest-rank percentile (p in 0..100). @param {number[]} values @param {number} p */
export function percentile(values, p) {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

/** median, min, max and the samples themselves (rounded for the JSON file). @param {number[]} values */
export function summarize(values, digits = 2) {
  const round = (/** @type {number} */ x) => (Number.isFinite(x) ? Number(x.toFixed(digits)) : null);
  return {
    median: round(median(values)),
    min: round(Math.min(...values)),
    max: round(Math.max(...values)),
    samples: values.map(round),
  };
}

/** @param {number} x */
export function round2(x) {
  return Number.isFinite(x) ? Number(x.toFixed(2)) : null;
}
