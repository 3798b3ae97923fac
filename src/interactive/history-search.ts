import type { Key } from "./keys.js";
import type { PromptHistory } from "./prompt-history.js";

/**
 * Ctrl+R: reverse search through the prompt history, as in a shell. Typing narrows the search (the
 * newest prompt containing the text, ignoring case), Ctrl+R again goes to an older match, Enter
 * sends the match, Tab or a movement key takes it into the input for editing, Esc or Ctrl+C gives
 * the search up and brings back what was being typed.
 */
export class HistorySearch {
  query = "";
  private at: number | undefined;
  /** The match shown in the input (undefined: nothing matches). */
  found: string | undefined;

  constructor(
    private readonly history: PromptHistory,
    /** The input before the search, back on Esc. */
    readonly draft: string,
  ) {
    this.find();
  }

  /**
   * A key while searching: `stay` (still searching), `cancel`, `send` (the match), `take` (the match
   * into the input, the key used up) or `accept` (the match into the input, and the key does its
   * usual job there).
   */
  key(key: Key): "stay" | "cancel" | "send" | "take" | "accept" {
    switch (key.type) {
      case "text":
        this.query += key.text;
        this.find();
        return "stay";
      case "backspace":
        this.query = this.query.slice(0, -1);
        this.find();
        return "stay";
      case "ctrl-r":
        this.find(this.at);
        return "stay";
      case "enter":
        return this.found === undefined ? "stay" : "send";
      case "escape":
      case "ctrl-c":
        return "cancel";
      case "tab":
        return "take";
      default:
        return "accept";
    }
  }

  /** The row above the input while searching. */
  label(): string {
    const state = this.found === undefined && this.query !== "" ? "no match" : "reverse search";
    return `${state}: ${this.query}▏ (ctrl+r older · enter send · tab edit · esc cancel)`;
  }

  private find(before?: number): void {
    const hit = this.history.search(this.query, before);
    // Ctrl+R past the oldest match keeps the one shown, as a shell does.
    if (!hit && before !== undefined && this.found !== undefined) return;
    this.found = hit?.text;
    this.at = hit?.at;
  }
}
