import type { InteractiveApp } from "./app.js";

/**
 * Ctrl+Z (docs/interactive.md, "Keys"): cairn stops like a shell job. Raw mode turns the terminal's
 * own Ctrl+Z off, so it is done here as the terminal would: the live region is erased (what waits
 * for the scrollback goes there first), the terminal restored, and SIGTSTP sent to cairn's process
 * group (the job the shell started, with the commands cairn runs). The process stops inside that
 * call; when the shell continues it (`fg`, SIGCONT), raw mode and the modes come back and the live
 * region is drawn again below whatever the shell printed, the scrollback untouched. SIGTSTP rather
 * than SIGSTOP: where nothing could continue the job (no job control: an orphaned process group),
 * the kernel ignores SIGTSTP, and cairn simply goes on.
 */
export function suspend(app: InteractiveApp): void {
  const { terminal } = app.options;
  app.flushCommitted();
  app.renderer.close();
  terminal.suspending();
  try {
    process.kill(0, "SIGTSTP");
  } catch {
    // No process group to signal: nothing stopped.
  }
  // Continued (or never stopped).
  terminal.resumed();
  app.title(app.turns > 0);
  app.draw();
}
