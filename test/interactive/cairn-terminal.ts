import { afterEach } from "vitest";
import type { ScriptedServer, StepInput } from "../../src/testing/index.js";
import { CLI, MODEL, serverEnv, startServer, workspace } from "../conformance/pm/helpers.js";
import { loadPty, openTerminal, type TerminalSession } from "./pty-terminal.js";

/**
 * `cairn` (no -p) on a pseudo-terminal, in a new workspace, against a scripted model: the set-up the
 * rendering tests share. Terminals opened are killed after each test.
 */
export const load = loadPty();
export const skipped =
  "reason" in load ? ` (skipped: no pseudo-terminal can be created here: ${load.reason})` : "";
export const FOOTER = "(shift+tab)";
const opened: TerminalSession[] = [];

afterEach(() => {
  for (const terminal of opened.splice(0)) terminal.kill("SIGKILL");
});

export async function startCairn(
  steps: StepInput[],
  args: string[] = [],
  options: {
    env?: Record<string, string>;
    files?: Record<string, string>;
    cols?: number;
    rows?: number;
    chunkSize?: number;
  } = {},
): Promise<{ t: TerminalSession; server: ScriptedServer; dir: string }> {
  if ("reason" in load) throw new Error(load.reason);
  const server = await startServer(steps, options.chunkSize);
  const dir = workspace(options.files);
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

/** How many times `needle` occurs in `haystack`. */
export function count(haystack: string, needle: string): number {
  return haystack.split(needle).length - 1;
}
