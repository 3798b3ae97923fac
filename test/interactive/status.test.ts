import { basename } from "node:path";
import { describe, expect, test } from "vitest";
import { reply } from "../../src/testing/index.js";
import { count, ready, skipped, startCairn } from "./cairn-terminal.js";

/** The footer, the terminal's title and notices (docs/interactive.md, "Status"). */
const DONE_NOTICE = "\x1b]9;cairn: the turn is done\x07";

describe(`status in the interactive mode${skipped}`, () => {
  test.skipIf(skipped !== "")(
    "the footer shows the model, mode, context used, cost so far, directory and git branch",
    async () => {
      const { t, dir } = await startCairn(
        [reply().text("First answer.").usage({ input_tokens: 50_000, output_tokens: 1_000 })],
        ["Hello"],
        { files: { ".git/HEAD": "ref: refs/heads/feature/footer\n" }, cols: 160 },
      );
      await t.waitFor((text) => text.includes("First answer."), "the answer");
      await t.waitFor((text) => text.includes("% context"), "the footer with the context used");
      const footer = t.screen().find((row) => row.includes("(shift+tab)"))!;
      expect(footer).toContain("anthropic/claude-sonnet-5-5 · default (shift+tab) · ");
      // 51,000 tokens of the model's window, and what the call cost, by the price table.
      expect(footer).toMatch(/ · \d+% context · (\$\d+\.\d\d|cost unknown) · /);
      expect(footer).toContain(`${dir} (feature/footer)`);
    },
  );

  test.skipIf(skipped !== "")(
    "the terminal's title names cairn and the directory, with ● while a turn runs; the old title is restored at exit",
    async () => {
      const { t, dir } = await startCairn([reply().text("Titled.")], [], { env: { CAIRN_NOTIFY: "off" } });
      await ready(t);
      t.type("Go\r");
      await t.waitFor((text) => text.includes("Titled."), "the answer");
      await ready(t);
      t.type("\x04");
      expect((await t.exited).exitCode).toBe(0);
      const output = t.output();
      const name = basename(dir);
      const push = output.indexOf("\x1b[22;0t");
      const busy = output.indexOf(`\x1b]0;● cairn · ${name}\x07`);
      const idle = output.lastIndexOf(`\x1b]0;cairn · ${name}\x07`);
      expect(push).toBeGreaterThan(-1);
      expect(busy).toBeGreaterThan(push);
      expect(idle).toBeGreaterThan(busy);
      expect(output.lastIndexOf("\x1b[23;0t")).toBeGreaterThan(idle);
    },
  );

  test.skipIf(skipped !== "")(
    "a long turn's end and a permission question send an OSC 9 notice, unless the terminal says it is focused",
    async () => {
      const { t } = await startCairn(
        [
          reply().text("A long one."),
          reply().tool("Write", { file_path: "a.txt", content: "a\n" }),
          reply().text("Wrote it."),
          reply().text("Seen while focused."),
        ],
        [],
        { env: { CAIRN_NOTIFY_AFTER: "0" } },
      );
      await ready(t);
      t.type("First\r");
      await t.waitFor((text) => text.includes("A long one."), "the first answer");
      await t.waitFor(() => t.output().includes(DONE_NOTICE), "the notice of the turn's end");
      t.type("Write it\r");
      await t.waitFor((text) => text.includes("Allow Write?"), "the permission question");
      expect(t.output()).toContain("\x1b]9;cairn: allow Write?\x07");
      t.type("y");
      await t.waitFor((text) => text.includes("Wrote it."), "the answer after the write");
      await ready(t);
      const before = count(t.output(), DONE_NOTICE);
      expect(before).toBe(2);
      // The terminal reports focus (focus reporting was turned on): no notice while focused.
      expect(t.output()).toContain("\x1b[?1004h");
      t.type("\x1b[I");
      t.type("Third\r");
      await t.waitFor((text) => text.includes("Seen while focused."), "the third answer");
      await ready(t);
      expect(count(t.output(), DONE_NOTICE)).toBe(before);
      // The focus report was not typed into the input.
      expect(t.all().join("\n")).not.toContain("[I");
    },
  );

  test.skipIf(skipped !== "")(
    "CAIRN_NOTIFY=bell rings the bell; a value cairn does not know is said",
    async () => {
      const { t } = await startCairn([reply().text("Rung.")], ["Ring"], {
        env: { CAIRN_NOTIFY: "bell", CAIRN_NOTIFY_AFTER: "0" },
      });
      await t.waitFor((text) => text.includes("Rung."), "the answer");
      await t.waitFor(
        () =>
          t
            .output()
            .replace(/\x1b\][^\x07]*\x07/g, "")
            .includes("\x07"),
        "the bell",
      );
      expect(t.output()).not.toContain("\x1b]9;");
      const wrong = await startCairn([], [], { env: { CAIRN_NOTIFY: "loud" } });
      await ready(wrong.t);
      expect(wrong.t.all().join("\n")).toContain(
        "CAIRN_NOTIFY=loud is not one of osc9, bell, both, off; using osc9.",
      );
    },
  );
});
