import type { SessionPermissionMode } from "../permissions/types.js";
import type { InteractiveApp } from "./app.js";
import { HistorySearch } from "./history-search.js";
import type { Key } from "./keys.js";
import { PermissionPrompt } from "./permission-prompt.js";
import { suspend } from "./suspend.js";

/**
 * The interactive app's keys (app.ts): a key goes to the question or picker shown, the Ctrl+R
 * search, the popups, else the editor; Esc, Ctrl+C and Ctrl+D control the turn and the exit.
 */

/** Shift+Tab goes through these, as the reference does. */
const MODE_CYCLE: readonly SessionPermissionMode[] = ["default", "acceptEdits", "plan"];

export function key(app: InteractiveApp, key: Key): void {
  if (app.exiting) return;
  if (key.type === "ctrl-z") {
    suspend(app);
    return;
  }
  if (key.type !== "ctrl-c" && !(key.type === "escape" && app.rewindArmed)) app.disarm();
  const ask = app.asks[0];
  if (ask) {
    if (key.type === "ctrl-c" || (key.type === "escape" && !ask.takesEscape)) {
      app.interrupt(key.type === "ctrl-c");
      return;
    }
    const answer = ask.key(key);
    if (answer && ask instanceof PermissionPrompt && ask.toSave) app.saveRules(ask.toSave);
    if (answer) app.answer(ask, answer);
    return;
  }
  if (app.picker) {
    app.picker.key(key);
    return;
  }
  if (app.search && app.searchKey(app.search, key)) return;
  const { editor } = app;
  if (app.slash.open) {
    const done = app.slash.key(key, editor);
    if (done === "send") app.submitEditor();
    if (done) return;
  }
  if (app.mentions.open && app.mentions.key(key, editor)) return;
  switch (key.type) {
    case "text":
      editor.insert(key.text);
      return;
    case "paste":
      editor.insert(app.pasted.placeholderFor(key.text));
      return;
    case "enter":
      if (editor.takeBackslash()) editor.newline();
      else app.submitEditor();
      return;
    case "newline":
      editor.newline();
      return;
    case "backspace":
      if (!app.pasted.backspaceOver(editor)) editor.backspace();
      return;
    case "delete":
      editor.delete();
      return;
    case "left":
      editor.left();
      return;
    case "right":
      editor.right();
      return;
    case "home":
    case "ctrl-a":
      editor.home();
      return;
    case "end":
    case "ctrl-e":
      editor.end();
      return;
    case "ctrl-u":
      editor.killToStart();
      return;
    case "ctrl-k":
      editor.killToEnd();
      return;
    case "ctrl-w":
      editor.deleteWordBefore();
      return;
    case "up":
      // The history may still be loading (the first frame does not wait for it): then after it.
      if (!editor.up())
        void app.history
          .load()
          .catch(() => undefined)
          .then(() => {
            const older = app.history.older(editor.text);
            if (older !== undefined) editor.set(older);
            app.draw();
          });
      return;
    case "down":
      if (!editor.down()) {
        const newer = app.history.newer();
        if (newer !== undefined) editor.set(newer);
      }
      return;
    case "shift-tab":
      app.cycleMode();
      return;
    case "ctrl-r":
      app.search = new HistorySearch(app.history, editor.text);
      editor.set(app.search.found ?? "");
      return;
    case "escape":
      app.shellAbort?.abort();
      if (app.turns > 0) app.interrupt(false);
      else if (app.rewindArmed) {
        app.rewindArmed = false;
        app.rewind();
      } else if (editor.empty) {
        app.rewindArmed = true;
        app.hint = "Press Esc again to rewind to an earlier prompt";
      }
      return;
    case "ctrl-c":
      if (!editor.empty) {
        editor.clear();
        app.pasted.clear();
        return;
      }
      app.interrupt(true);
      return;
    case "ctrl-d":
      if (editor.empty) void app.stop();
      else editor.delete();
      return;
    case "ctrl-o":
      app.view.expandOutput();
      return;
    case "tab":
      return;
  }
}

/** Esc, or Ctrl+C with nothing to clear: stops the running turn; a second Ctrl+C exits. */
export function interrupt(app: InteractiveApp, ctrlC: boolean): void {
  if (ctrlC && app.exitArmed) {
    void app.stop();
    return;
  }
  if (app.turns > 0) app.options.session.interrupt();
  if (ctrlC) {
    app.exitArmed = true;
    app.hint = "Press Ctrl+C again to exit";
  }
}

export function disarm(app: InteractiveApp): void {
  app.exitArmed = false;
  app.rewindArmed = false;
  app.hint = undefined;
}

/** A key while Ctrl+R searches; false when the key still does its usual job afterwards. */
export function searchKey(app: InteractiveApp, search: HistorySearch, key: Key): boolean {
  const outcome = search.key(key);
  if (outcome === "stay") {
    app.editor.set(search.found ?? "");
    return true;
  }
  app.search = undefined;
  if (outcome === "cancel") app.editor.set(search.draft);
  else if (outcome === "send") app.submitEditor();
  return outcome !== "accept";
}

export function cycleMode(app: InteractiveApp): void {
  const { session } = app.options;
  const current = session.mode ?? "default";
  const next = MODE_CYCLE[(MODE_CYCLE.indexOf(current) + 1) % MODE_CYCLE.length]!;
  session.setMode(next);
}
