import type { GrepSink } from "./grep-query.js";
import { sortNewestFirst } from "./mtime-sort.js";

/** Longest line text kept per result line; minified files would otherwise flood the model. */
const MAX_RESULT_LINE_CHARS = 500;

export type ResultLine = { file: string; lineNumber: number; text: string; isMatch: boolean };

/**
 * Keeps what the answer shows, bounded whatever the search finds: at most `lineCap` result lines
 * and `fileCap` files, while still counting every file and match.
 */
export class GrepCollector implements GrepSink {
  readonly lines: ResultLine[] = [];
  readonly files: { file: string; count: number }[] = [];
  numFiles = 0;
  numMatches = 0;
  linesDropped = false;
  filesDropped = false;

  constructor(
    private readonly lineCap: number,
    private readonly fileCap: number,
  ) {}

  line(file: string, lineNumber: number, text: string, isMatch: boolean): void {
    if (this.lines.length >= this.lineCap) {
      this.linesDropped = true;
      return;
    }
    this.lines.push({ file, lineNumber, text: clip(text.replace(/\r$/, "")), isMatch });
  }

  fileDone(file: string, matches: number): void {
    this.numFiles += 1;
    this.numMatches += matches;
    if (this.files.length < this.fileCap) this.files.push({ file, count: matches });
    else this.filesDropped = true;
  }
}

function clip(text: string): string {
  if (text.length <= MAX_RESULT_LINE_CHARS) return text;
  return `${text.slice(0, MAX_RESULT_LINE_CHARS)} [... ${text.length - MAX_RESULT_LINE_CHARS} more characters]`;
}

export type GrepAnswer = {
  content: string;
  matches: { file: string; lineNumber?: number; content?: string; count?: number }[];
  truncated: boolean;
};

const NARROWER = "Use head_limit, or a narrower path, glob or type, to see more.";

/** files_with_matches: the files, most recently modified first, as the model most likely wants them. */
export async function presentFiles(collector: GrepCollector, limit: number): Promise<GrepAnswer> {
  const sorted = await sortNewestFirst(collector.files.map((entry) => entry.file));
  const shown = sorted.slice(0, limit);
  const truncated = collector.numFiles > shown.length;
  let content = shown.length
    ? `Found ${plural(collector.numFiles, "file")}\n${shown.join("\n")}`
    : "No files found";
  if (truncated) {
    content += `\n[Showing ${shown.length} of ${collector.numFiles} files, most recently modified first. ${NARROWER}]`;
  }
  return { content, matches: shown.map((file) => ({ file })), truncated };
}

/** count: `file:count` per file (in path order) and the totals. */
export function presentCounts(collector: GrepCollector, multiline: boolean): GrepAnswer {
  const shown = collector.files;
  const matchesText = multiline
    ? plural(collector.numMatches, "match", "matches")
    : plural(collector.numMatches, "matching line");
  let content = shown.length
    ? `${shown.map((entry) => `${entry.file}:${entry.count}`).join("\n")}\n\nFound ${matchesText} in ${plural(collector.numFiles, "file")}.`
    : "No matches found";
  if (collector.filesDropped)
    content += `\n[Showing ${shown.length} of ${collector.numFiles} files. ${NARROWER}]`;
  const matches = shown.map((entry) => ({ file: entry.file, count: entry.count }));
  return { content, matches, truncated: collector.filesDropped };
}

/** content: the lines in ripgrep's layout; `matches` holds the matching lines only (no context). */
export function presentLines(
  collector: GrepCollector,
  showLineNumbers: boolean,
  withContext: boolean,
): GrepAnswer {
  const lines = collector.lines;
  let content = lines.length ? formatContentLines(lines, showLineNumbers, withContext) : "No matches found";
  if (collector.linesDropped) {
    content += `\n\n[Showing the first ${lines.length} lines; ${plural(collector.numMatches, "match", "matches")} in ${plural(collector.numFiles, "file")} in all. ${NARROWER}]`;
  }
  const matches = lines
    .filter((line) => line.isMatch)
    .map((line) => ({ file: line.file, lineNumber: line.lineNumber, content: line.text }));
  return { content, matches, truncated: collector.linesDropped };
}

/**
 * ripgrep's own layout: `file:line:text` for matches, `file-line-text` for context lines, and `--`
 * between groups of lines that are not adjacent (only when context was asked for).
 */
export function formatContentLines(
  lines: ResultLine[],
  showLineNumbers: boolean,
  withContext: boolean,
): string {
  const out: string[] = [];
  let previous: ResultLine | undefined;
  for (const line of lines) {
    const adjacent = previous && previous.file === line.file && previous.lineNumber + 1 === line.lineNumber;
    if (withContext && previous && !adjacent) out.push("--");
    const separator = line.isMatch ? ":" : "-";
    const number = showLineNumbers ? `${line.lineNumber}${separator}` : "";
    out.push(`${line.file}${separator}${number}${line.text}`);
    previous = line;
  }
  return out.join("\n");
}

export function plural(count: number, singular: string, pluralForm = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : pluralForm}`;
}
