import type { Editor } from "./editor.js";

/** A paste longer than this many lines, or characters, is shown as one placeholder. */
const MAX_SHOWN_LINES = 10;
const MAX_SHOWN_CHARS = 1000;

/**
 * Long pastes, shown in the editor as `[Pasted N lines]` (a paste is never cut or summarised: the
 * full text is what is sent). The editor holds the placeholder; the text is kept here until the
 * prompt is sent, when `expand()` puts every placeholder still in the prompt back. A placeholder
 * is deleted whole by one Backspace; one the user edits by hand is left as typed.
 */
export class PastedTexts {
  private readonly texts = new Map<string, string>();

  /** What to insert for a paste: the text itself, or a placeholder for a long one. */
  placeholderFor(text: string): string {
    const clean = text.replace(/\r\n?/g, "\n");
    const lines = clean.split("\n").length;
    if (lines <= MAX_SHOWN_LINES && clean.length <= MAX_SHOWN_CHARS) return text;
    const base = lines > 1 ? `Pasted ${lines} lines` : `Pasted ${clean.length} characters`;
    let token = `[${base}]`;
    for (let n = 2; this.texts.has(token); n++) token = `[${base} #${n}]`;
    this.texts.set(token, clean);
    return token;
  }

  /** The prompt with each placeholder replaced by its paste; the pastes are forgotten. */
  expand(prompt: string): string {
    let text = prompt;
    for (const [token, pasted] of this.texts) {
      const at = text.indexOf(token);
      if (at !== -1) text = text.slice(0, at) + pasted + text.slice(at + token.length);
    }
    this.texts.clear();
    return text;
  }

  /** Backspace right after a placeholder removes all of it; false when the caret is not after one. */
  backspaceOver(editor: Editor): boolean {
    const line = editor.lines[editor.row]!;
    const before = line.slice(0, editor.col);
    for (const token of this.texts.keys()) {
      if (!before.endsWith(token)) continue;
      editor.lines[editor.row] = before.slice(0, -token.length) + line.slice(editor.col);
      editor.col -= token.length;
      this.texts.delete(token);
      return true;
    }
    return false;
  }

  /** The input was cleared: the pastes it held go with it. */
  clear(): void {
    this.texts.clear();
  }
}
