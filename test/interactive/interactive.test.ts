import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { reply, type ScriptedServer, type StepInput } from "../../src/testing/index.js";
import { CLI, MODEL, serverEnv, startServer, workspace } from "../conformance/pm/helpers.js";
import { userTexts } from "../helpers/user-texts.js";
import { loadPty, openTerminal, type TerminalSession } from "./pty-terminal.js";

/**
 * The interactive mode end to end (docs/interactive.md): the built CLI on a pseudo-terminal, read
 * by a virtual terminal, against the scripted model server. Every wait is on the screen's contents.
 */
const load = loadPty();
const skipped = "reason" in load ? ` (skipped: no pseudo-terminal can be created here: ${load.reason})` : "";
const opened: TerminalSession[] = [];

afterEach(() => {
  for (const terminal of opened.splice(0)) terminal.kill("SIGKILL");
});

const ALT_ENTER = "\x1b\r";
const CTRL_C = "\x03";
const FOOTER = "(shift+tab)";

/** `cairn` (no -p) on a terminal, in a new workspace, against a scripted model. */
async function startCairn(
  steps: StepInput[],
  args: string[] = [],
  options: {
    env?: Record<string, string>;
    files?: Record<string, string>;
    shell?: boolean;
    cols?: number;
  } = {},
): Promise<{ t: TerminalSession; server: ScriptedServer; dir: string }> {
  if ("reason" in load) throw new Error(load.reason);
  const server = await startServer(steps);
  const dir = workspace(options.files);
  const argv = [CLI, "--model", MODEL, ...args];
  const quoted = [process.execPath, ...argv].map((arg) => `'${arg.replace(/'/g, "'\\''")}'`).join(" ");
  const t = options.shell
    ? openTerminal(load, "/bin/sh", ["-c", `${quoted}; echo "exit code $?"; stty -a; echo "stty done"`], {
        cwd: dir,
        env: { ...serverEnv(server), ...options.env },
        ...(options.cols ? { cols: options.cols } : {}),
      })
    : openTerminal(load, process.execPath, argv, {
        cwd: dir,
        env: { ...serverEnv(server), ...options.env },
        ...(options.cols ? { cols: options.cols } : {}),
      });
  opened.push(t);
  return { t, server, dir };
}

const ready = (t: TerminalSession) => t.waitFor((text) => text.includes(FOOTER), "the input box and footer");

