import { textWidth } from "./text-width.js";

/** Synchronized output: the terminal shows a frame whole, never half-drawn (ignored where unknown). */
const BEGIN_FRAME = "\x1b[?2026h";
const END_FRAME = "\x1b[?2026l";
const ERASE_LINE_END = "\x1b[K";
const ERASE_BELOW = "\x1b[J";
const HIDE_CURSOR = "\x1b[?25l";
const SHOW_CURSOR = "\x1b[?25h";

/**
 * The inline renderer: the conversation goes into the terminal's own scrollback, written once and
 * never redrawn; below it the live region (the streaming line, running tools, the input box, the
 * footer) is drawn again on every change, and only its rows that changed, each frame one write
 * inside synchronized output, each row ended with erase-to-end-of-line. It never clears the
 * screen or the scrollback: committed rows are simply written over the top of the live region,
 * which is then drawn below them.
 *
 * The caller keeps every row narrower than the screen (a full-width row would leave the cursor in
 * the terminal's pending-wrap state) and the live region lower than the screen (the cursor cannot
 * go up into the scrollback).
 */
export class InlineRenderer {
  /** The live region's rows as last drawn (what the screen holds below the scrollback). */
  private drawn: string[] = [];
  /** The live region's row the cursor is on, and its column. */
  private cursorRow = 0;
  private cursorCol = 0;
  private cursorShown = true;
  /** Bytes written so far (the bench and the tests read it). */
  bytes = 0;

  constructor(private readonly write: (data: string) => void) {}

  /**
   * One frame: `committed` rows go to the scrollback (above the live region), then the live region
   * is drawn as `live`, the cursor put at `cursor` (hidden when null).
   */
  frame(
    committed: readonly string[],
    live: readonly string[],
    cursor: { row: number; col: number } | null,
  ): void {
    let out = "";
    if (committed.length > 0 || this.drawn.length === 0) {
      out += this.moveTo(0);
      for (const row of committed) out += `${row}${ERASE_LINE_END}\r\n`;
      out += this.rewrite(live);
    } else {
      out += this.update(live);
    }
    if (cursor) {
      out += `${this.moveTo(cursor.row)}\x1b[${cursor.col + 1}G`;
      this.cursorCol = cursor.col;
      if (!this.cursorShown) out += SHOW_CURSOR;
    } else if (this.cursorShown) out += HIDE_CURSOR;
    this.cursorShown = cursor !== null;
    if (out === "") return;
    this.send(BEGIN_FRAME + out + END_FRAME);
  }

  /**
   * The screen's width changed: the terminal may have re-wrapped the live region's rows (most do),
   * so its top is found again from the rows' widths, everything from there down is erased and the
   * next frame draws it whole. (A height-only change needs nothing.)
   */
  resized(columns: number): void {
    const rowsOf = (width: number) => Math.max(1, Math.ceil(width / Math.max(1, columns)));
    let above = Math.floor(this.cursorCol / Math.max(1, columns));
    for (let i = 0; i < this.cursorRow && i < this.drawn.length; i++)
      above += rowsOf(textWidth(this.drawn[i]!));
    this.send(`${BEGIN_FRAME}\r${above > 0 ? `\x1b[${above}A` : ""}${ERASE_BELOW}${END_FRAME}`);
    this.drawn = [];
    this.cursorRow = 0;
    this.cursorCol = 0;
  }

  /** Erases the live region (leaving the scrollback as it is) and shows the cursor: at exit. */
  close(): void {
    const erase = this.closing();
    if (erase !== "") this.send(erase);
  }

  /**
   * What `close()` writes, for a caller that must write it itself (synchronously, as a crash
   * handler does); the renderer counts the live region as erased. Empty when nothing is drawn.
   */
  closing(): string {
    if (this.drawn.length === 0 && this.cursorShown) return "";
    const erase = `${BEGIN_FRAME}${this.moveTo(0)}${ERASE_BELOW}${SHOW_CURSOR}${END_FRAME}`;
    this.drawn = [];
    this.cursorShown = true;
    return erase;
  }

  /** The live region drawn whole from its top row (where the cursor is), the rest below erased. */
  private rewrite(live: readonly string[]): string {
    let out = "";
    live.forEach((row, i) => {
      out += `${i > 0 ? "\r\n" : ""}${row}${ERASE_LINE_END}`;
    });
    out += ERASE_BELOW;
    this.drawn = [...live];
    this.cursorRow = Math.max(0, live.length - 1);
    return out;
  }

  /** Only the rows that changed; rows beyond the old region are added below it, the surplus erased. */
  private update(live: readonly string[]): string {
    let out = "";
    const old = this.drawn;
    for (let i = 0; i < Math.min(old.length, live.length); i++) {
      if (old[i] === live[i]) continue;
      const before = old[i]!;
      const now = live[i]!;
      // A row that only grew (the line being streamed): just its new end, written after the old.
      if (before !== "" && now.startsWith(before) && !before.includes("\x1b") && !now.includes("\x1b"))
        out += `${this.moveTo(i)}\x1b[${textWidth(before)}C${now.slice(before.length)}`;
      else out += `${this.moveTo(i)}${now}${ERASE_LINE_END}`;
    }
    if (live.length > old.length) {
      // LF from the last row: moves down, or scrolls the screen up when at its bottom.
      out += this.moveTo(old.length - 1);
      for (let i = old.length; i < live.length; i++) out += `\r\n${live[i]}${ERASE_LINE_END}`;
      this.cursorRow = live.length - 1;
    } else if (live.length < old.length) {
      out +=
        live.length === 0 ? `${this.moveTo(0)}${ERASE_BELOW}` : `${this.moveTo(live.length)}${ERASE_BELOW}`;
    }
    this.drawn = [...live];
    return out;
  }

  /** To column 0 of a row of the live region (a row that is on the screen). */
  private moveTo(row: number): string {
    const delta = row - this.cursorRow;
    this.cursorRow = row;
    this.cursorCol = 0;
    if (delta < 0) return `\r\x1b[${-delta}A`;
    if (delta > 0) return `\r\x1b[${delta}B`;
    return "\r";
  }

  private send(data: string): void {
    this.bytes += Buffer.byteLength(data);
    this.write(data);
  }
}
