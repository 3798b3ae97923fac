import { describe, expect, test } from "vitest";
import { reply } from "../../src/testing/index.js";
import { tempDir } from "../helpers/temp.js";
import {
  CTRL_D,
  CTRL_R,
  ENTER,
  ESC,
  inputRows,
  ready,
  skipped,
  startCairn,
  UP,
  userTexts,
} from "./cairn-terminal.js";

/**
 * The interactive mode's input (docs/interactive.md, "Keys"): the built CLI on a pseudo-terminal
 * against the scripted model server, each behaviour asserted on the screen and on what the model
 * was sent.
 */
const paste = (text: string) => `\x1b[200~${text}\x1b[201~`;

describe(`interactive input${skipped}`, () => {
  test.skipIf(skipped !== "")(
    "a long paste shows as [Pasted N lines] in the input; the full text is what is sent; Backspace removes it whole",
    async () => {
      const { t, server } = await startCairn([reply().text("Read all fifty lines.")]);
      await ready(t);
      const long = Array.from({ length: 50 }, (_, i) => `pasted row ${i + 1}`).join("\n");
      t.type("first ");
      t.type(paste(long));
      await t.waitFor(() => inputRows(t).join("\n").includes("[Pasted 50 lines]"), "the placeholder");
      expect(t.all().join("\n")).not.toContain("pasted row 30");
      // One Backspace takes the whole placeholder away; the paste again, then more typing.
      t.type("\x7f");
      await t.waitFor(() => inputRows(t).join("\n") === "› first", "the placeholder removed");
      t.type(paste(long));
      t.type(" and after");
      await t.waitFor(
        () => inputRows(t).join("\n").includes("first [Pasted 50 lines] and after"),
        "the text typed after the paste",
      );
      t.type(ENTER);
      await t.waitFor((text) => text.includes("Read all fifty lines."), "the answer");
      expect(userTexts(server.requests[0]!.body)).toEqual([`first ${long} and after`]);
      // The scrollback shows the prompt as it was typed, not fifty rows of paste.
      expect(t.all().join("\n")).toContain("› first [Pasted 50 lines] and after");
      expect(t.all().join("\n")).not.toContain("pasted row 30");
    },
  );

  test.skipIf(skipped !== "")(
    "the prompt history is kept per workspace across runs: ↑ brings back the last run's prompts, Ctrl+R searches them",
    async () => {
      const home = tempDir("cairn-home-");
      const env = { CAIRN_HOME: home };
      const first = await startCairn(
        [reply().text("One."), reply().text("Two."), reply().text("Three."), reply().text("Four.")],
        [],
        { env },
      );
      await ready(first.t);
      first.t.type(`fix the build${ENTER}`);
      await first.t.waitFor((text) => text.includes("One."), "the first answer");
      first.t.type(`write the release notes${ENTER}`);
      await first.t.waitFor((text) => text.includes("Two."), "the second answer");
      first.t.type(CTRL_D);
      expect((await first.t.exited).exitCode).toBe(0);

      const { t, server } = await startCairn([], [], { env, dir: first.dir, server: first.server });
      await ready(t);
      t.type(UP);
      await t.waitFor(() => inputRows(t).join("\n") === "› write the release notes", "the newest prompt");
      t.type(UP);
      await t.waitFor(() => inputRows(t).join("\n") === "› fix the build", "the one before");
      // Ctrl+R: the newest prompt containing what is typed; Esc gives the search up.
      t.type("\x15"); // Ctrl+U: an empty input
      t.type(CTRL_R);
      t.type("RELEASE");
      await t.waitFor(() => inputRows(t).join("\n") === "› write the release notes", "the search's match");
      expect(t.screen().join("\n")).toContain("reverse search: RELEASE");
      t.type(ESC);
      await t.waitFor(() => inputRows(t).join("\n") === "›", "the search given up");
      t.type(CTRL_R);
      t.type("build");
      await t.waitFor(() => inputRows(t).join("\n") === "› fix the build", "the other match");
      t.type(ENTER);
      await t.waitFor((text) => text.includes("Three."), "the answer to the prompt found");
      expect(userTexts(server.requests[2]!.body).at(-1)).toBe("fix the build");

      // Another workspace has a history of its own: ↑ there finds nothing.
      const other = await startCairn([], [], { env, server: first.server });
      await ready(other.t);
      other.t.type(UP);
      other.t.type("x");
      await other.t.waitFor(() => inputRows(other.t).join("\n") === "› x", "the typed x");
    },
  );
});
