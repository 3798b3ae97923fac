import type { Token, Tokens } from "marked";
import type { Styles } from "./style.js";
import { type Segment, wrapSegments } from "./styled-wrap.js";
import { printable, textWidth } from "./text-width.js";

/** Highlights a closed fence's code, or says it cannot (undefined: shown plain). */
export type Highlight = (code: string, language: string) => Segment[] | undefined;

export type MarkdownContext = { styles: Styles; highlight?: Highlight };

/**
 * One markdown block (a token of marked's lexer) as terminal rows of at most `width` columns:
 * headings bold, emphasis, inline code and links styled, lists with bullets or numbers, block quotes
 * behind a bar, tables in columns (as `header: value` lines when they do not fit), code fences
 * highlighted. With styles off (NO_COLOR) the same rows without escape sequences, the fences of
 * code blocks kept so code stays told apart. Pure: the same token and width give the same rows.
 */
export function blockRows(token: Token, width: number, context: MarkdownContext): string[] {
  const { styles } = context;
  const w = Math.max(4, width);
  switch (token.type) {
    case "space":
      return [];
    case "heading": {
      const heading = token as Tokens.Heading;
      const style = heading.depth === 1 ? (text: string) => styles.bold(styles.underline(text)) : styles.bold;
      return wrapSegments(inline(heading.tokens, styles, style), w);
    }
    case "paragraph":
      return wrapSegments(inline((token as Tokens.Paragraph).tokens, styles), w);
    case "text": {
      const text = token as Tokens.Text;
      return wrapSegments(text.tokens ? inline(text.tokens, styles) : [{ text: printable(text.text) }], w);
    }
    case "code":
      return codeRows(token as Tokens.Code, w, context);
    case "blockquote": {
      const bar = styles.dim("│ ");
      const inner = blocksRows((token as Tokens.Blockquote).tokens, w - 2, context);
      return inner.map((row) => `${bar}${styles.italic(row)}`);
    }
    case "list":
      return listRows(token as Tokens.List, w, context);
    case "table":
      return tableRows(token as Tokens.Table, w, styles);
    case "hr":
      return [styles.dim("─".repeat(Math.min(w, 40)))];
    case "html":
    case "def":
      return wrapSegments([{ text: printable((token as Tokens.HTML).raw.replace(/\n+$/, "")) }], w);
    default:
      return wrapSegments([{ text: printable(token.raw.replace(/\n+$/, "")) }], w);
  }
}

/** Blocks in a row, a blank row between them (inside a list item, a block quote, a whole answer). */
export function blocksRows(
  tokens: readonly Token[],
  width: number,
  context: MarkdownContext,
  tight = false,
): string[] {
  const rows: string[] = [];
  for (const token of tokens) {
    const block = blockRows(token, width, context);
    if (block.length === 0) continue;
    if (rows.length > 0 && !tight) rows.push("");
    rows.push(...block);
  }
  return rows;
}

function codeRows(code: Tokens.Code, width: number, context: MarkdownContext): string[] {
  const { styles } = context;
  const text = printable(code.text);
  const language = code.lang ?? "";
  const segments = styles.on && context.highlight ? context.highlight(text, language) : undefined;
  const rows = wrapSegments(segments ?? [{ text }], width, true);
  // Without colour, the fences stay: the code is told apart from the text around it.
  if (!styles.on && code.codeBlockStyle !== "indented") return [`\`\`\`${language}`, ...rows, "```"];
  return rows;
}

function listRows(list: Tokens.List, width: number, context: MarkdownContext): string[] {
  const { styles } = context;
  const start = typeof list.start === "number" ? list.start : 1;
  const markers = list.items.map((_, i) => (list.ordered ? `${start + i}. ` : "• "));
  const markerWidth = Math.max(...markers.map((marker) => textWidth(marker)));
  const rows: string[] = [];
  list.items.forEach((item, i) => {
    const tokens = item.tokens.filter((token) => token.type !== "checkbox");
    let body = blocksRows(tokens, width - markerWidth, context, !item.loose);
    if (item.task) {
      const box = item.checked ? "☑ " : "☐ ";
      body = body.length === 0 ? [box] : [box + body[0], ...body.slice(1)];
    }
    if (i > 0 && list.loose) rows.push("");
    const marker = markers[i]!.padEnd(markerWidth);
    body.forEach((row, j) => {
      rows.push(`${j === 0 ? styles.dim(marker) : " ".repeat(markerWidth)}${row}`);
    });
    if (body.length === 0) rows.push(styles.dim(marker));
  });
  return rows;
}

