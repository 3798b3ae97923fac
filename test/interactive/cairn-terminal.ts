import { afterEach } from "vitest";
import type { ScriptedServer, StepInput } from "../../src/testing/index.js";
import { CLI, MODEL, serverEnv, startServer, workspace } from "../conformance/pm/helpers.js";
import { loadPty, openTerminal, type TerminalSession } from "./pty-terminal.js";

export { userTexts } from "../helpers/user-texts.js";

/**
 * `cairn` (no -p) on a pseudo-terminal against the scripted model server: the set-up the rendering
 * and input tests share. Each test its own workspace (or a second run in one), and its own cairn
 * home when it says so (history and settings persist there between runs). Terminals opened are
 * killed after each test.
 */
export const load = loadPty();
export const skipped =
  "reason" in load ? ` (skipped: no pseudo-terminal can be created here: ${load.reason})` : "";
const opened: TerminalSession[] = [];

afterEach(() => {
  for (const terminal of opened.splice(0)) terminal.kill("SIGKILL");
});

export const FOOTER = "(shift+tab)";
export const ENTER = "\r";
export const ESC = "\x1b";
export const UP = "\x1b[A";
export const DOWN = "\x1b[B";
export const TAB = "\t";
export const CTRL_R = "\x12";
export const CTRL_D = "\x04";

export type StartOptions = {
  env?: Record<string, string>;
  files?: Record<string, string>;
  /** Run in this directory (a second run in the same workspace); default a new one. */
  dir?: string;
  /** A server already started (several runs against one script). */
  server?: ScriptedServer;
  cols?: number;
  rows?: number;
  /** The scripted server's streaming chunk size. */
  chunkSize?: number;
};

export async function startCairn(
  steps: StepInput[],
  args: string[] = [],
  options: StartOptions = {},
): Promise<{ t: TerminalSession; server: ScriptedServer; dir: string }> {
  if ("reason" in load) throw new Error(load.reason);
  const server = options.server ?? (await startServer(steps, options.chunkSize));
  const dir = options.dir ?? workspace(options.files);
  const t = openTerminal(load, process.execPath, [CLI, "--model", MODEL, ...args], {
    cwd: dir,
    env: { ...serverEnv(server), ...options.env },
    ...(options.cols ? { cols: options.cols } : {}),
    ...(options.rows ? { rows: options.rows } : {}),
  });
  opened.push(t);
  return { t, server, dir };
}

/** The input box and footer are drawn (the mode is ready for keys). */
export const ready = (t: TerminalSession) =>
  t.waitFor((text) => text.includes(FOOTER), "the input box and footer");

/** The live region's input rows: the rows between the rule and the footer. */
export function inputRows(t: TerminalSession): string[] {
  const screen = t.screen();
  const footer = screen.findLastIndex((row) => row.includes(FOOTER));
  const rule = screen.slice(0, footer).findLastIndex((row) => /^─+$/.test(row));
  return screen.slice(rule + 1, footer).map((row) => row.trimEnd());
}

/** How many times `needle` occurs in `haystack`. */
export function count(haystack: string, needle: string): number {
  return haystack.split(needle).length - 1;
}
