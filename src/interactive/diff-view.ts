import type { ToolDisplay } from "../tools/types.js";
import { diffLines } from "./diff-rows.js";
import type { RenderModules } from "./render-modules.js";
import type { Styles } from "./style.js";
import { type Segment, wrapSegments } from "./styled-wrap.js";
import { printable } from "./text-width.js";

/** Lines of a diff shown (a permission question, a tool's result); the rest is counted. */
const MAX_LINES = 40;
/** Unchanged lines kept before and after each change. */
const CONTEXT = 1;
/** Below this share of unchanged text, a changed line pair gets no word marks (it was rewritten). */
const SIMILAR = 0.3;

type Line = { sign: "-" | "+" | " " | "⋯"; segments: Segment[] };

/**
 * The change a Write or Edit makes, as rows: `-` lines red, `+` lines green, one unchanged line of
 * context around each change, and inside a changed line that mostly stayed the same, the words that
 * changed marked (inverse) — word-level, from the `diff` package. Long lines are cut to the width
 * and go on, indented, on the next row. Without the diff module yet, the plain `-`/`+` lines.
 */
export function diffViewRows(
  diff: NonNullable<ToolDisplay["diff"]>,
  width: number,
  styles: Styles,
  modules: RenderModules | undefined,
): string[] {
  const lines = modules ? wordLines(diff, modules, styles) : plainLines(diff);
  const shown = lines.slice(0, MAX_LINES);
  const rows: string[] = [];
  for (const line of shown) {
    if (line.sign === "⋯") {
      rows.push(styles.dim("  ⋯"));
      continue;
    }
    const style = line.sign === "-" ? styles.red : line.sign === "+" ? styles.green : styles.dim;
    const body = wrapSegments(line.segments.length > 0 ? line.segments : [{ text: "" }], width - 4, true);
    body.forEach((row, i) => {
      rows.push(
        `  ${i === 0 ? style(line.sign) : " "} ${line.sign === " " || line.sign === "⋯" ? styles.dim(row) : style(row)}`,
      );
    });
  }
  const more = lines.length - shown.length;
  if (more > 0) rows.push(styles.dim(`  … ${more} more line${more === 1 ? "" : "s"}`));
  return rows;
}

function plainLines(diff: NonNullable<ToolDisplay["diff"]>): Line[] {
  return diffLines(diff).map((line) => ({ sign: line.sign, segments: [{ text: printable(line.text) }] }));
}

function splitLines(text: string): string[] {
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

function wordLines(diff: NonNullable<ToolDisplay["diff"]>, modules: RenderModules, styles: Styles): Line[] {
  const parts = modules.diffLines(diff.oldText ?? "", diff.newText);
  const out: Line[] = [];
  parts.forEach((part, index) => {
    const lines = splitLines(part.value);
    if (!part.added && !part.removed) {
      // Context: the lines next to a change; what lies between is one `⋯`.
      const first = index === 0;
      const last = index === parts.length - 1;
      const keepStart = first ? 0 : CONTEXT;
      const keepEnd = last ? 0 : CONTEXT;
      const context = (text: string): Line => ({ sign: " ", segments: [{ text: printable(text) }] });
      if (lines.length <= keepStart + keepEnd + 1) out.push(...lines.map(context));
      else {
        out.push(...lines.slice(0, keepStart).map(context));
        out.push({ sign: "⋯", segments: [] });
        out.push(...lines.slice(lines.length - keepEnd).map(context));
      }
      return;
    }
    if (part.added && parts[index - 1]?.removed) return; // shown with its removed half
    const next = parts[index + 1];
    if (part.removed && next?.added) {
      const removed = lines;
      const added = splitLines(next.value);
      const removedLines: Line[] = [];
      const addedLines: Line[] = [];
      for (let i = 0; i < Math.max(removed.length, added.length); i++) {
        const old = removed[i];
        const now = added[i];
        if (old !== undefined && now !== undefined) {
          const [minus, plus] = markWords(printable(old), printable(now), modules, styles);
          removedLines.push({ sign: "-", segments: minus });
          addedLines.push({ sign: "+", segments: plus });
        } else if (old !== undefined) removedLines.push({ sign: "-", segments: [{ text: printable(old) }] });
        else if (now !== undefined) addedLines.push({ sign: "+", segments: [{ text: printable(now) }] });
      }
      out.push(...removedLines, ...addedLines);
      return;
    }
    for (const text of lines)
      out.push({ sign: part.added ? "+" : "-", segments: [{ text: printable(text) }] });
  });
  return out;
}

/** A changed line pair with the words that changed marked; unmarked when the line was rewritten. */
function markWords(old: string, now: string, modules: RenderModules, styles: Styles): [Segment[], Segment[]] {
  const changes = modules.diffWords(old, now);
  const same = changes
    .filter((change) => !change.added && !change.removed)
    .reduce((n, c) => n + c.value.length, 0);
  if (same < SIMILAR * Math.max(old.length, now.length)) return [[{ text: old }], [{ text: now }]];
  const mark = styles.inverse;
  const minus: Segment[] = [];
  const plus: Segment[] = [];
  for (const change of changes) {
    if (change.removed) minus.push({ text: change.value, style: mark });
    else if (change.added) plus.push({ text: change.value, style: mark });
    else {
      minus.push({ text: change.value });
      plus.push({ text: change.value });
    }
  }
  return [minus, plus];
}
