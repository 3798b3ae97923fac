import { createRequire } from "node:module";
import type { IPty } from "@lydell/node-pty";
import type { Terminal as XtermTerminal } from "@xterm/headless";

/**
 * The built CLI on a pseudo-terminal, read by a virtual terminal (xterm.js, headless, with
 * Unicode 11 widths): what a user would see on the screen and in the scrollback, and every byte
 * the CLI wrote. Waits are on the screen's contents (polled, with a generous overall limit), never
 * on fixed sleeps.
 */
const require = createRequire(import.meta.url);

export type PtyLoad = { pty: typeof import("@lydell/node-pty"); xterm: typeof import("@xterm/headless") };

/** The PTY package and the virtual terminal, or why a pseudo-terminal cannot be created here. */
export function loadPty(): PtyLoad | { reason: string } {
  try {
    const pty = require("@lydell/node-pty") as typeof import("@lydell/node-pty");
    const probe = pty.spawn(process.execPath, ["-e", ""], { cols: 20, rows: 5 });
    probe.kill();
    const xterm = require("@xterm/headless") as typeof import("@xterm/headless");
    return { pty, xterm };
  } catch (error) {
    return { reason: error instanceof Error ? error.message : String(error) };
  }
}

export type TerminalSession = {
  /** Every byte the CLI wrote, as text. */
  readonly output: () => string;
  /** The visible screen, one string per row (trailing spaces trimmed). */
  screen(): string[];
  /** Scrollback and screen, in order. */
  all(): string[];
  /** Cursor-visible state as the CLI left it (DECTCEM). */
  cursorHidden(): boolean;
  type(data: string): void;
  resize(cols: number, rows: number): void;
  /** Resolves once `check` holds for the screen and scrollback text (polled). */
  waitFor(check: (text: string) => boolean, what: string): Promise<void>;
  exited: Promise<{ exitCode: number; signal?: number }>;
  hasExited(): boolean;
  kill(signal?: string): void;
  pty: IPty;
  term: XtermTerminal;
};

const WAIT_LIMIT_MS = 20_000;

export function openTerminal(
  load: PtyLoad,
  file: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; cols?: number; rows?: number },
): TerminalSession {
  const cols = options.cols ?? 80;
  const rows = options.rows ?? 24;
  const term = new load.xterm.Terminal({ cols, rows, scrollback: 5000, allowProposedApi: true });
  const { Unicode11Addon } = require("@xterm/addon-unicode11") as typeof import("@xterm/addon-unicode11");
  term.loadAddon(new Unicode11Addon());
  term.unicode.activeVersion = "11";
  const name = options.env.TERM ?? "xterm-256color";
  const pty = load.pty.spawn(file, args, {
    name,
    cols,
    rows,
    cwd: options.cwd,
    env: { ...options.env, TERM: name } as Record<string, string>,
  });
  let output = "";
  let pending = 0;
  let exitedFlag = false;
  pty.onData((data) => {
    output += data;
    pending += 1;
    term.write(data, () => {
      pending -= 1;
    });
  });
  const exited = new Promise<{ exitCode: number; signal?: number }>((resolve) =>
    pty.onExit((event) => {
      exitedFlag = true;
      resolve(event);
    }),
  );
  const lines = (from: number, to: number) => {
    const buffer = term.buffer.active;
    const out: string[] = [];
    for (let i = from; i < to; i++) out.push(buffer.getLine(i)?.translateToString(true) ?? "");
    return out;
  };
  const session: TerminalSession = {
    output: () => output,
    screen: () => lines(term.buffer.active.viewportY, term.buffer.active.viewportY + term.rows),
    all: () => lines(0, term.buffer.active.length),
    cursorHidden: () => (term as unknown as { modes: { showCursor?: boolean } }).modes?.showCursor === false,
    type: (data) => pty.write(data),
    resize: (c, r) => {
      pty.resize(c, r);
      term.resize(c, r);
    },
    waitFor: async (check, what) => {
      const limit = Date.now() + WAIT_LIMIT_MS;
      while (true) {
        await new Promise((resolve) => setTimeout(resolve, 25));
        if (pending === 0 && check(session.all().join("\n"))) return;
        if (Date.now() > limit)
          throw new Error(`timed out waiting for ${what}; the screen:\n${session.screen().join("\n")}`);
      }
    },
    exited,
    hasExited: () => exitedFlag,
    kill: (signal) => {
      if (!exitedFlag) pty.kill(signal);
    },
    pty,
    term,
  };
  return session;
}
