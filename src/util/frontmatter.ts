/**
 * The YAML frontmatter of Markdown definition files (agents, commands, skills): the subset those
 * files use — `key: value` scalars (plain, quoted, `true`/`false`, numbers), flow lists
 * (`[a, b]`), block lists (`- a`), and `|` / `>` block text. Anything else is kept as its text.
 * A file without a leading `---` line has no frontmatter: all of it is the body.
 */
export type FrontmatterValue = string | number | boolean | string[];

export type Frontmatter = { data: Record<string, FrontmatterValue>; body: string };

export class FrontmatterError extends Error {
  override name = "FrontmatterError";
}

export function parseFrontmatter(text: string): Frontmatter {
  const source = text.replace(/^\uFEFF/, "").replace(/\r\n/g, "\n");
  if (!source.startsWith("---\n") && source !== "---") return { data: {}, body: source };
  const end = source.indexOf("\n---", 3);
  if (end === -1) throw new FrontmatterError("the frontmatter has no closing --- line");
  const lines = source.slice(4, end + 1).split("\n");
  const after = source.indexOf("\n", end + 4);
  const body = after === -1 ? "" : source.slice(after + 1);
  const data: Record<string, FrontmatterValue> = {};
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trim() === "" || line.trimStart().startsWith("#")) continue;
    const match = /^([A-Za-z_][\w-]*)\s*:(?:\s+(.*))?$/.exec(line);
    if (!match) throw new FrontmatterError(`line ${i + 2} is not "key: value": ${line.trim()}`);
    const key = match[1]!;
    const raw = (match[2] ?? "").trim();
    const nested: string[] = [];
    while (i + 1 < lines.length && (/^\s+\S/.test(lines[i + 1]!) || lines[i + 1]!.trim() === "")) {
      nested.push(lines[++i]!);
    }
    data[key] = parseValue(raw, nested);
  }
  return { data, body };
}

function parseValue(raw: string, nested: string[]): FrontmatterValue {
  const filled = nested.filter((line) => line.trim() !== "");
  if (raw === "" && filled.length > 0 && filled.every((line) => line.trim().startsWith("- "))) {
    return filled.map((line) => scalar(line.trim().slice(2).trim()) as string);
  }
  if (/^[|>][+-]?$/.test(raw)) {
    const indent = Math.min(...filled.map((line) => line.length - line.trimStart().length));
    const texts = nested.map((line) => line.slice(indent).trimEnd());
    while (texts.at(-1) === "") texts.pop();
    return raw.startsWith("|") ? texts.join("\n") : texts.join(" ").replace(/ {2,}/g, " ").trim();
  }
  // A plain scalar may go on over indented lines (folded with spaces, as YAML does).
  const text = [raw, ...filled.map((line) => line.trim())].join(" ").trim();
  if (text.startsWith("[") && text.endsWith("]")) {
    const inner = text.slice(1, -1).trim();
    return inner === "" ? [] : inner.split(",").map((item) => String(scalar(item.trim())));
  }
  return scalar(text);
}

function scalar(text: string): string | number | boolean {
  if (text.length >= 2 && (text[0] === '"' || text[0] === "'") && text.at(-1) === text[0]) {
    const inner = text.slice(1, -1);
    return text[0] === '"' ? inner.replace(/\\"/g, '"').replace(/\\n/g, "\n") : inner.replace(/''/g, "'");
  }
  if (text === "true") return true;
  if (text === "false") return false;
  if (/^-?\d+(\.\d+)?$/.test(text)) return Number(text);
  return text;
}
