import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { CLI, MODEL, serverEnv, startServer, workspace } from "../conformance/pm/helpers.js";
import { signalPid } from "../helpers/process.js";
import { FOOTER, load, skipped } from "./cairn-terminal.js";
import { openTerminal } from "./pty-terminal.js";

/**
 * A crash restores the terminal (docs/interactive.md, "History": raw mode, paste, focus reports, the
 * cursor and the title are undone whatever ends the process). cairn itself has no way for a user to
 * throw an uncaught exception on purpose, and no debug hook for one: the crash comes, as it can for a
 * user, from code Node loads into cairn's process — a `--require` preload (what `NODE_OPTIONS` adds,
 * as APM agents do) whose signal handler throws. The shell around it reports the exit code and the
 * terminal's settings after it.
 */
const SH = "/bin/sh";
const noShell = existsSync(SH) ? "" : " (skipped: /bin/sh is not installed)";

const PRELOAD = `require("node:fs").writeFileSync("cairn.pid", String(process.pid));
process.on("SIGUSR2", () => { throw new Error("a preloaded module failed"); });
`;

describe(`interactive mode: a crash${skipped}${noShell}`, () => {
  test.skipIf(skipped !== "" || noShell !== "")(
    "an uncaught exception in cairn's process: one line on stderr, exit 1, the terminal restored (cooked mode, cursor, paste and focus reports off, live region erased)",
    async () => {
      if ("reason" in load) throw new Error(load.reason);
      const server = await startServer([]);
      const dir = workspace();
      writeFileSync(join(dir, "preload.cjs"), PRELOAD);
      const argv = [process.execPath, "--require", join(dir, "preload.cjs"), CLI, "--model", MODEL];
      const quoted = argv.map((arg) => `'${arg}'`).join(" ");
      const t = openTerminal(load, SH, ["-c", `${quoted}; echo "exit code $?"; stty -a; echo "stty done"`], {
        cwd: dir,
        env: serverEnv(server),
      });
      try {
        await t.waitFor((text) => text.includes(FOOTER), "the input box and footer");
        t.type("a draft");
        await t.waitFor(() => t.screen().some((row) => row.includes("› a draft")), "the draft");
        signalPid(Number(readFileSync(join(dir, "cairn.pid"), "utf8")), "SIGUSR2");
        // stty's report may come in several writes: its end is the line after it.
        await t.waitFor(
          (text) => /exit code \d+[\s\S]*speed[\s\S]*stty done/.test(text),
          "the exit and stty's report",
        );
        const all = t.all().join("\n");
        // The live region erased first: the error line and the shell's output on rows of their own,
        // not in the input box or over the footer.
        const rows = t.all().map((row) => row.trimEnd());
        expect(rows).toContain("cairn: a preloaded module failed");
        expect(rows).toContain("exit code 1");
        expect(all).not.toContain(FOOTER);
        expect(all).not.toMatch(/^\s+at /m); // no stack trace
        expect(all).toMatch(/(^|\s)icanon(\s|$)/m);
        expect(all).toMatch(/(^|\s)echo(\s|$)/m);
        expect(t.cursorHidden()).toBe(false);
        const output = t.output();
        expect(output.lastIndexOf("\x1b[?2004l")).toBeGreaterThan(output.lastIndexOf("\x1b[?2004h"));
        expect(output.lastIndexOf("\x1b[?1004l")).toBeGreaterThan(output.lastIndexOf("\x1b[?1004h"));
        expect(output.lastIndexOf("\x1b[23;0t")).toBeGreaterThan(output.lastIndexOf("\x1b[22;0t"));
      } finally {
        t.kill("SIGKILL");
        await server.close();
      }
    },
  );
});
