import path from "node:path";
import { readFile } from "../util/fs-async.js";
import { type GrepQuery, GrepQueryError, type GrepSink, globOverrides, typeMatcher } from "./grep-query.js";
import { IgnoreFilter, walkFiles } from "./ignore-walk.js";
import { RegexDeadlineError, RegexWorker } from "./regex-worker.js";

/** Larger files are skipped by the fallback: it reads whole files into memory. */
const MAX_FILE_BYTES = 64 * 1024 * 1024;

/**
 * The fallback engine when ripgrep is not installed: walks the tree honouring .gitignore (the same
 * rules as Glob), skips binary files as ripgrep does, and matches with JS regular expressions.
 * Reports results in the same order and units as the ripgrep engine.
 */
export async function searchWithJs(
  query: GrepQuery,
  sink: GrepSink,
  options: { regexDeadlineMs?: number } = {},
): Promise<void> {
  // Matching runs in a worker with a deadline: a backtracking pattern must not hang the agent.
  const matcher = new RegexWorker(compile(query), query.signal, options.regexDeadlineMs);
  try {
    if (query.rootIsFile) {
      await searchFile(query.root, matcher, query, sink);
      return;
    }
    // Like ripgrep, filters and ignore files apply to what the walk finds, not to a file named directly.
    const override = globOverrides(query.globs);
    const ofType = typeMatcher(query.type);
    const filter = await IgnoreFilter.create(query.root);
    for await (const rel of walkFiles(query.root, filter, { signal: query.signal, override })) {
      // A file an including glob names is searched whatever its type, as ripgrep does.
      if (override?.(rel, false) === "include" || ofType(rel)) {
        await searchFile(path.join(query.root, rel), matcher, query, sink);
      }
    }
  } catch (error) {
    if (error instanceof RegexDeadlineError) throw new GrepQueryError(error.message);
    throw error;
  } finally {
    await matcher.close();
  }
}

function compile(query: GrepQuery): RegExp {
  let source = query.pattern;
  // ripgrep searches line by line, even with multiline on, unless the pattern can match a newline.
  let flags = query.multiline && mayMatchNewline(source) ? "gms" : "";
  // Rust-regex inline case flag at the start, which JS does not accept.
  if (source.startsWith("(?i)")) {
    source = source.slice(4);
    flags += "i";
  } else if (query.ignoreCase) flags += "i";
  try {
    return new RegExp(source, flags);
  } catch (error) {
    throw new GrepQueryError(error instanceof Error ? error.message : String(error));
  }
}

async function searchFile(
  file: string,
  matcher: RegexWorker,
  query: GrepQuery,
  sink: GrepSink,
): Promise<void> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch {
    return;
  }
  // ripgrep stops at the first NUL byte and reports nothing for such a file: do the same.
  if (bytes.length === 0 || bytes.length > MAX_FILE_BYTES || bytes.includes(0)) return;
  const text = bytes.toString("utf8");
  const lines = text.split("\n");
  if (text.endsWith("\n")) lines.pop();
  const marks = new Uint8Array(lines.length); // 0 not shown, 1 context, 2 match
  const hits = await matcher.match(text);
  const matches = matcher.multiline ? markMultiline(text, lines, hits, marks) : markLines(hits, marks);
  if (matches === 0) return;
  if (query.wantLines) {
    addContext(marks, query.before, query.after);
    marks.forEach((mark, i) => {
      if (mark) sink.line(file, i + 1, lines[i]!, mark === 2);
    });
  }
  sink.fileDone(file, matches);
}

function markLines(matchingLines: number[], marks: Uint8Array): number {
  for (const i of matchingLines) marks[i] = 2;
  return matchingLines.length;
}

/**
 * Whether a pattern might match a line break, erring towards yes: `.` (dotall), anchors, negated
 * classes and escapes that include `\n`. Mirrors ripgrep's choice of its multi-line searcher.
 */
export function mayMatchNewline(source: string): boolean {
  for (let i = 0; i < source.length; i++) {
    const char = source[i];
    if (char === "\\") {
      if ("nrsSWDpP".includes(source[i + 1] ?? "")) return true;
      i += 1;
    } else if (char === "." || char === "$" || char === "^") return true;
    else if (char === "[" && source[i + 1] === "^") return true;
  }
  return false;
}

/**
 * Marks the lines each match spans. Matches on the same or adjacent lines form one block, counted
 * once, as ripgrep's multi-line searcher reports them as one match.
 */
function markMultiline(text: string, lines: string[], spans: number[], marks: Uint8Array): number {
  const starts: number[] = [];
  let position = 0;
  for (const line of lines) {
    starts.push(position);
    position += line.length + 1;
  }
  const lineOf = (offset: number) => {
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (starts[mid]! <= offset) low = mid;
      else high = mid - 1;
    }
    return low;
  };
  let blocks = 0;
  let blockLast = -2;
  for (let k = 0; k < spans.length; k += 2) {
    const start = spans[k]!;
    const end = spans[k + 1]!;
    // A match at the very end of a file ending in a newline belongs to no line.
    if (start >= text.length && text.endsWith("\n")) break;
    const first = lineOf(start);
    const last = lineOf(Math.max(start, end - 1));
    if (first > blockLast + 1) blocks += 1;
    blockLast = Math.max(blockLast, last);
    for (let i = first; i <= last; i++) marks[i] = 2;
  }
  return blocks;
}

function addContext(marks: Uint8Array, before: number, after: number): void {
  if (before === 0 && after === 0) return;
  const matchLines: number[] = [];
  marks.forEach((mark, i) => {
    if (mark === 2) matchLines.push(i);
  });
  for (const i of matchLines) {
    for (let j = Math.max(0, i - before); j <= Math.min(marks.length - 1, i + after); j++) {
      if (marks[j] === 0) marks[j] = 1;
    }
  }
}
