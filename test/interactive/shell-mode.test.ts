import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { reply } from "../../src/testing/index.js";
import { CTRL_D, ENTER, ready, skipped, startCairn, userTexts } from "./cairn-terminal.js";

/**
 * `!` shell mode (docs/interactive.md, "Shell mode"): the user's command goes through the Bash
 * tool's permission gate and sandbox; its output is shown and joins the conversation.
 */
describe(`interactive ! shell mode${skipped}`, () => {
  test.skipIf(skipped !== "")(
    "!command runs it, shows its output, and the model gets it as <bash-input>/<bash-stdout> before the next prompt",
    async () => {
      const { t, server } = await startCairn(
        [reply().text("It printed the greeting.")],
        ["--allowedTools", "Bash(echo:*)"],
      );
      await ready(t);
      t.type("!echo hello-from-the-shell");
      await t.waitFor((text) => text.includes("! shell mode"), "the shell mode hint");
      t.type(ENTER);
      await t.waitFor(
        (text) => /! echo hello-from-the-shell\n\s+hello-from-the-shell/.test(text),
        "the command's output",
      );
      expect(server.requests).toHaveLength(0);
      t.type(`What did it print?${ENTER}`);
      await t.waitFor((text) => text.includes("It printed the greeting."), "the answer");
      expect(userTexts(server.requests[0]!.body)).toEqual([
        "<bash-input>echo hello-from-the-shell</bash-input>",
        "<bash-stdout>hello-from-the-shell</bash-stdout><bash-stderr></bash-stderr>",
        "What did it print?",
      ]);
    },
  );

  test.skipIf(skipped !== "")(
    "!command is refused by a deny rule, and asked when the rules leave it open (Enter alone says no)",
    async () => {
      const { t, dir } = await startCairn([], ["--disallowedTools", "Bash(rm:*)"], {
        files: { "keep.txt": "precious\n" },
      });
      await ready(t);
      t.type(`!rm keep.txt${ENTER}`);
      await t.waitFor((text) => text.includes("Not run:"), "the refusal");
      expect(existsSync(join(dir, "keep.txt"))).toBe(true);
      t.type(`!touch made.txt${ENTER}`);
      await t.waitFor((text) => text.includes("Run `touch made.txt`?"), "the question");
      t.type(ENTER);
      await t.waitFor((text) => text.includes("not run: the user said no"), "the no");
      expect(existsSync(join(dir, "made.txt"))).toBe(false);
    },
  );

  test.skipIf(skipped !== "")(
    "!command's record reaches the transcript at once: leaving right after it, --continue shows it and the model gets it",
    async () => {
      const { t, server, dir } = await startCairn(
        [reply().text("Seen it.")],
        ["--allowedTools", "Bash(echo:*)"],
      );
      await ready(t);
      t.type(`!echo kept-in-the-transcript${ENTER}`);
      await t.waitFor((text) => /\n\s+kept-in-the-transcript/.test(text), "the command's output");
      await ready(t);
      t.type(CTRL_D);
      expect((await t.exited).exitCode).toBe(0);

      const again = await startCairn([], ["--continue"], { dir, server });
      await ready(again.t);
      await again.t.waitFor((text) => text.includes("the conversation so far"), "the history drawn");
      expect(again.t.all().join("\n")).toMatch(/! echo kept-in-the-transcript\n\s+kept-in-the-transcript/);
      again.t.type(`What did it print?${ENTER}`);
      await again.t.waitFor((text) => text.includes("Seen it."), "the answer");
      expect(userTexts(server.requests[0]!.body)).toEqual([
        "<bash-input>echo kept-in-the-transcript</bash-input>",
        "<bash-stdout>kept-in-the-transcript</bash-stdout><bash-stderr></bash-stderr>",
        "What did it print?",
      ]);
    },
  );
});
