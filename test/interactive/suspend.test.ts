import { existsSync, readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { reply } from "../../src/testing/index.js";
import { CLI, MODEL, serverEnv, startServer, workspace } from "../conformance/pm/helpers.js";
import { count, FOOTER, load, ready, skipped, startCairn } from "./cairn-terminal.js";
import { openTerminal, type TerminalSession } from "./pty-terminal.js";

/**
 * Ctrl+Z (docs/interactive.md, "Keys"): cairn, started from an interactive shell with job control,
 * stops like a shell job with the terminal restored, and `fg` brings it back with its live region
 * drawn again — no screen or scrollback cleared.
 */
const BASH = "/bin/bash";
const noBash = existsSync(BASH) ? "" : " (skipped: /bin/bash is not installed)";

/** The state letter of /proc/<pid>/stat (R, S, T, …). */
const state = (pid: number) => readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")[0];

/** The one child of the shell: cairn's process. */
function childOf(pid: number): number {
  const children = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/);
  return Number(children[0]);
}

async function until(check: () => boolean, what: string, t: TerminalSession): Promise<void> {
  await t.waitFor(() => check(), what);
}

describe(`interactive mode: Ctrl+Z${skipped}${noBash}`, () => {
  test.skipIf(skipped !== "" || noBash !== "")(
    "Ctrl+Z stops cairn as a shell job with the terminal restored; fg draws the live region again and typing works",
    async () => {
      if ("reason" in load) throw new Error(load.reason);
      const server = await startServer([reply().text("Back after the suspension.")]);
      const dir = workspace();
      const t = openTerminal(load, BASH, ["--norc", "--noprofile", "-i"], {
        cwd: dir,
        env: { ...serverEnv(server), PS1: "shell$ " },
      });
      let pid = 0;
      try {
        await t.waitFor((text) => text.includes("shell$"), "the shell's prompt");
        const command = [process.execPath, CLI, "--model", MODEL].map((arg) => `'${arg}'`).join(" ");
        t.type(`${command}\r`);
        await t.waitFor((text) => text.includes(FOOTER), "the input box and footer");
        pid = childOf(t.pty.pid);
        t.type("a draft");
        await t.waitFor(() => t.screen().some((row) => row.includes("› a draft")), "the draft");
        const before = t.output().length;

        t.type("\x1a");
        await t.waitFor((text) => /Stopped/.test(text), "the shell's report of the stopped job");
        expect(state(pid)).toBe("T");
        // The terminal as it was: paste and focus reports off, the cursor shown, the live region
        // erased; the shell's prompt below.
        const atStop = t.output().slice(before);
        expect(atStop).toContain("\x1b[?2004l");
        expect(atStop).toContain("\x1b[?1004l");
        expect(t.cursorHidden()).toBe(false);
        expect(t.screen().some((row) => row.includes(FOOTER))).toBe(false);
        // Cooked mode, as the shell reports it for the stopped job's terminal.
        // stty's report may come in several writes: its end is the line after it.
        t.type("stty -a; echo stty done\r");
        await t.waitFor((text) => /speed[\s\S]*\nstty done/.test(text), "stty's report");
        const stty = t.all().join("\n");
        expect(stty).toMatch(/(^|\s)icanon(\s|$)/m);
        expect(stty).toMatch(/(^|\s)echo(\s|$)/m);

        t.type("fg\r");
        await until(() => state(pid) !== "T", "cairn continued", t);
        await t.waitFor(() => t.screen().some((row) => row.includes(FOOTER)), "the live region drawn again");
        // The draft is still in the input, and keys reach cairn again (raw mode: each key echoed by cairn).
        expect(t.screen().some((row) => row.includes("› a draft"))).toBe(true);
        t.type(" and more\r");
        await t.waitFor((text) => text.includes("Back after the suspension."), "the answer");
        expect(server.requests).toHaveLength(1);
        expect(JSON.stringify(server.requests[0]!.body)).toContain("a draft and more");
        const all = t.all().join("\n");
        expect(count(all, FOOTER)).toBe(1);
        expect(count(all, "Back after the suspension.")).toBe(1);
        expect(count(t.output(), "\x1b[2J")).toBe(0);
        expect(count(t.output(), "\x1b[3J")).toBe(0);
      } finally {
        await endAll([pid, t.pty.pid], t, server);
      }
    },
  );

  test.skipIf(skipped !== "")(
    "without job control (started with no shell) Ctrl+Z stops nothing: cairn goes on, the live region drawn again once, the draft kept",
    async () => {
      const { t, server } = await startCairn([reply().text("Still here.")]);
      await ready(t);
      t.type("a draft");
      await t.waitFor(() => t.screen().some((row) => row.includes("› a draft")), "the draft");
      const before = t.output().length;
      t.type("\x1a");
      // The terminal given back and taken again: paste reports off, then on.
      await t.waitFor(
        () => /\x1b\[\?2004l[\s\S]*\x1b\[\?2004h/.test(t.output().slice(before)),
        "the suspend tried",
      );
      await t.waitFor(() => t.screen().some((row) => row.includes(FOOTER)), "the live region drawn again");
      expect(state(t.pty.pid)).not.toBe("T");
      expect(t.hasExited()).toBe(false);
      expect(t.screen().some((row) => row.includes("› a draft"))).toBe(true);
      t.type(" and more\r");
      await t.waitFor((text) => text.includes("Still here."), "the answer");
      expect(JSON.stringify(server.requests[0]!.body)).toContain("a draft and more");
      await ready(t);
      // Drawn again below, not twice: one live region on the screen and in the scrollback.
      expect(count(t.all().join("\n"), FOOTER)).toBe(1);
      expect(count(t.output(), "\x1b[2J")).toBe(0);
    },
  );

  test.skipIf(skipped !== "" || noBash !== "")(
    "in line mode (TERM=dumb) Ctrl+Z is the terminal's own: cairn stops, fg continues it, the next line is read",
    async () => {
      if ("reason" in load) throw new Error(load.reason);
      const server = await startServer([reply().text("Line mode answer.")]);
      const t = openTerminal(load, BASH, ["--norc", "--noprofile", "-i"], {
        cwd: workspace(),
        env: { ...serverEnv(server), PS1: "shell$ ", TERM: "dumb" },
      });
      let pid = 0;
      try {
        await t.waitFor((text) => text.includes("shell$"), "the shell's prompt");
        const command = [process.execPath, CLI, "--model", MODEL].map((arg) => `'${arg}'`).join(" ");
        t.type(`${command}\r`);
        await until(() => childOfOrZero(t.pty.pid) !== 0, "cairn started", t);
        pid = childOfOrZero(t.pty.pid);
        await until(() => state(pid) === "S", "cairn waiting for a line", t);
        t.type("\x1a");
        await t.waitFor((text) => /Stopped/.test(text), "the shell's report of the stopped job");
        expect(state(pid)).toBe("T");
        t.type("fg\r");
        await until(() => state(pid) !== "T", "cairn continued", t);
        t.type("Hello there\r");
        await t.waitFor((text) => text.includes("Line mode answer."), "the answer");
        expect(server.requests).toHaveLength(1);
      } finally {
        await endAll([pid, t.pty.pid], t, server);
      }
    },
  );
});

/** The shell's child, or 0 while it has none. */
/** Ends cairn's and the shell's process groups, the terminal and the model server, whatever the test left running. */
async function endAll(
  groups: number[],
  t: TerminalSession,
  server: { close(): Promise<void> },
): Promise<void> {
  for (const group of groups.filter((id) => id > 0))
    try {
      process.kill(-group, "SIGKILL");
    } catch {}
  t.kill("SIGKILL");
  await server.close();
}

function childOfOrZero(pid: number): number {
  try {
    return childOf(pid) || 0;
  } catch {
    return 0;
  }
}
