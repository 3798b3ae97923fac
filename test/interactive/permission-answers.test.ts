import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { reply } from "../../src/testing/index.js";
import { tempDir } from "../helpers/temp.js";
import { ENTER, ready, skipped, startCairn } from "./cairn-terminal.js";

/**
 * The permission question's other answers (docs/interactive.md, "Permission questions"): "always
 * allow" saved as a rule in the user config, named before it is saved; "no" with a note the model
 * reads.
 */
describe(`interactive permission answers${skipped}`, () => {
  test.skipIf(skipped !== "")(
    "s always allows: the rule and the file are shown first, then saved to permissions.allow; a later run is not asked",
    async () => {
      const home = tempDir("cairn-home-");
      const env = { CAIRN_HOME: home };
      const { t, dir, server } = await startCairn(
        [
          reply().tool("Bash", { command: "touch made-once.txt" }),
          reply().text("Made it."),
          reply().tool("Bash", { command: "touch made-twice.txt" }),
          reply().text("Made it again."),
        ],
        [],
        { env },
      );
      await ready(t);
      t.type(`Make the file${ENTER}`);
      const userFile = join(home, "config.json");
      await t.waitFor((text) => text.includes("Allow Bash?"), "the question");
      await t.waitFor(
        (text) => text.replace(/\s+/g, "").includes(`topermissions.allowin${userFile}`.replace(/\s+/g, "")),
        "the rule and file named",
      );
      const offered = /always allow (\S+) \(saved/.exec(t.all().join("\n"))![1]!;
      t.type("s");
      await t.waitFor((text) => text.includes("Made it."), "the answer");
      await t.waitFor((text) => text.includes("to permissions.allow in"), "the saving said");
      expect(existsSync(join(dir, "made-once.txt"))).toBe(true);
      const saved = JSON.parse(readFileSync(userFile, "utf8")) as { permissions: { allow: string[] } };
      expect(saved.permissions.allow).toEqual([offered]);
      t.type("\x04");
      await t.exited;

      // The next run in this workspace: the saved rule allows the call without a question.
      const again = await startCairn([], [], { env, dir, server });
      await ready(again.t);
      again.t.type(`Make another${ENTER}`);
      await again.t.waitFor((text) => text.includes("Made it again."), "the second answer");
      expect(again.t.all().join("\n")).not.toContain("Allow Bash?");
      expect(existsSync(join(dir, "made-twice.txt"))).toBe(true);
    },
  );

  test.skipIf(skipped !== "")("d denies with a note, and the model reads the note", async () => {
    const { t, dir, server } = await startCairn([
      reply().tool("Write", { file_path: "notes.txt", content: "never\n" }),
      reply().text("I will use the docs folder."),
    ]);
    await ready(t);
    t.type(`Write the notes${ENTER}`);
    await t.waitFor((text) => text.includes("Allow Write?"), "the question");
    t.type("d");
    await t.waitFor((text) => text.includes("A note for the model"), "the note asked for");
    t.type(`put it in docs/ instead${ENTER}`);
    await t.waitFor((text) => text.includes("I will use the docs folder."), "the answer");
    expect(t.all().join("\n")).toContain("Write: denied, with a note");
    expect(existsSync(join(dir, "notes.txt"))).toBe(false);
    expect(JSON.stringify(server.requests[1]!.body)).toContain(
      "The user rejected this tool call. The user said: put it in docs/ instead",
    );
  });
});
