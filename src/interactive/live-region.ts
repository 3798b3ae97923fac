import type { InteractiveApp } from "./app.js";
import { layoutEditor } from "./editor-view.js";
import { footerText } from "./status.js";
import { printable, truncate } from "./text-width.js";

/**
 * The interactive app's live region (app.ts): the streaming tail, running tools, status, queued
 * prompts, then the input (or the question or picker shown) and the footer, fitted to the screen.
 */

/** The live region, never taller than the screen (less one row); the cursor in the input. */
export function liveRegion(app: InteractiveApp): {
  live: string[];
  cursor: { row: number; col: number } | null;
} {
  const { styles, terminal } = app.options;
  const width = app.width;
  const above: string[] = [...app.view.tailRows()];
  for (const [id, title] of app.view.running) {
    above.push(styles.dim(truncate(`● ${title}`, width)));
    const subagent = app.activity.subagentRow(id, styles, width);
    if (subagent) above.push(subagent);
  }
  above.push(...app.background.rows(app.options.session.run?.backgroundShells, styles, width));
  for (const command of app.running.keys())
    above.push(styles.dim(truncate(`● ! ${command} (esc to stop)`, width)));
  if (app.editor.text.startsWith("!"))
    above.push(
      styles.dim(
        truncate("! shell mode: runs as the Bash tool would; its output joins the conversation", width),
      ),
    );
  if (app.turns > 0 && app.asks.length === 0) {
    const status = app.view.retrying ?? (app.view.thinking ? "Thinking…" : "Working…");
    above.push(styles.dim(truncate(`${status} (esc to interrupt)`, width)));
    above.push(...app.activity.todoRows(styles, width - 2).map((row) => `  ${row}`));
  }
  if (app.search) above.push(styles.dim(truncate(app.search.label(), width)));
  for (const entry of app.queued)
    above.push(styles.dim(truncate(`queued › ${printable(entry.shown).replace(/\n/g, " ⏎ ")}`, width)));
  const footer = styles.dim(truncate(app.footer(), width));
  const rule = styles.dim("─".repeat(width));
  const room = Math.max(3, terminal.rows - 1);
  const ask = app.asks[0];
  if (!ask && app.picker) {
    const rows = [...above, rule, ...app.picker.rows(styles, width, room - 2), footer];
    return { live: rows.slice(Math.max(0, rows.length - room)), cursor: null };
  }
  if (ask) {
    const rows = [...above, rule, ...ask.rows(styles, width), footer];
    return { live: rows.slice(Math.max(0, rows.length - room)), cursor: null };
  }
  const layout = layoutEditor(app.editor, width);
  // The editor's rows that fit, around the caret; then whatever of the rest above still fits.
  const editorRoom = Math.max(1, room - 2);
  const first = Math.max(0, Math.min(layout.caret.row - editorRoom + 1, layout.rows.length - editorRoom));
  const editorRows = layout.rows.slice(first, first + editorRoom);
  const aboveRoom = Math.max(0, room - 2 - editorRows.length);
  const shownAbove = above.slice(Math.max(0, above.length - aboveRoom));
  const menuRoom = Math.min(8, aboveRoom);
  const menu = app.slash.open
    ? app.slash.rows(styles, width, menuRoom)
    : app.mentions.open
      ? app.mentions.rows(styles, width, menuRoom)
      : [];
  const live = [...shownAbove.slice(menu.length), rule, ...editorRows, ...menu, footer];
  const cursor = {
    row: Math.max(0, shownAbove.length - menu.length) + 1 + layout.caret.row - first,
    col: layout.caret.col,
  };
  return { live, cursor };
}

export function footer(app: InteractiveApp): string {
  if (app.hint) return app.hint;
  return footerText({
    model: app.model,
    mode: app.options.session.mode ?? "default",
    context: app.context === undefined ? undefined : { tokens: app.context, window: app.contextWindow },
    cost: app.cost,
    cwd: app.options.cwd,
    branch: app.branch,
  });
}
