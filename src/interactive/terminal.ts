import { writeSync } from "node:fs";
import type { ReadStream, WriteStream } from "node:tty";
import { FOCUS_REPORTING_OFF, FOCUS_REPORTING_ON, TITLE_POP, TITLE_PUSH } from "./status.js";

/** Bracketed paste on, focus reports on, the terminal's title saved (status.ts). */
const MODES_ON = `\x1b[?2004h${FOCUS_REPORTING_ON}${TITLE_PUSH}`;
/**
 * Everything the interactive mode may have turned on, turned off: a frame's sync, styles, paste,
 * focus reports, a hidden cursor; the title as it was.
 */
const RESTORE = `\x1b[?2026l\x1b[0m\x1b[?2004l${FOCUS_REPORTING_OFF}\x1b[?25h${TITLE_POP}`;

/**
 * The terminal the interactive mode runs on: raw mode and bracketed paste while it runs, and the
 * terminal as it was afterwards, however the process ends (a normal exit, Ctrl+C twice, a crash,
 * SIGTERM or SIGHUP, whose hard exit still runs the process's exit handlers).
 */
export class TerminalIo {
  private restored = true;
  /**
   * What erases the live region, written before the modes are undone when the process ends without
   * the app's own exit (a crash, a hard exit): else the error line and the shell's prompt would be
   * printed into the input box and over the footer.
   */
  eraseLive: (() => string) | undefined;
  private readonly onExit = () => {
    if (!this.restored && this.eraseLive) this.writeNow(this.eraseLive());
    this.restore();
  };
  private onData: ((data: string) => void) | undefined;
  private onResize: (() => void) | undefined;

  /** `glyphs` rewrites what is written (console-glyphs.ts on the Linux console). */
  constructor(
    readonly input: ReadStream,
    readonly output: WriteStream,
    private readonly glyphs?: (text: string) => string,
  ) {}

  get columns(): number {
    return this.output.columns || 80;
  }

  get rows(): number {
    return this.output.rows || 24;
  }

  start(onData: (data: string) => void, onResize: () => void): void {
    this.restored = false;
    process.on("exit", this.onExit);
    // Before the last-resort handler (src/entry/run-cairn.ts) writes its line and exits.
    process.prependListener("uncaughtException", this.onExit);
    process.prependListener("unhandledRejection", this.onExit);
    this.input.setRawMode(true);
    this.input.setEncoding("utf8");
    this.onData = onData;
    this.onResize = onResize;
    this.input.on("data", onData);
    this.input.resume();
    this.output.on("resize", onResize);
    this.write(MODES_ON);
  }

  write(data: string): void {
    if (!this.restored) this.output.write(this.glyphs ? this.glyphs(data) : data);
  }

  /**
   * Ctrl+Z: the terminal as it was (cooked mode, cursor shown, paste and focus reports off, the
   * shell's title back) while the process is stopped; `resumed()` turns the modes on again.
   */
  suspending(): void {
    if (this.restored) return;
    try {
      writeSync((this.output as WriteStream & { fd: number }).fd, RESTORE);
      this.input.setRawMode(false);
    } catch {
      // the terminal is gone: nothing to restore on it
    }
  }

  resumed(): void {
    if (this.restored) return;
    try {
      this.input.setRawMode(true);
    } catch {
      // idem
    }
    this.write(MODES_ON);
  }

  /** Cooked mode, cursor shown, bracketed paste off; synchronous, so it also works at exit. Idempotent. */
  restore(): void {
    if (this.restored) return;
    this.restored = true;
    process.off("exit", this.onExit);
    process.off("uncaughtException", this.onExit);
    process.off("unhandledRejection", this.onExit);
    this.writeNow(RESTORE);
    try {
      this.input.setRawMode(false);
    } catch {
      // idem
    }
    if (this.onData) this.input.off("data", this.onData);
    if (this.onResize) this.output.off("resize", this.onResize);
    this.input.pause();
  }

  /** Written synchronously (it also works at exit). */
  private writeNow(data: string): void {
    if (data === "") return;
    try {
      writeSync((this.output as WriteStream & { fd: number }).fd, data);
    } catch {
      // the terminal is gone (SIGHUP): nothing to restore on it
    }
  }
}