function tableRows(table: Tokens.Table, width: number, styles: Styles): string[] {
  const plain = (cell: Tokens.TableCell) => inline(cell.tokens, styles);
  const header = table.header.map(plain);
  const body = table.rows.map((row) => row.map(plain));
  const widthOf = (segments: Segment[]) => textWidth(segments.map((segment) => segment.text).join(""));
  const columns = header.map((cell, i) =>
    Math.max(widthOf(cell), ...body.map((row) => (row[i] ? widthOf(row[i]!) : 0))),
  );
  const separator = styles.dim(" │ ");
  const total = columns.reduce((sum, column) => sum + column, 0) + 3 * (columns.length - 1);
  if (total <= width) {
    const line = (cells: Segment[][], bold: boolean) =>
      cells
        .map((cell, i) => {
          const text = wrapSegments(cell, columns[i]!)[0] ?? "";
          const pad = " ".repeat(Math.max(0, columns[i]! - widthOf(cell)));
          const align = table.align[i];
          const padded =
            align === "right" ? pad + text : align === "center" ? splitPad(pad, text) : text + pad;
          return bold ? styles.bold(padded) : padded;
        })
        .join(separator)
        .trimEnd();
    const rule = styles.dim(columns.map((column) => "─".repeat(column)).join("─┼─"));
    return [line(header, true), rule, ...body.map((row) => line(row, false))];
  }
  // Too wide for columns: each row as `header: value` lines, a blank row between rows.
  const rows: string[] = [];
  body.forEach((row, r) => {
    if (r > 0) rows.push("");
    row.forEach((cell, i) => {
      const name = header[i] ?? [];
      rows.push(
        ...wrapSegments([...name.map((s) => ({ ...s, style: styles.bold })), { text: ": " }, ...cell], width),
      );
    });
  });
  return rows;
}

function splitPad(pad: string, text: string): string {
  const left = " ".repeat(Math.floor(pad.length / 2));
  return left + text + " ".repeat(pad.length - left.length);
}

/** Inline tokens as styled segments; `outer` styles them all (a heading's bold). */
function inline(
  tokens: readonly Token[] | undefined,
  styles: Styles,
  outer?: (text: string) => string,
): Segment[] {
  const out: Segment[] = [];
  const add = (text: string, style?: (text: string) => string) => {
    const composed = style && outer ? (t: string) => outer(style(t)) : (style ?? outer);
    out.push(composed ? { text: printable(text), style: composed } : { text: printable(text) });
  };
  const within = (children: readonly Token[] | undefined, style: (text: string) => string) => {
    for (const segment of inline(children, styles)) {
      const inner = segment.style;
      add(segment.text, inner ? (t) => style(inner(t)) : style);
    }
  };
  for (const token of tokens ?? []) {
    switch (token.type) {
      case "strong":
        within((token as Tokens.Strong).tokens, styles.bold);
        break;
      case "em":
        within((token as Tokens.Em).tokens, styles.italic);
        break;
      case "del":
        within((token as Tokens.Del).tokens, styles.strike);
        break;
      case "codespan":
        add((token as Tokens.Codespan).text, styles.cyan);
        break;
      case "br":
        add("\n");
        break;
      case "link": {
        const link = token as Tokens.Link;
        within(link.tokens, (t) => styles.blue(styles.underline(t)));
        if (link.text !== link.href && `mailto:${link.text}` !== link.href)
          add(` (${link.href})`, styles.dim);
        break;
      }
      case "image": {
        const image = token as Tokens.Image;
        add(`[image: ${image.text}] (${image.href})`, styles.dim);
        break;
      }
      case "text": {
        const text = token as Tokens.Text;
        if (text.tokens) within(text.tokens, (t) => t);
        else add(text.text);
        break;
      }
      case "escape":
        add((token as Tokens.Escape).text);
        break;
      default:
        add(token.raw);
    }
  }
  return out;
}