describe(`interactive mode${skipped}`, () => {
  test.skipIf(skipped !== "")(
    'PM-2 `cairn "prompt"` at a terminal is the interactive mode: the prompt is sent, the answer streams in, the next prompt is typed',
    async () => {
      const { t, server } = await startCairn(
        [
          reply().text("The first answer, streamed in small pieces: 漢字, cafe\u0301 and 🎉 included."),
          reply().text("The second answer."),
        ],
        // Text only string-width measures (a joined emoji): the first prompt waits for it.
        ["What is here? 👩‍💻"],
      );
      await t.waitFor((text) => text.includes("🎉 included."), "the first answer");
      expect(t.all().join("\n")).toContain("› What is here? 👩‍💻");
      expect(t.all().join("\n")).toContain("cafe\u0301 and");
      await ready(t);
      t.type("And now?");
      await t.waitFor((text) => text.includes("› And now?"), "the typed text echoed");
      t.type("\r");
      await t.waitFor((text) => text.includes("The second answer."), "the second answer");
      expect(userTexts(server.requests[1]!.body)).toEqual(["What is here? 👩‍💻", "And now?"]);
      // ↑ brings the last prompt back into the input.
      t.type("\x1b[A");
      await t.waitFor(() => t.screen().some((row) => row === "› And now?"), "the prompt from history");
    },
  );

  test.skipIf(skipped !== "")(
    "a multi-line input (Alt+Enter, Ctrl+J, \\ then Enter) is sent whole, as one prompt",
    async () => {
      const { t, server } = await startCairn([reply().text("Got four lines.")]);
      await ready(t);
      t.type("line one");
      t.type(ALT_ENTER);
      t.type("line two");
      t.type("\n"); // Ctrl+J
      t.type("line three\\");
      t.type("\r"); // backslash, Enter
      t.type("line four");
      await t.waitFor((text) => text.includes("line four"), "the fourth line typed");
      expect(server.requests).toHaveLength(0);
      t.type("\r");
      await t.waitFor((text) => text.includes("Got four lines."), "the answer");
      expect(userTexts(server.requests[0]!.body)).toEqual(["line one\nline two\nline three\nline four"]);
    },
  );

  test.skipIf(skipped !== "")(
    "a bracketed paste with newlines does not submit; Enter sends it whole",
    async () => {
      const { t, server } = await startCairn([reply().text("Pasted text received.")]);
      await ready(t);
      t.type("\x1b[200~first pasted line\rsecond pasted line\nthird\x1b[201~");
      await t.waitFor((text) => text.includes("third"), "the pasted text in the input");
      // Typed after the paste, so it is on screen only once everything before it was handled.
      t.type(" end");
      await t.waitFor((text) => text.includes("third end"), "the text typed after the paste");
      expect(server.requests).toHaveLength(0);
      t.type("\r");
      await t.waitFor((text) => text.includes("Pasted text received."), "the answer");
      expect(userTexts(server.requests[0]!.body)).toEqual([
        "first pasted line\nsecond pasted line\nthird end",
      ]);
    },
  );

  test.skipIf(skipped !== "")(
    "Esc interrupts a running tool turn; a prompt sent while it runs waits for it, then runs",
    async () => {
      const { t, server } = await startCairn(
        [reply().tool("Bash", { command: "sleep 30" }), reply().text("The queued prompt's answer.")],
        ["--allowedTools", "Bash(sleep:*)"],
      );
      await ready(t);
      t.type("Sleep long\r");
      await t.waitFor((text) => text.includes("● `sleep 30`"), "the running command");
      t.type("Queued one\r");
      await t.waitFor((text) => text.includes("queued › Queued one"), "the queued prompt");
      expect(server.requests).toHaveLength(1);
      t.type("\x1b");
      await t.waitFor((text) => text.includes("Interrupted."), "the interruption");
      await t.waitFor((text) => text.includes("The queued prompt's answer."), "the queued prompt's answer");
      expect(t.all().join("\n")).toMatch(
        /✗ `sleep 30`[\s\S]*Interrupted\.[\s\S]*› Queued one[\s\S]*The queued prompt's answer\./,
      );
      expect(userTexts(server.requests[1]!.body).at(-1)).toBe("Queued one");
    },
  );

  test.skipIf(skipped !== "")(
    "a prompt sent while a tool runs joins that turn: the model gets it with the tool's result, and it shows where it joined",
    async () => {
      const { t, server, dir } = await startCairn(
        [reply().tool("Bash", { command: "sh wait.sh" }), reply().text("Done, tests included.")],
        ["--allowedTools", "Bash(sh:*)"],
        // The command runs until the test lets it end: the prompt is typed while it surely runs.
        { files: { "wait.sh": "while [ ! -f go ]; do sleep 0.05; done; echo built\n" } },
      );
      await ready(t);
      t.type("Build it\r");
      await t.waitFor((text) => text.includes("● `sh wait.sh`"), "the running command");
      t.type("Also run the tests\r");
      await t.waitFor((text) => text.includes("queued › Also run the tests"), "the prompt, queued");
      writeFileSync(join(dir, "go"), "");
      await t.waitFor((text) => text.includes("Done, tests included."), "the answer");
      // One turn: two model calls in all, the second with the command's output and the new prompt.
      expect(server.requests).toHaveLength(2);
      expect(userTexts(server.requests[1]!.body).at(-1)).toBe("Also run the tests");
      expect(JSON.stringify(server.requests[1]!.body)).toMatch(/built[\s\S]*Also run the tests/);
      expect(t.all().join("\n")).toMatch(
        /✓ `sh wait.sh`[\s\S]*› Also run the tests[\s\S]*Done, tests included\./,
      );
    },
  );

  test.skipIf(skipped !== "")(
    "a permission question shows the diff; Enter alone answers nothing, y runs the call",
    async () => {
      const { t, dir } = await startCairn([
        reply().tool("Write", { file_path: "notes.txt", content: "first line\nsecond line\n" }),
        reply().text("Wrote notes.txt."),
      ]);
      await ready(t);
      t.type("Write the notes\r");
      await t.waitFor((text) => text.includes("Allow Write?"), "the permission question");
      expect(t.all().join("\n")).toMatch(/\+ first line\n\s*\+ second line/);
      t.type("\r");
      t.type("y");
      await t.waitFor((text) => text.includes("Wrote notes.txt."), "the answer after the write");
      expect(t.all().join("\n")).toContain("Write: allowed once");
      expect(readFileSync(join(dir, "notes.txt"), "utf8")).toBe("first line\nsecond line\n");
    },
  );

  test.skipIf(skipped !== "")(
    "a permission question answered n denies the call: nothing is written",
    async () => {
      const { t, dir, server } = await startCairn([
        reply().tool("Write", { file_path: "notes.txt", content: "never\n" }),
        reply().text("Understood, not writing."),
      ]);
      await ready(t);
      t.type("Write the notes\r");
      await t.waitFor((text) => text.includes("Allow Write?"), "the permission question");
      t.type("\r"); // Enter first: it must not allow
      t.type("n");
      await t.waitFor((text) => text.includes("Understood, not writing."), "the answer after the denial");
      expect(t.all().join("\n")).toContain("Write: denied");
      expect(existsSync(join(dir, "notes.txt"))).toBe(false);
      expect(JSON.stringify(server.requests[1]!.body)).toContain("The user rejected this tool call.");
    },
  );

  test.skipIf(skipped !== "")(
    "Ctrl+C clears the input, then exits on a second press, with the terminal restored (cooked mode, cursor, paste off)",
    async () => {
      const { t } = await startCairn([], [], { shell: true });
      await ready(t);
      t.type("a draft");
      await t.waitFor(() => t.screen().includes("› a draft"), "the draft");
      t.type(CTRL_C);
      await t.waitFor(() => t.screen().includes("› "), "the input cleared");
      t.type(CTRL_C);
      await t.waitFor((text) => text.includes("Press Ctrl+C again to exit"), "the hint");
      t.type(CTRL_C);
      // stty's report may come in several writes: its end is the line after it.
      await t.waitFor(
        (text) => /exit code 0[\s\S]*speed[\s\S]*stty done/.test(text),
        "the exit and stty's report",
      );
      const stty = t.all().join("\n");
      expect(stty).toMatch(/(^|\s)icanon(\s|$)/m);
      expect(stty).toMatch(/(^|\s)echo(\s|$)/m);
      expect(stty).toMatch(/(^|\s)isig(\s|$)/m);
      // The live region is erased at exit, and the modes turned on are off again.
      expect(stty).not.toContain(FOOTER);
      expect(t.cursorHidden()).toBe(false);
      const output = t.output();
      expect(output.lastIndexOf("\x1b[?2004l")).toBeGreaterThan(output.lastIndexOf("\x1b[?2004h"));
    },
  );

  test.skipIf(skipped !== "")(
    "SIGTERM ends the session with exit 143 and the terminal restored",
    async () => {
      const { t } = await startCairn([]);
      await ready(t);
      t.kill("SIGTERM");
      expect((await t.exited).exitCode).toBe(143);
      const output = t.output();
      expect(output.lastIndexOf("\x1b[?2004l")).toBeGreaterThan(output.lastIndexOf("\x1b[?2004h"));
      expect(output.lastIndexOf("\x1b[?25h")).toBeGreaterThan(output.lastIndexOf("\x1b[?25l"));
    },
  );

  test.skipIf(skipped !== "")(
    "SIGHUP ends the session with exit 129 and the terminal restored (paste off, cursor shown)",
    async () => {
      const { t } = await startCairn([]);
      await ready(t);
      t.kill("SIGHUP");
      expect((await t.exited).exitCode).toBe(129);
      const output = t.output();
      expect(output.lastIndexOf("\x1b[?2004l")).toBeGreaterThan(output.lastIndexOf("\x1b[?2004h"));
      expect(output.lastIndexOf("\x1b[?25h")).toBeGreaterThan(output.lastIndexOf("\x1b[?25l"));
    },
  );

  test.skipIf(skipped !== "")(
    "resizes never clear the screen or the scrollback; a width change redraws the live region in place",
    async () => {
      const answer = Array.from(
        { length: 30 },
        (_, i) => `Row ${i + 1} of a long answer, wide enough to wrap when narrowed.`,
      ).join("\n");
      const { t } = await startCairn([reply().text(answer), reply().text("After the resize.")]);
      await ready(t);
      t.type("Tell me a lot\r");
      await t.waitFor((text) => text.includes("Row 30 of a long answer"), "the long answer");
      await ready(t);
      t.resize(60, 24);
      await t.waitFor(() => t.screen().includes("─".repeat(59)), "the live region drawn at 60 columns");
      t.resize(60, 30); // height only
      t.resize(100, 30);
      await t.waitFor(() => t.screen().includes("─".repeat(99)), "the live region drawn at 100 columns");
      t.type("More\r");
      await t.waitFor((text) => text.includes("After the resize."), "an answer after the resizes");
      await ready(t);
      const all = t.all();
      // The live region is on the screen once: nothing of it was left in the scrollback.
      expect(all.filter((row) => row.includes(FOOTER))).toHaveLength(1);
      expect(all.filter((row) => row.includes("Row 30 of a long answer"))).toHaveLength(1);
      const output = t.output();
      expect(output.split("\x1b[2J")).toHaveLength(1);
      expect(output.split("\x1b[3J")).toHaveLength(1);
    },
  );

  test.skipIf(skipped !== "")(
    "Shift+Tab cycles the permission mode: default, acceptEdits, plan",
    async () => {
      const { t } = await startCairn([]);
      await t.waitFor((text) => text.includes(`default ${FOOTER}`), "the default mode");
      t.type("\x1b[Z");
      await t.waitFor((text) => text.includes(`acceptEdits ${FOOTER}`), "acceptEdits");
      t.type("\x1b[Z");
      await t.waitFor((text) => text.includes(`plan ${FOOTER}`), "plan");
      t.type("\x1b[Z");
      await t.waitFor((text) => text.includes(`default ${FOOTER}`), "default again");
    },
  );

  test.skipIf(skipped !== "")(
    "TERM=dumb is line mode: plain lines in and out, no escape sequences",
    async () => {
      const { t } = await startCairn([reply().text("A plain answer.")], [], { env: { TERM: "dumb" } });
      t.type("Hello in line mode\r");
      await t.waitFor((text) => text.includes("A plain answer."), "the answer");
      await t.waitFor((text) => text.includes("Done."), "the end of the turn");
      t.type("\x04");
      expect((await t.exited).exitCode).toBe(0);
      expect(t.output()).not.toContain("\x1b");
      expect(t.all().join("\n")).toContain("You: Hello in line mode");
    },
  );
});
