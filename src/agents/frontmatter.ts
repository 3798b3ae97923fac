/**
 * The front matter of Markdown prompt files (commands, skills, agents): a block between `---`
 * lines at the very top, in the small subset of YAML these files use —
 *
 *   key: value              a string (quotes optional, `'…'` / `"…"` removed)
 *   key: [a, "b c"]         a list of strings
 *   key:                    a list of strings, one `- item` per following line,
 *     - a                   or a block scalar (`key: |` / `key: >`, indented lines)
 *   # comment               ignored
 *
 * Anything else (nested maps, anchors) is kept as its raw text, so a key cairn reads is never
 * silently misread: the reader of a key checks the type it needs.
 */
export type FrontmatterValue = string | string[];

export type ParsedMarkdown = {
  data: Record<string, FrontmatterValue>;
  /** The text after the front matter (all of it when there is none). */
  body: string;
};

export function parseFrontmatter(text: string): ParsedMarkdown {
  const source = text.startsWith("\uFEFF") ? text.slice(1) : text;
  const match = /^---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(source);
  if (!match) return { data: {}, body: source };
  return { data: parseBlock(match[1]!.split(/\r?\n/)), body: source.slice(match[0].length) };
}

function parseBlock(lines: string[]): Record<string, FrontmatterValue> {
  const data: Record<string, FrontmatterValue> = {};
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trim() === "" || line.trimStart().startsWith("#") || /^\s/.test(line)) continue;
    const pair = /^([A-Za-z0-9_.-]+)\s*:(?:\s+(.*))?$/.exec(line.trimEnd());
    if (!pair) continue;
    const key = pair[1]!;
    const rest = (pair[2] ?? "").trim();
    // The indented lines that follow belong to this key.
    const nested: string[] = [];
    while (i + 1 < lines.length && (/^\s/.test(lines[i + 1]!) || lines[i + 1]!.trim() === "")) {
      nested.push(lines[++i]!);
    }
    data[key] = parseValue(rest, nested);
  }
  return data;
}

function parseValue(rest: string, nested: string[]): FrontmatterValue {
  if (rest === "|" || rest === ">" || /^[|>][+-]?$/.test(rest)) {
    const texts = nested.map((line) => line.trim());
    return rest.startsWith("|") ? texts.join("\n").trim() : texts.filter(Boolean).join(" ");
  }
  if (rest === "") {
    const items = nested.map((line) => line.trim()).filter(Boolean);
    if (items.length > 0 && items.every((item) => item.startsWith("- ") || item === "-"))
      return items.map((item) => unquote(item.slice(1).trim()));
    return items.join(" ");
  }
  if (rest.startsWith("[") && rest.endsWith("]")) return splitList(rest.slice(1, -1));
  const continued = nested.map((line) => line.trim()).filter(Boolean);
  return unquote([withoutComment(rest), ...continued].join(" "));
}

/** `a, "b, c", 'd'` → `["a", "b, c", "d"]`. */
function splitList(inner: string): string[] {
  const items: string[] = [];
  const pattern = /\s*("(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^,]+)\s*(?:,|$)/g;
  for (const match of inner.matchAll(pattern)) {
    const item = unquote(match[1]!.trim());
    if (item !== "") items.push(item);
  }
  return items;
}

function unquote(value: string): string {
  if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) {
    try {
      return JSON.parse(value) as string;
    } catch {
      return value.slice(1, -1);
    }
  }
  if (value.length >= 2 && value.startsWith("'") && value.endsWith("'"))
    return value.slice(1, -1).replaceAll("''", "'");
  return value;
}

/** A ` # comment` after an unquoted value. */
function withoutComment(value: string): string {
  if (value.startsWith('"') || value.startsWith("'")) return value;
  const at = value.search(/\s#/);
  return at === -1 ? value : value.slice(0, at).trimEnd();
}

/** A key as one string (a list is joined with ", "), or undefined. */
export function stringField(data: Record<string, FrontmatterValue>, key: string): string | undefined {
  const value = data[key];
  if (value === undefined) return undefined;
  const text = Array.isArray(value) ? value.join(", ") : value;
  return text.trim() === "" ? undefined : text.trim();
}

/** A key as a list: a YAML list's items, or a string's (one item; the reader splits it as it needs). */
export function listField(data: Record<string, FrontmatterValue>, key: string): string[] | undefined {
  const value = data[key];
  if (value === undefined) return undefined;
  return (Array.isArray(value) ? value : [value]).map((item) => item.trim()).filter(Boolean);
}
