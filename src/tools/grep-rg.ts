import path from "node:path";
import { StringDecoder } from "node:string_decoder";
import { spawn } from "../util/spawn.js";
import { CappedOutput } from "./capped-output.js";
import { type GrepQuery, GrepQueryError, type GrepSink } from "./grep-query.js";
import { findOnPath } from "./process-group.js";

/** A search that takes longer is stopped: the agent must never wait on one without end. */
export const RIPGREP_TIME_BUDGET_MS = 120_000;
/** A JSON record (one matching line) longer than this is not collected: ripgrep is stopped instead. */
const MAX_RECORD_CHARS = 64 * 1024 * 1024;

let rgLookup: Promise<string | undefined> | undefined;

/** ripgrep's path on the tools' PATH, looked up once on first use; undefined when it is not installed. */
export function findRipgrep(searchPath: string): Promise<string | undefined> {
  rgLookup ??= findOnPath("rg", searchPath);
  return rgLookup;
}

export function ripgrepArgs(query: GrepQuery): string[] {
  const args = ["--json", "--no-config", "--hidden", "--no-require-git"];
  if (query.inPathOrder) args.push("--sort", "path");
  if (query.ignoreCase) args.push("--ignore-case");
  if (query.multiline) args.push("--multiline", "--multiline-dotall");
  if (query.before) args.push("--before-context", String(query.before));
  if (query.after) args.push("--after-context", String(query.after));
  if (query.type !== undefined) args.push("--type", query.type);
  for (const glob of query.globs) args.push("--glob", glob);
  // Last, so they win over any user glob (ripgrep gives later globs precedence).
  args.push("--glob", "!.git", "--glob", "!node_modules");
  args.push("--regexp", query.pattern, "--", query.root);
  return args;
}

/**
 * Runs ripgrep with JSON output and feeds its results to the sink. In count and file modes only
 * the per-file begin/end records are parsed; match records are only counted, which keeps large
 * result sets cheap.
 */
export async function searchWithRipgrep(rg: string, query: GrepQuery, sink: GrepSink): Promise<void> {
  const child = spawn(rg, ripgrepArgs(query), {
    cwd: query.rootIsFile ? path.dirname(query.root) : query.root,
    env: query.env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const onAbort = () => child.kill("SIGKILL");
  query.signal.addEventListener("abort", onAbort, { once: true });
  let stoppedBecause: string | undefined;
  const stopBecause = (reason: string) => {
    stoppedBecause ??= reason;
    child.kill("SIGKILL");
  };
  const budget = setTimeout(
    () =>
      stopBecause(
        `the search took more than ${RIPGREP_TIME_BUDGET_MS / 1000} s and was stopped; narrow the path or pattern`,
      ),
    RIPGREP_TIME_BUDGET_MS,
  );
  const stderr = new CappedOutput(4000, 4000);
  child.stderr.on("data", (chunk: Buffer) => stderr.write(chunk));

  const decoder = new StringDecoder("utf8");
  let pending = "";
  let currentFile = "";
  let matches = 0;
  let anyFile = false;
  const handle = (record: string) => {
    if (record.startsWith('{"type":"match"') && !query.wantLines) {
      matches += 1;
      return;
    }
    let message: RgMessage;
    try {
      message = JSON.parse(record) as RgMessage;
    } catch {
      return; // not a record (ripgrep writes only JSON lines; never let one bad line crash the agent)
    }
    if (message.type === "begin") {
      currentFile = decodeData(message.data.path);
      matches = 0;
    } else if (message.type === "end") {
      if (matches > 0) {
        anyFile = true;
        sink.fileDone(currentFile, matches);
      }
    } else if (message.type === "match" || message.type === "context") {
      const isMatch = message.type === "match";
      if (isMatch) matches += 1;
      // A multiline match spans several lines; each is reported on its own, numbered.
      const text = decodeData(message.data.lines).replace(/\n$/, "");
      text.split("\n").forEach((line, i) => {
        sink.line(currentFile, message.data.line_number + i, line, isMatch);
      });
    }
  };
  child.stdout.on("data", (chunk: Buffer) => {
    pending += decoder.write(chunk);
    let start = 0;
    for (let newline = pending.indexOf("\n"); newline !== -1; newline = pending.indexOf("\n", start)) {
      if (newline > start) handle(pending.slice(start, newline));
      start = newline + 1;
    }
    pending = pending.slice(start);
    if (pending.length > MAX_RECORD_CHARS) stopBecause("a matching line is too long to show (over 64 MB)");
  });

  const code = await new Promise<number | null>((resolve, reject) => {
    child.once("error", reject);
    child.once("close", resolve);
  }).finally(() => {
    clearTimeout(budget);
    query.signal.removeEventListener("abort", onAbort);
  });
  if (stoppedBecause) throw new GrepQueryError(stoppedBecause);
  pending += decoder.end();
  if (pending.trim()) handle(pending);
  // Exit 1 means no match. Exit 2 is an error, but with results (say, one unreadable file) still an answer.
  if (code === 2 && !anyFile && !query.signal.aborted) {
    throw new GrepQueryError(stderr.toString().trim() || "ripgrep failed");
  }
}

type RgData = { text?: string; bytes?: string };
type RgMessage =
  | { type: "begin" | "end"; data: { path: RgData } }
  | { type: "match" | "context"; data: { path: RgData; lines: RgData; line_number: number } }
  | { type: "summary"; data: unknown };

/** ripgrep sends text that is not valid UTF-8 as base64 bytes. */
function decodeData(value: RgData): string {
  if (value.text !== undefined) return value.text;
  return Buffer.from(value.bytes ?? "", "base64").toString("utf8");
}
