import type { Token } from "marked";
import { blockRows, type MarkdownContext } from "./markdown-rows.js";
import type { RenderModules } from "./render-modules.js";
import type { Styles } from "./style.js";
import { printable, wrapText } from "./text-width.js";

/**
 * A text block of the model's answer as it streams, committed block by block: a paragraph, a list,
 * a table goes to the scrollback once it is finished (a blank line or the next block shows it is),
 * a heading or a code fence as soon as its line or its closing fence ends — the code highlighted
 * then. The block still being written is drawn in the live region, re-lexed on every delta (only
 * that block: what was committed is never lexed again). Nothing is redrawn once it is committed.
 */
export class MarkdownStream {
  /** The text not committed yet (the block being written, maybe the start of the next). */
  private pending = "";
  /** Blocks committed so far (a blank row goes before each but the first). */
  private blocks = 0;

  constructor(
    private readonly styles: Styles,
    private readonly modules: () => RenderModules | undefined,
  ) {}

  /** Adds streamed text; returns the rows of the blocks it finished. */
  push(text: string, width: number): string[] {
    this.pending += printable(text);
    const modules = this.modules();
    if (!modules) return [];
    const tokens = modules.lex(this.pending);
    let done = 0;
    while (done < tokens.length && finished(tokens, done)) done++;
    if (done === 0) return [];
    const rows = this.render(tokens.slice(0, done), width, modules);
    const consumed = tokens
      .slice(0, done)
      .map((token) => token.raw)
      .join("");
    // The lexer's tokens cover the text exactly; if they ever do not, nothing is cut.
    if (!this.pending.startsWith(consumed)) return [];
    this.pending = this.pending.slice(consumed.length);
    return rows;
  }

  /** Rows of the block still being written, for the live region. */
  liveRows(width: number): string[] {
    if (this.pending.trim() === "") return [];
    const modules = this.modules();
    if (!modules) return wrapText(this.pending.replace(/\n+$/, ""), width);
    const rows = this.render(modules.lex(this.pending), width, modules, false);
    return rows;
  }

  /** The text block ended: the rest, as rows. */
  finish(width: number): string[] {
    const rest = this.pending;
    this.pending = "";
    if (rest.trim() === "") return [];
    const modules = this.modules();
    if (!modules) {
      const rows = wrapText(rest.replace(/\n+$/, ""), width);
      return this.blocks++ > 0 ? ["", ...rows] : rows;
    }
    return this.render(modules.lex(rest), width, modules);
  }

  private render(tokens: readonly Token[], width: number, modules: RenderModules, count = true): string[] {
    const context: MarkdownContext = {
      styles: this.styles,
      highlight: (code, language) => modules.highlight(code, language, this.styles),
    };
    const rows: string[] = [];
    let blocks = this.blocks;
    for (const token of tokens) {
      const block = blockRows(token, width, context);
      if (block.length === 0) continue;
      if (blocks > 0) rows.push("");
      blocks++;
      rows.push(...block);
    }
    if (count) this.blocks = blocks;
    return rows;
  }
}

/**
 * Whether `tokens[i]` can no longer change, whatever text comes next: a later block has started, a
 * blank line follows it, or it is a heading or a closed code fence whose line has ended.
 */
function finished(tokens: readonly Token[], i: number): boolean {
  const token = tokens[i]!;
  if (token.type === "space") return i + 1 < tokens.length || token.raw.includes("\n\n");
  const rest = tokens.slice(i + 1);
  if (rest.some((next) => next.type !== "space")) return true;
  if (rest.some((next) => next.raw.includes("\n\n"))) return true;
  const ended = token.raw.endsWith("\n") || rest.length > 0;
  if (token.type === "heading" && token.raw.startsWith("#")) return ended;
  if (token.type === "hr") return ended;
  if (token.type === "code") return ended && closedFence(token.raw);
  return false;
}

/** A fenced code block's raw text ends with its closing fence. */
function closedFence(raw: string): boolean {
  const open = /^ {0,3}(`{3,}|~{3,})/.exec(raw);
  if (!open) return false;
  const lines = raw.replace(/\n$/, "").split("\n");
  if (lines.length < 2) return false;
  const last = lines[lines.length - 1]!.trim();
  const fence = open[1]!;
  return last.length >= fence.length && last === fence[0]!.repeat(last.length);
}
