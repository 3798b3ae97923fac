/**
 * An integer with its thousands grouped by commas, as `toLocaleString("en-US")` writes it, without
 * Intl: the first Intl object a process makes builds ICU's set of locales (about 110 M instructions,
 * some 14 % of a one-line print-mode run), which a tool's description must not cost every start.
 */
export function groupDigits(value: number): string {
  const [whole = "", fraction] = String(Math.abs(value)).split(".");
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return `${value < 0 ? "-" : ""}${grouped}${fraction === undefined ? "" : `.${fraction}`}`;
}
