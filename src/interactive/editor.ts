import { graphemesOf, printable, textWidth } from "./text-width.js";

/**
 * The prompt being typed: lines of text and a caret (line, and an offset in UTF-16 units that is
 * always at a grapheme boundary). The keys that edit it are the app's (app.ts); this only edits.
 */
export class Editor {
  lines: string[] = [""];
  row = 0;
  col = 0;

  get text(): string {
    return this.lines.join("\n");
  }

  get empty(): boolean {
    return this.lines.length === 1 && this.lines[0] === "";
  }

  set(text: string): void {
    this.lines = text.split("\n");
    this.row = this.lines.length - 1;
    this.col = this.lines[this.row]!.length;
  }

  clear(): void {
    this.set("");
  }

  /** Inserts text at the caret; its newlines start new lines (a paste). */
  insert(text: string): void {
    const clean = printable(text);
    if (clean === "") return;
    const line = this.lines[this.row]!;
    const [first, ...rest] = clean.split("\n");
    const before = line.slice(0, this.col) + first;
    const after = line.slice(this.col);
    if (rest.length === 0) {
      this.lines[this.row] = before + after;
      this.col = before.length;
      return;
    }
    const last = rest.pop()!;
    this.lines.splice(this.row, 1, before, ...rest, last + after);
    this.row += rest.length + 1;
    this.col = last.length;
  }

  newline(): void {
    this.insert("\n");
  }

  backspace(): void {
    if (this.col > 0) {
      const line = this.lines[this.row]!;
      const start = this.col - lastGrapheme(line.slice(0, this.col)).length;
      this.lines[this.row] = line.slice(0, start) + line.slice(this.col);
      this.col = start;
    } else if (this.row > 0) {
      const previous = this.lines[this.row - 1]!;
      this.lines.splice(this.row - 1, 2, previous + this.lines[this.row]!);
      this.row -= 1;
      this.col = previous.length;
    }
  }

  /** Removes the character before the caret when it is a backslash (`\` then Enter adds a line). */
  takeBackslash(): boolean {
    const line = this.lines[this.row]!;
    if (this.col === 0 || line[this.col - 1] !== "\\") return false;
    this.lines[this.row] = line.slice(0, this.col - 1) + line.slice(this.col);
    this.col -= 1;
    return true;
  }

  delete(): void {
    const line = this.lines[this.row]!;
    if (this.col < line.length) {
      const next = graphemesOf(line.slice(this.col))[0]!;
      this.lines[this.row] = line.slice(0, this.col) + line.slice(this.col + next.length);
    } else if (this.row < this.lines.length - 1) {
      this.lines.splice(this.row, 2, line + this.lines[this.row + 1]!);
    }
  }

  deleteWordBefore(): void {
    const line = this.lines[this.row]!;
    const before = line.slice(0, this.col).replace(/\S+\s*$|\s+$/, "");
    this.lines[this.row] = before + line.slice(this.col);
    this.col = before.length;
  }

  killToStart(): void {
    this.lines[this.row] = this.lines[this.row]!.slice(this.col);
    this.col = 0;
  }

  killToEnd(): void {
    this.lines[this.row] = this.lines[this.row]!.slice(0, this.col);
  }

  left(): void {
    if (this.col > 0) this.col -= lastGrapheme(this.lines[this.row]!.slice(0, this.col)).length;
    else if (this.row > 0) {
      this.row -= 1;
      this.col = this.lines[this.row]!.length;
    }
  }

  right(): void {
    const line = this.lines[this.row]!;
    if (this.col < line.length) this.col += graphemesOf(line.slice(this.col))[0]!.length;
    else if (this.row < this.lines.length - 1) {
      this.row += 1;
      this.col = 0;
    }
  }

  /** Moves up a line; false on the first line (the caller goes back in history). */
  up(): boolean {
    if (this.row === 0) return false;
    this.moveToLine(this.row - 1);
    return true;
  }

  /** Moves down a line; false on the last line. */
  down(): boolean {
    if (this.row === this.lines.length - 1) return false;
    this.moveToLine(this.row + 1);
    return true;
  }

  home(): void {
    this.col = 0;
  }

  end(): void {
    this.col = this.lines[this.row]!.length;
  }

  /** To the same column on another line, or its end. */
  private moveToLine(row: number): void {
    const column = textWidth(this.lines[this.row]!.slice(0, this.col));
    this.row = row;
    let col = 0;
    let width = 0;
    for (const grapheme of graphemesOf(this.lines[row]!)) {
      const w = textWidth(grapheme);
      if (width + w > column) break;
      width += w;
      col += grapheme.length;
    }
    this.col = col;
  }
}

function lastGrapheme(text: string): string {
  const all = graphemesOf(text);
  return all[all.length - 1] ?? "";
}
