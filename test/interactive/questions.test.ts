import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { reply, type ScriptedServer, type StepInput } from "../../src/testing/index.js";
import { CLI, MODEL, serverEnv, startServer, workspace } from "../conformance/pm/helpers.js";
import { CHECKS_QUESTION, LIBRARY_QUESTION } from "../helpers/questions.js";
import { loadPty, openTerminal, type TerminalSession } from "./pty-terminal.js";

/**
 * The interactive mode's question picker (AskUserQuestion) and plan approval (ExitPlanMode), end to
 * end: the built CLI on a pseudo-terminal against the scripted model server (docs/interactive.md).
 * Every wait is on the screen's contents.
 */
const load = loadPty();
const skipped = "reason" in load ? ` (skipped: no pseudo-terminal can be created here: ${load.reason})` : "";
const opened: TerminalSession[] = [];

afterEach(() => {
  for (const terminal of opened.splice(0)) terminal.kill("SIGKILL");
});

const DOWN = "\x1b[B";
const ESC = "\x1b";

async function startCairn(
  steps: StepInput[],
  args: string[] = [],
  env: Record<string, string> = {},
): Promise<{ t: TerminalSession; server: ScriptedServer; dir: string }> {
  if ("reason" in load) throw new Error(load.reason);
  const server = await startServer(steps);
  const dir = workspace();
  const t = openTerminal(load, process.execPath, [CLI, "--model", MODEL, ...args], {
    cwd: dir,
    env: { ...serverEnv(server), ...env },
  });
  opened.push(t);
  // Line mode (TERM=dumb) has no footer: it reads the first line as soon as it runs.
  if (env.TERM !== "dumb")
    await t.waitFor((text) => text.includes("(shift+tab)"), "the input box and footer");
  return { t, server, dir };
}

const QUESTIONS = [LIBRARY_QUESTION, CHECKS_QUESTION];

const sent = (server: ScriptedServer, index: number) => JSON.stringify(server.requests[index]?.body);

describe(`interactive mode: questions${skipped}`, () => {
  test.skipIf(skipped !== "")(
    "AskUserQuestion: a number picks, arrows and space tick several, Enter confirms; the model reads the answers",
    async () => {
      const { t, server } = await startCairn([
        reply().tool("AskUserQuestion", { questions: QUESTIONS }),
        reply().text("Answers received."),
      ]);
      t.type("Set it up\r");
      await t.waitFor((text) => text.includes("[Library] Which library should we use? (1/2)"), "question 1");
      expect(t.all().join("\n")).toContain("2. luxon — Time zones built in");
      t.type("2");
      await t.waitFor((text) => text.includes("[Checks] Which checks should run? (2/2)"), "question 2");
      t.type(DOWN); // highlights lint
      t.type(" "); // ticks it
      t.type("3"); // ticks tests
      await t.waitFor((text) => text.includes("[x] tests"), "two options ticked");
      expect(t.screen().join("\n")).toContain("[x] lint");
      expect(server.requests).toHaveLength(1);
      t.type("\r");
      await t.waitFor((text) => text.includes("Answers received."), "the answer after the questions");
      expect(sent(server, 1)).toContain(
        'User has answered your questions: \\"Which library should we use?\\"=\\"luxon\\", \\"Which checks should run?\\"=\\"lint, tests\\".',
      );
      expect(t.all().join("\n")).toContain("Which library should we use? → luxon");
    },
  );

  test.skipIf(skipped !== "")("AskUserQuestion: Esc declines, and the model is told", async () => {
    const { t, server } = await startCairn([
      reply().tool("AskUserQuestion", { questions: QUESTIONS.slice(0, 1) }),
      reply().text("I will choose myself."),
    ]);
    t.type("Set it up\r");
    await t.waitFor((text) => text.includes("[Library] Which library"), "the question");
    t.type(ESC);
    await t.waitFor((text) => text.includes("I will choose myself."), "the answer after declining");
    expect(sent(server, 1)).toContain("The user declined to answer the questions.");
    expect(t.all().join("\n")).toContain("AskUserQuestion: declined");
  });

  test.skipIf(skipped !== "")(
    "ExitPlanMode in plan mode: approving with auto-accept switches the mode and the edit runs unasked",
    async () => {
      const { t, dir } = await startCairn(
        [
          reply().tool("ExitPlanMode", { plan: "1. Write notes.txt\n2. Stop" }),
          reply().tool("Write", { file_path: "notes.txt", content: "planned\n" }),
          reply().text("Wrote it."),
        ],
        ["--permission-mode", "plan"],
      );
      t.type("Plan it\r");
      await t.waitFor((text) => text.includes("Leave plan mode and start?"), "the plan approval");
      expect(t.all().join("\n")).toContain("1. Write notes.txt");
      t.type("1");
      await t.waitFor((text) => text.includes("Wrote it."), "the answer after the write");
      expect(t.screen().join("\n")).toContain("acceptEdits (shift+tab)");
      expect(t.all().join("\n")).not.toContain("Allow Write?");
      expect(existsSync(join(dir, "notes.txt"))).toBe(true);
    },
  );

  test.skipIf(skipped !== "")(
    "ExitPlanMode: 'No, keep planning' takes a note the model reads; the mode stays plan",
    async () => {
      const { t, server } = await startCairn(
        [reply().tool("ExitPlanMode", { plan: "1. Write notes.txt" }), reply().text("Revising the plan.")],
        ["--permission-mode", "plan"],
      );
      t.type("Plan it\r");
      await t.waitFor((text) => text.includes("Leave plan mode and start?"), "the plan approval");
      t.type("3");
      await t.waitFor((text) => text.includes("What should change in the plan?"), "the note prompt");
      t.type("cover the docs too\r");
      await t.waitFor((text) => text.includes("Revising the plan."), "the answer after the note");
      expect(sent(server, 1)).toContain("The user wants to keep planning and said: cover the docs too");
      expect(t.screen().join("\n")).toContain("plan (shift+tab)");
    },
  );

  test.skipIf(skipped !== "")(
    "line mode (TERM=dumb): questions are answered with numbers, the plan with 1-3 and a note",
    async () => {
      const { t, server } = await startCairn(
        [
          reply().tool("AskUserQuestion", { questions: QUESTIONS }),
          reply().tool("ExitPlanMode", { plan: "1. Write notes.txt" }),
          reply().text("Revising the plan."),
        ],
        ["--permission-mode", "plan"],
        { TERM: "dumb" },
      );
      t.type("Set it up\r");
      await t.waitFor(
        (text) => text.includes("Question (1/2) [Library]: Which library should we use?"),
        "question 1",
      );
      expect(t.all().join("\n")).toContain("2. luxon — Time zones built in");
      t.type("2\r");
      await t.waitFor((text) => text.includes("Question (2/2) [Checks]"), "question 2");
      t.type("4\r");
      await t.waitFor((text) => text.includes("Answer with the numbers of your choices"), "the hint again");
      t.type("3,1\r");
      await t.waitFor((text) => text.includes("Leave plan mode? 1 = yes"), "the plan approval");
      expect(sent(server, 1)).toContain(
        'User has answered your questions: \\"Which library should we use?\\"=\\"luxon\\", \\"Which checks should run?\\"=\\"lint, tests\\".',
      );
      t.type("3\r");
      await t.waitFor((text) => text.includes("What should change in the plan?"), "the note prompt");
      t.type("cover the docs too\r");
      await t.waitFor((text) => text.includes("Revising the plan."), "the answer after the note");
      expect(sent(server, 2)).toContain("The user wants to keep planning and said: cover the docs too");
      expect(t.output()).not.toContain("\x1b");
    },
  );
});
