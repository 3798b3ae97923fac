import { describe, expect, test } from "vitest";
import { reply } from "../../src/testing/index.js";
import { claudeHooks, loggedInputs, run, scriptFiles } from "../hooks/helpers.js";
import { ENTER, ready, skipped, startCairn, userTexts } from "./cairn-terminal.js";

/**
 * `/clear` (docs/interactive.md, "Commands") as the reference does it: the old session ends with
 * SessionEnd `reason: "clear"`, a new one (a new id) starts with SessionStart `source: "clear"`, and
 * the terminal's scrollback stays, with a separator.
 */
describe(`interactive /clear${skipped}`, () => {
  test.skipIf(skipped !== "")(
    "/clear ends the session with SessionEnd reason clear, the next one starts with SessionStart source clear under a new id; the scrollback stays",
    async () => {
      const { t, server, dir } = await startCairn(
        [reply().text("First answer."), reply().text("Second answer.")],
        ["--trust"],
        {
          files: {
            ...scriptFiles("log"),
            ".claude/settings.json": JSON.stringify({
              hooks: claudeHooks({ SessionStart: run("log"), SessionEnd: run("log") }),
            }),
          },
        },
      );
      await ready(t);
      t.type(`Remember tangerine${ENTER}`);
      await t.waitFor((text) => text.includes("First answer."), "the first answer");
      await ready(t);
      t.type(`/clear${ENTER}`);
      await t.waitFor((text) => text.includes("Started a new session."), "the separator");
      t.type(`A fresh question${ENTER}`);
      await t.waitFor((text) => text.includes("Second answer."), "the second answer");
      expect(userTexts(server.requests[1]!.body)).toEqual(["A fresh question"]);
      expect(t.all().join("\n")).toContain("First answer.");
      const inputs = loggedInputs(dir).map((input) => ({
        event: input.hook_event_name,
        why: input.source ?? input.reason,
        session: input.session_id,
      }));
      expect(inputs.map(({ event, why }) => `${event} ${why}`)).toEqual([
        "SessionStart startup",
        "SessionEnd clear",
        "SessionStart clear",
      ]);
      expect(inputs[0]!.session).toBe(inputs[1]!.session);
      expect(inputs[2]!.session).not.toBe(inputs[0]!.session);
    },
  );
});
