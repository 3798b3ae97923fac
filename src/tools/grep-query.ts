import ignore from "ignore";
import { FILE_TYPES } from "./file-types.js";
import type { Verdict } from "./ignore-walk.js";

/** One search, as both engines (ripgrep and the JS fallback) understand it. */
export type GrepQuery = {
  /** Absolute file or directory to search. */
  root: string;
  rootIsFile: boolean;
  pattern: string;
  ignoreCase: boolean;
  multiline: boolean;
  before: number;
  after: number;
  /** Glob filters, ripgrep `--glob` style; a leading `!` excludes. */
  globs: string[];
  type?: string;
  /** False when only per-file counts are needed, so engines can skip collecting line text. */
  wantLines: boolean;
  /**
   * Results must arrive in path order (content and count modes show them in that order). When
   * false (files_with_matches, which is re-sorted by modification time), ripgrep may search with
   * all its threads: `--sort path` makes it single-threaded.
   */
  inPathOrder: boolean;
  signal: AbortSignal;
  env: NodeJS.ProcessEnv;
};

/**
 * Receives results in output order: each file's lines (matches and context, ascending), then its
 * `fileDone` with the number of matches (matching lines, or match blocks in multiline mode).
 */
export interface GrepSink {
  line(file: string, lineNumber: number, text: string, isMatch: boolean): void;
  fileDone(file: string, matches: number): void;
}

/** A problem with the query itself (bad regex, unknown type): shown to the model as an error. */
export class GrepQueryError extends Error {}

/**
 * Splits the `glob` input into separate globs: models write "*.ts *.tsx" or "*.ts,*.tsx" as well
 * as "*.{ts,tsx}", so whitespace and commas outside braces separate globs.
 */
export function splitGlobs(glob: string | undefined): string[] {
  if (!glob) return [];
  const globs: string[] = [];
  let depth = 0;
  let current = "";
  for (const char of glob) {
    if (char === "{") depth += 1;
    if (char === "}") depth = Math.max(0, depth - 1);
    if (depth === 0 && (char === "," || /\s/.test(char))) {
      if (current) globs.push(current);
      current = "";
    } else current += char;
  }
  if (current) globs.push(current);
  return globs;
}

/** `a{b,c{d,e}}` → `ab`, `acd`, `ace`: ripgrep globs support braces, gitignore patterns do not. */
export function expandBraces(pattern: string): string[] {
  const open = pattern.indexOf("{");
  if (open === -1) return [pattern];
  let depth = 0;
  const commas: number[] = [];
  for (let i = open; i < pattern.length; i++) {
    const char = pattern[i];
    if (char === "{") depth += 1;
    else if (char === "}") {
      depth -= 1;
      if (depth === 0) {
        if (commas.length === 0) break;
        const bounds = [open, ...commas, i];
        const head = pattern.slice(0, open);
        const tail = pattern.slice(i + 1);
        return bounds
          .slice(1)
          .flatMap((end, k) => expandBraces(head + pattern.slice(bounds[k]! + 1, end) + tail));
      }
    } else if (char === "," && depth === 1) commas.push(i);
  }
  return [pattern];
}

/**
 * For the JS engine, ripgrep's `--glob` semantics: globs match with gitignore rules and take
 * precedence over ignore files and types. A path matching an excluding glob is dropped; one
 * matching an including glob is kept even if .gitignore ignores it; when including globs exist,
 * other files are dropped while other directories are still walked.
 */
export function globOverrides(globs: string[]): ((rel: string, isDir: boolean) => Verdict) | undefined {
  if (globs.length === 0) return undefined;
  const include = globs.filter((glob) => !glob.startsWith("!")).flatMap(expandBraces);
  const exclude = globs.filter((glob) => glob.startsWith("!")).flatMap((glob) => expandBraces(glob.slice(1)));
  const included = include.length ? ignore({ ignorecase: false }).add(include) : undefined;
  const excluded = exclude.length ? ignore({ ignorecase: false }).add(exclude) : undefined;
  return (rel, isDir) => {
    const subject = isDir ? `${rel}/` : rel;
    if (excluded?.ignores(subject)) return "exclude";
    if (!included) return undefined;
    if (included.ignores(subject)) return "include";
    return isDir ? undefined : "exclude";
  };
}

/** Whether a file (relative path) is of ripgrep type `type`; throws on a type it does not know. */
export function typeMatcher(type: string | undefined): (rel: string) => boolean {
  if (type === undefined) return () => true;
  const patterns = Object.hasOwn(FILE_TYPES, type) ? FILE_TYPES[type] : undefined;
  if (!patterns) {
    throw new GrepQueryError(
      `Unknown file type: ${type}. Known types: ${Object.keys(FILE_TYPES).join(", ")}. Or use glob instead.`,
    );
  }
  const typed = ignore({ ignorecase: false }).add(patterns);
  return (rel) => typed.ignores(rel);
}
