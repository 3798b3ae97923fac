import * as z from "zod";
import { isReadDenied } from "../sandbox/denied-paths.js";
import { stat } from "../util/fs-async.js";
import { BUILTIN_JSON_SCHEMAS } from "./builtin-json-schemas.js";
import { defineTool } from "./define.js";
import { quoted } from "./display.js";
import { searchWithJs } from "./grep-js.js";
import { type GrepQuery, GrepQueryError, type GrepSink, splitGlobs } from "./grep-query.js";
import { GrepCollector, presentCounts, presentFiles, presentLines } from "./grep-results.js";
import { findRipgrep, searchWithRipgrep } from "./grep-rg.js";
import { resolveToolPath } from "./paths.js";
import type { ToolContext } from "./types.js";

/** Entries shown when head_limit is not given (lines, files or counts, by mode). */
export const GREP_DEFAULT_HEAD_LIMIT = 250;
/** Entries kept at most, whatever head_limit asks (head_limit 0 means this). */
export const GREP_MAX_ENTRIES = 5000;
/**
 * Files kept for sorting by modification time in files_with_matches mode. ripgrep searches that
 * mode in parallel, so past this many matching files which ones are kept is whichever came first.
 */
const MAX_SORTED_FILES = 10_000;

const count = () => z.number().int().min(0).optional();
const input = () =>
  z.object({
    pattern: z
      .string()
      .min(1)
      .describe("The regular expression to search for in file contents (ripgrep syntax)."),
    path: z
      .string()
      .optional()
      .describe(
        "File or directory to search: absolute, or relative to the working directory (default: the working directory).",
      ),
    glob: z
      .string()
      .optional()
      .describe('Only search files matching this glob, e.g. "*.js" or "*.{ts,tsx}"; "!" excludes.'),
    type: z
      .string()
      .optional()
      .describe('Only search files of this type, e.g. "js", "py", "rust" (ripgrep type names).'),
    output_mode: z
      .enum(["content", "files_with_matches", "count"])
      .optional()
      .describe(
        '"content" shows matching lines, "files_with_matches" lists files (default), "count" counts per file.',
      ),
    "-i": z.boolean().optional().describe("Case insensitive search."),
    "-n": z.boolean().optional().describe('Show line numbers in "content" mode (default true).'),
    "-A": count().describe('Lines to show after each match ("content" mode).'),
    "-B": count().describe('Lines to show before each match ("content" mode).'),
    "-C": count().describe('Lines to show before and after each match ("content" mode).'),
    head_limit: count().describe(
      `Show only the first N lines, files or counts (default ${GREP_DEFAULT_HEAD_LIMIT}; 0 for up to ${GREP_MAX_ENTRIES}).`,
    ),
    multiline: z.boolean().optional().describe("Let the pattern span lines; `.` then matches newlines too."),
  });

type Engine = "ripgrep" | "js";

export const grepTool = defineTool({
  name: "Grep",
  effects: {
    kind: "read",
    readOnly: true,
    network: false,
    paths: (args) => [{ path: args.path ?? ".", access: "read" }],
  },
  payload: "grep",
  display: (args) => ({
    title: `grep ${quoted(args.pattern)}${args.path ? ` in ${args.path}` : ""}`,
    kind: "search",
  }),
  description:
    "Searches file contents with a regular expression (ripgrep syntax) and lists matching files (default), matching lines " +
    '(output_mode "content", with -A/-B/-C context and line numbers) or match counts per file. ' +
    "The path may be a file or directory, absolute or relative to the working directory. " +
    "Filter files with glob or type. Skips .git, node_modules, binary files and files ignored by .gitignore. " +
    "Use this instead of running grep or rg with Bash.",
  input,
  jsonSchema: BUILTIN_JSON_SCHEMAS.Grep,
  async run(args, ctx) {
    const root = resolveToolPath(ctx.cwd, args.path ?? ".");
    const info = await stat(root).catch(() => undefined);
    if (!info) return { content: `Path does not exist: ${root}`, isError: true };
    const mode = args.output_mode ?? "files_with_matches";
    const inContent = mode === "content";
    const query: GrepQuery = {
      root,
      rootIsFile: !info.isDirectory(),
      pattern: args.pattern,
      ignoreCase: args["-i"] ?? false,
      multiline: args.multiline ?? false,
      before: inContent ? (args["-B"] ?? args["-C"] ?? 0) : 0,
      after: inContent ? (args["-A"] ?? args["-C"] ?? 0) : 0,
      globs: splitGlobs(args.glob),
      ...(args.type !== undefined ? { type: args.type } : {}),
      wantLines: inContent,
      inPathOrder: mode !== "files_with_matches",
      signal: ctx.signal,
      env: ctx.env,
    };
    const limit = effectiveLimit(args.head_limit);
    const collector = new GrepCollector(
      inContent ? limit : 0,
      mode === "files_with_matches" ? MAX_SORTED_FILES : limit,
    );

    const rg = ctx.env.CAIRN_GREP === "js" ? undefined : await findRipgrep(ctx.env.PATH ?? "");
    const engine: Engine = rg ? "ripgrep" : "js";
    // Files the settings deny reading are searched by neither engine's caller: their lines are dropped.
    const sink = withoutDenied(collector, ctx);
    try {
      if (rg) await searchWithRipgrep(rg, query, sink);
      else await searchWithJs(query, sink);
    } catch (error) {
      if (error instanceof GrepQueryError)
        return { content: `Invalid search: ${error.message}`, isError: true };
      throw error;
    }

    const answer =
      mode === "files_with_matches"
        ? await presentFiles(collector, limit)
        : mode === "count"
          ? presentCounts(collector, query.multiline)
          : presentLines(collector, args["-n"] ?? true, query.before > 0 || query.after > 0);
    return {
      content: answer.content,
      data: {
        pattern: args.pattern,
        path: root,
        outputMode: mode,
        matches: answer.matches,
        numFiles: collector.numFiles,
        numMatches: collector.numMatches,
        truncated: answer.truncated,
        engine,
      },
    };
  },
});

/** The collector, behind a filter that drops what comes from a file the run may not read. */
function withoutDenied(collector: GrepCollector, ctx: ToolContext): GrepSink {
  const policy = ctx.sandbox;
  if (!policy || policy.readDenied.length === 0) return collector;
  const verdicts = new Map<string, boolean>();
  const denied = (file: string) => {
    let verdict = verdicts.get(file);
    if (verdict === undefined) {
      verdict = isReadDenied(policy, resolveToolPath(ctx.cwd, file));
      verdicts.set(file, verdict);
    }
    return verdict;
  };
  return {
    line: (file, lineNumber, text, isMatch) => {
      if (!denied(file)) collector.line(file, lineNumber, text, isMatch);
    },
    fileDone: (file, matches) => {
      if (!denied(file)) collector.fileDone(file, matches);
    },
  };
}

function effectiveLimit(headLimit: number | undefined): number {
  if (headLimit === undefined) return GREP_DEFAULT_HEAD_LIMIT;
  if (headLimit === 0) return GREP_MAX_ENTRIES;
  return Math.min(headLimit, GREP_MAX_ENTRIES);
}
