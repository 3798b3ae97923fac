import { describe, expect, test } from "vitest";
import { reply } from "../../src/testing/index.js";
import {
  DOWN,
  ENTER,
  ESC,
  FOOTER,
  inputRows,
  ready,
  skipped,
  startCairn,
  TAB,
  userTexts,
} from "./cairn-terminal.js";

/**
 * `/` commands in the interactive mode (docs/interactive.md, "Commands"): the completion popup, the
 * built-ins acting through the session controller, and the project's own commands sent as prompts.
 */
const screenText = (t: { screen(): string[] }) => t.screen().join("\n");

describe(`interactive / commands${skipped}`, () => {
  test.skipIf(skipped !== "")(
    "typing / opens a popup of the built-ins and the project's commands; Tab completes; Enter completes and sends",
    async () => {
      const { t, server } = await startCairn([reply().text("Hello, Ada!")], [], {
        files: {
          ".claude/commands/greet.md":
            "---\ndescription: Greets someone warmly\n---\nSay hello to $ARGUMENTS.\n",
        },
      });
      await ready(t);
      t.type("/");
      await t.waitFor(() => screenText(t).includes("/help"), "the popup");
      for (const name of ["/help", "/clear", "/compact", "/model", "/resume", "/rewind", "/status"])
        expect(screenText(t)).toContain(name);
      t.type("g");
      await t.waitFor(
        () => screenText(t).includes("/greet") && screenText(t).includes("Greets someone warmly"),
        "the project's command in the popup",
      );
      expect(screenText(t)).not.toContain("/help");
      t.type(TAB);
      await t.waitFor(() => inputRows(t)[0] === "› /greet", "the command completed");
      t.type(`Ada${ENTER}`);
      await t.waitFor((text) => text.includes("Hello, Ada!"), "the answer");
      expect(userTexts(server.requests[0]!.body).join("\n")).toContain("Say hello to Ada.");

      // Enter on a partly typed name completes it to the highlighted command and runs it.
      t.type("/stat");
      await t.waitFor(() => screenText(t).includes("Session, model, mode"), "the popup for /stat");
      t.type(ENTER);
      await t.waitFor((text) => /Session: [0-9a-f-]{36}/.test(text), "the status");
      expect(t.all().join("\n")).toContain("› /status");
      expect(t.all().join("\n")).toContain("Permission mode: default");

      t.type(`/nosuchthing${ENTER}`);
      await t.waitFor((text) => text.includes("Unknown command /nosuchthing"), "the unknown command said");
      expect(server.requests).toHaveLength(1);
    },
  );

  test.skipIf(skipped !== "")(
    "/model and /plan change the next turn through the session; /copy puts the last answer on the clipboard by OSC 52",
    async () => {
      const answer = "Here it is:\n\n```sh\nnpm run build\n```\n";
      const { t, server } = await startCairn([reply().text(answer), reply().text("Planned.")]);
      await ready(t);
      t.type(`Build it${ENTER}`);
      await t.waitFor((text) => text.includes("npm run build"), "the answer");
      await ready(t);
      t.type(`/copy${ENTER}`);
      await t.waitFor((text) => text.includes("Copy what?"), "the choice of what to copy");
      t.type(DOWN);
      t.type(ENTER);
      await t.waitFor((text) => text.includes("Copied 1 lines"), "the copy");
      expect(t.output()).toContain(`\x1b]52;c;${Buffer.from("npm run build").toString("base64")}\x07`);

      t.type(`/model claude-haiku-5-5${ENTER}`);
      await t.waitFor((text) => text.includes("Model: claude-haiku-5-5"), "the model changed");
      t.type(`/plan${ENTER}`);
      await t.waitFor(() => screenText(t).includes(`plan ${FOOTER}`), "plan mode in the footer");
      t.type(`What next?${ENTER}`);
      await t.waitFor((text) => text.includes("Planned."), "the second answer");
      const body = server.requests[1]!.body as { model: string };
      expect(body.model).toBe("claude-haiku-5-5");
    },
  );

  test.skipIf(skipped !== "")(
    "/clear starts a new session and keeps the scrollback; /resume lists the sessions and continues the one picked",
    async () => {
      const { t, server } = await startCairn([
        reply().text("First session's answer."),
        reply().text("Second session's answer."),
        reply().text("Back in the first."),
      ]);
      await ready(t);
      t.type(`Remember the word tangerine${ENTER}`);
      await t.waitFor((text) => text.includes("First session's answer."), "the first answer");
      await ready(t);
      t.type(`/clear${ENTER}`);
      await t.waitFor((text) => text.includes("Started a new session."), "the new session");
      t.type(`A fresh question${ENTER}`);
      await t.waitFor((text) => text.includes("Second session's answer."), "the second answer");
      // A new session: the model was sent only the new prompt; the screen kept the old conversation.
      expect(userTexts(server.requests[1]!.body)).toEqual(["A fresh question"]);
      expect(t.all().join("\n")).toContain("First session's answer.");
      expect(t.output()).not.toContain("\x1b[3J");
      await ready(t);
      t.type(`/resume${ENTER}`);
      await t.waitFor((text) => text.includes("Resume which session?"), "the session list");
      expect(screenText(t)).toContain("Remember the word tangerine");
      expect(screenText(t)).not.toContain("› A fresh question  ");
      t.type(ENTER);
      await t.waitFor((text) => text.includes("Resumed session"), "the session resumed");
      // Its conversation is drawn again, below: the old answer is in the scrollback twice now.
      expect(t.all().join("\n").split("First session's answer.").length - 1).toBe(2);
      t.type(`What was the word?${ENTER}`);
      await t.waitFor((text) => text.includes("Back in the first."), "the answer in the resumed session");
      expect(userTexts(server.requests[2]!.body)).toEqual([
        "Remember the word tangerine",
        "What was the word?",
      ]);
      t.type(ESC);
      t.type(`/exit${ENTER}`);
      expect((await t.exited).exitCode).toBe(0);
    },
  );
});
