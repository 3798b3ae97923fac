import type { Token } from "marked";
import type { Styles } from "./style.js";
import type { Segment } from "./styled-wrap.js";
import { useStringWidth } from "./text-width.js";

/**
 * The libraries the interactive mode draws with: the markdown lexer (marked), the syntax
 * highlighter (highlight.js, highlighter.ts), the word diff (diff) and string-width for text
 * whose width needs it (text-width.ts). None of them is loaded by
 * print mode, the SDK or ACP: the interactive mode loads them after its first frame is on the
 * screen (so they cost neither start-up nor the first frame), long before a model's first word.
 * Until then (or if they cannot load) text is shown plain.
 */
export type RenderModules = {
  lex(markdown: string): Token[];
  highlight(code: string, language: string, styles: Styles): Segment[] | undefined;
  diffWords(before: string, after: string): { value: string; added?: boolean; removed?: boolean }[];
  diffLines(before: string, after: string): { value: string; added?: boolean; removed?: boolean }[];
};

let loaded: RenderModules | undefined;
let loading: Promise<RenderModules | undefined> | undefined;

/** The modules, when loaded. */
export function renderModules(): RenderModules | undefined {
  return loaded;
}

/** Loads the modules once; resolves with them, or undefined when they could not load. */
export function loadRenderModules(): Promise<RenderModules | undefined> {
  loading ??= (async () => {
    try {
      const [marked, highlighter, diff, stringWidth] = await Promise.all([
        import("marked"),
        import("./highlighter.js"),
        import("diff"),
        import("string-width"),
      ]);
      // In the CLI's bundle a wrapped package's default export is one level further down: its entry
      // is the package's namespace, which an ES import sees as CommonJS (scripts/post-build.mjs).
      const measure = stringWidth.default as unknown as { default?: (text: string) => number };
      useStringWidth(typeof measure === "function" ? measure : measure.default!);
      loaded = {
        // A new lexer each time (an instance keeps the tokens of every text it lexed). A single newline
        // is a line break, as a model writing lines means it.
        lex: (markdown) => marked.Lexer.lex(markdown, { gfm: true, breaks: true }),
        highlight: highlighter.highlightCode,
        diffWords: (before, after) => diff.diffWordsWithSpace(before, after),
        diffLines: (before, after) => diff.diffLines(before, after),
      };
      return loaded;
    } catch {
      return undefined;
    }
  })();
  return loading;
}
