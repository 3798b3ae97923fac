/**
 * Keys from a terminal in raw mode: characters, control keys, the escape sequences of arrows and
 * modified Enter, and bracketed paste (`ESC[200~ … ESC[201~`, whose newlines are text, never
 * Enter). A sequence cut between two reads waits for the next read; a lone ESC is the Escape key.
 */
export type Key =
  | { type: "text"; text: string }
  | { type: "paste"; text: string }
  | {
      type:
        | "enter"
        | "newline"
        | "escape"
        | "backspace"
        | "delete"
        | "up"
        | "down"
        | "left"
        | "right"
        | "home"
        | "end"
        | "tab"
        | "shift-tab"
        | "ctrl-a"
        | "ctrl-c"
        | "ctrl-d"
        | "ctrl-e"
        | "ctrl-k"
        | "ctrl-o"
        | "ctrl-r"
        | "ctrl-u"
        | "ctrl-w"
        | "ctrl-z";
    };

type Named = Exclude<Key, { text: string }>["type"];

const PASTE_START = "\x1b[200~";
const PASTE_END = "\x1b[201~";

/** Escape sequences (after ESC), as xterm, VTE, iTerm2, kitty, tmux and the Linux console send them. */
const SEQUENCES: Record<string, Named> = {
  "\r": "newline", // Alt+Enter
  "\n": "newline",
  "[13;2u": "newline", // Shift+Enter, kitty keyboard protocol / CSI u
  "[27;2;13~": "newline", // Shift+Enter, xterm modifyOtherKeys
  "[13;3u": "newline", // Alt+Enter, CSI u
  "[A": "up",
  "[B": "down",
  "[C": "right",
  "[D": "left",
  OA: "up",
  OB: "down",
  OC: "right",
  OD: "left",
  "[H": "home",
  "[F": "end",
  OH: "home",
  OF: "end",
  "[1~": "home",
  "[4~": "end",
  "[7~": "home",
  "[8~": "end",
  "[3~": "delete",
  "[Z": "shift-tab",
  "\x7f": "ctrl-w", // Alt+Backspace: delete a word
};

const CONTROLS: Record<string, Named> = {
  "\r": "enter",
  "\n": "newline", // Ctrl+J
  "\x7f": "backspace",
  "\b": "backspace",
  "\t": "tab",
  "\x01": "ctrl-a",
  "\x03": "ctrl-c",
  "\x04": "ctrl-d",
  "\x05": "ctrl-e",
  "\x0b": "ctrl-k",
  "\x12": "ctrl-r",
  "\x0f": "ctrl-o",
  "\x15": "ctrl-u",
  "\x17": "ctrl-w",
  "\x1a": "ctrl-z",
};

export class KeyReader {
  private pending = "";
  private paste: string | undefined;

  /** The keys in `data` (a decoded read); an unfinished sequence stays for the next read. */
  feed(data: string): Key[] {
    this.pending += data;
    const keys: Key[] = [];
    while (this.pending !== "") {
      if (this.paste !== undefined) {
        const end = this.pending.indexOf(PASTE_END);
        if (end === -1) {
          // Keep what might be the start of the end marker for the next read.
          const keep = partialSuffix(this.pending, PASTE_END);
          this.paste += this.pending.slice(0, this.pending.length - keep);
          this.pending = this.pending.slice(this.pending.length - keep);
          break;
        }
        keys.push({ type: "paste", text: this.paste + this.pending.slice(0, end) });
        this.paste = undefined;
        this.pending = this.pending.slice(end + PASTE_END.length);
        continue;
      }
      const char = this.pending[0]!;
      if (char === "\x1b") {
        const taken = this.escape(keys);
        if (taken === 0) break; // unfinished: wait for more
        this.pending = this.pending.slice(taken);
        continue;
      }
      const control = CONTROLS[char];
      if (control) {
        keys.push({ type: control });
        this.pending = this.pending.slice(1);
        continue;
      }
      // A run of plain text (typed fast, or a paste without bracketed paste) is one key.
      let end = 1;
      while (end < this.pending.length && !isSpecial(this.pending[end]!)) end++;
      const text = this.pending.slice(0, end).replace(/[\u0000-\u001f]/g, "");
      if (text !== "") keys.push({ type: "text", text });
      this.pending = this.pending.slice(end);
    }
    return keys;
  }

  /** The read ended on a lone ESC or a cut sequence: nothing more is coming, so it was Escape. */
  flush(): Key[] {
    if (this.paste !== undefined || this.pending === "") return [];
    const rest = this.pending;
    this.pending = "";
    return rest === "\x1b" ? [{ type: "escape" }] : [{ type: "escape" }, ...this.feed(rest.slice(1))];
  }

  /** Something is held back, waiting for the rest of a sequence. */
  get waiting(): boolean {
    return this.paste === undefined && this.pending !== "";
  }

  /** Reads the sequence at the start of `pending`; returns its length (0: not complete yet). */
  private escape(keys: Key[]): number {
    const text = this.pending;
    if (text.startsWith(PASTE_START)) {
      this.paste = "";
      return PASTE_START.length;
    }
    if (text.length === 1) return 0;
    if (text[1] === "\x1b") {
      keys.push({ type: "escape" });
      return 1;
    }
    if (text[1] === "[" || text[1] === "O") {
      // CSI: parameters and intermediates, then one final byte in @..~ ; SS3: one byte.
      const match = text[1] === "O" ? /^\x1bO./.exec(text) : /^\x1b\[[0-?]*[ -/]*[@-~]/.exec(text);
      if (!match) {
        if (text[1] === "[" && /^\x1b\[[0-?]*[ -/]*$/.test(text)) return 0; // the rest is on its way
        keys.push({ type: "escape" });
        return 1;
      }
      const name = SEQUENCES[match[0].slice(1)];
      if (name) keys.push({ type: name });
      return match[0].length; // an unknown sequence (F-keys, focus reports) is dropped whole
    }
    const name = SEQUENCES[text[1]!];
    if (name) {
      keys.push({ type: name });
      return 2;
    }
    // ESC then a character: Alt+character, which does nothing yet; Escape, then the character.
    keys.push({ type: "escape" });
    return 1;
  }
}

function isSpecial(char: string): boolean {
  return char === "\x1b" || CONTROLS[char] !== undefined;
}

/** How long a suffix of `text` is a prefix of `marker`. */
function partialSuffix(text: string, marker: string): number {
  for (let n = Math.min(marker.length - 1, text.length); n > 0; n--)
    if (text.endsWith(marker.slice(0, n))) return n;
  return 0;
}
