import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { reply } from "../../src/testing/index.js";
import { tempDir } from "../helpers/temp.js";
import { CTRL_D, ENTER, ESC, inputRows, ready, skipped, startCairn, userTexts } from "./cairn-terminal.js";

/** The one transcript under a cairn home. */
function transcriptIn(home: string): string {
  const sessions = join(home, "sessions");
  for (const dir of readdirSync(sessions)) {
    const file = readdirSync(join(sessions, dir)).find((name) => name.endsWith(".jsonl"));
    if (file) return join(sessions, dir, file);
  }
  throw new Error(`no transcript under ${home}`);
}

/** A first run: a question, then a prompt whose Write changes notes.txt; left with Ctrl+D. */
async function firstRun(home: string) {
  const started = await startCairn(
    [
      reply().text("Answer one."),
      reply().tool("Write", { file_path: "notes.txt", content: "changed\n" }),
      reply().text("Wrote the notes."),
      reply().text("Answer three."),
    ],
    ["--permission-mode", "acceptEdits"],
    { files: { "notes.txt": "original\n" }, env: { CAIRN_HOME: home } },
  );
  const { t, dir } = started;
  await ready(t);
  t.type(`First question${ENTER}`);
  await t.waitFor((text) => text.includes("Answer one."), "the first answer");
  await ready(t);
  t.type(`Write the notes${ENTER}`);
  await t.waitFor((text) => text.includes("Wrote the notes."), "the write's answer");
  expect(readFileSync(join(dir, "notes.txt"), "utf8")).toBe("changed\n");
  t.type(CTRL_D);
  expect((await t.exited).exitCode).toBe(0);
  return started;
}

/**
 * Esc Esc in the interactive mode (docs/interactive.md, "Rewind"): back to an earlier prompt, the
 * conversation cut there and the files the tools changed since restored from their checkpoints.
 */
describe(`interactive rewind${skipped}`, () => {
  test.skipIf(skipped !== "")(
    "Esc Esc picks an earlier prompt, says what the files restore changes, restores the files and the conversation, and puts the prompt back in the input",
    async () => {
      const { t, server, dir } = await startCairn(
        [
          reply().tool("Write", { file_path: "notes.txt", content: "version one\n" }),
          reply().text("Wrote version one."),
          reply().tool("Write", { file_path: "notes.txt", content: "version two\n" }),
          reply().text("Wrote version two."),
          reply().text("A different answer."),
        ],
        ["--permission-mode", "acceptEdits"],
      );
      await ready(t);
      t.type(`Write the notes${ENTER}`);
      await t.waitFor((text) => text.includes("Wrote version one."), "the first answer");
      await ready(t);
      t.type(`Rewrite the notes${ENTER}`);
      await t.waitFor((text) => text.includes("Wrote version two."), "the second answer");
      await ready(t);
      expect(readFileSync(join(dir, "notes.txt"), "utf8")).toBe("version two\n");
      t.type(ESC);
      await t.waitFor((text) => text.includes("Press Esc again to rewind"), "the hint");
      t.type(ESC);
      await t.waitFor((text) => text.includes("Rewind to which prompt?"), "the prompts");
      // Newest first: Enter takes "Rewrite the notes".
      t.type(ENTER);
      await t.waitFor(
        (text) => text.includes("Restore the conversation and the files: 1 file (+1 -1)"),
        "the choices",
      );
      t.type(ENTER);
      await t.waitFor((text) => text.includes("Rewound the conversation"), "the rewind");
      expect(readFileSync(join(dir, "notes.txt"), "utf8")).toBe("version one\n");
      await t.waitFor(() => inputRows(t)[0] === "› Rewrite the notes", "the prompt back in the input");
      t.type("\x15");
      t.type(`Something else${ENTER}`);
      await t.waitFor((text) => text.includes("A different answer."), "the answer after the rewind");
      expect(userTexts(server.requests[4]!.body)).toEqual(["Write the notes", "Something else"]);
    },
  );

  test.skipIf(skipped !== "")(
    "a rewind is recorded in the transcript (Session.rewind): --continue afterwards shows and sends the rewound conversation",
    async () => {
      const { t, server, dir } = await startCairn([
        reply().text("Answer one."),
        reply().text("Answer two."),
        reply().text("Answer three."),
      ]);
      await ready(t);
      t.type(`First question${ENTER}`);
      await t.waitFor((text) => text.includes("Answer one."), "the first answer");
      await ready(t);
      t.type(`Second question${ENTER}`);
      await t.waitFor((text) => text.includes("Answer two."), "the second answer");
      await ready(t);
      t.type(ESC);
      await t.waitFor((text) => text.includes("Press Esc again to rewind"), "the hint");
      t.type(ESC);
      await t.waitFor((text) => text.includes("Rewind to which prompt?"), "the prompts");
      t.type(ENTER);
      await t.waitFor((text) => text.includes("Restore the conversation only"), "the choices");
      t.type(ENTER);
      await t.waitFor((text) => text.includes("Rewound the conversation"), "the rewind");
      t.type("\x15");
      t.type(CTRL_D);
      expect((await t.exited).exitCode).toBe(0);

      const again = await startCairn([], ["--continue"], { dir, server });
      await ready(again.t);
      await again.t.waitFor((text) => text.includes("the conversation so far"), "the history drawn");
      const drawn = again.t.all().join("\n");
      expect(drawn).toContain("› First question");
      expect(drawn).not.toContain("Second question");
      again.t.type(`Third question${ENTER}`);
      await again.t.waitFor((text) => text.includes("Answer three."), "the answer after the resume");
      expect(userTexts(server.requests[2]!.body)).toEqual(["First question", "Third question"]);
    },
  );

  test.skipIf(skipped !== "")(
    "a resumed session's earlier prompt rewinds its files too: --continue, Esc Esc, the files restored, and a later --continue shows the rewound conversation",
    async () => {
      const home = tempDir("cairn-rewind-home-");
      const { server, dir } = await firstRun(home);

      const resumed = await startCairn([], ["--continue"], { dir, server, env: { CAIRN_HOME: home } });
      await ready(resumed.t);
      await resumed.t.waitFor((text) => text.includes("the conversation so far"), "the history drawn");
      resumed.t.type(ESC);
      await resumed.t.waitFor((text) => text.includes("Press Esc again to rewind"), "the hint");
      resumed.t.type(ESC);
      await resumed.t.waitFor((text) => text.includes("Rewind to which prompt?"), "the prompts");
      // Newest first: Enter takes "Write the notes", a prompt of the earlier run.
      resumed.t.type(ENTER);
      await resumed.t.waitFor(
        (text) => text.includes("Restore the conversation and the files: 1 file (+1 -1)"),
        "the choices, the files among them",
      );
      resumed.t.type(ENTER);
      await resumed.t.waitFor((text) => text.includes("Rewound the conversation"), "the rewind");
      expect(readFileSync(join(dir, "notes.txt"), "utf8")).toBe("original\n");
      resumed.t.type("\x15");
      resumed.t.type(CTRL_D);
      expect((await resumed.t.exited).exitCode).toBe(0);

      const again = await startCairn([], ["--continue"], { dir, server, env: { CAIRN_HOME: home } });
      await ready(again.t);
      await again.t.waitFor((text) => text.includes("the conversation so far"), "the history drawn");
      const drawn = again.t.all().join("\n");
      expect(drawn).toContain("› First question");
      expect(drawn).not.toContain("Write the notes");
      // The rewind record kept the remaining prompt's id: its files could still be rewound.
      again.t.type(ESC);
      again.t.type(ESC);
      await again.t.waitFor((text) => text.includes("Rewind to which prompt?"), "the prompts");
      const row = again.t.screen().find((line) => /First question\s+#1/.test(line));
      expect(row).toBeDefined();
      expect(row).not.toContain("conversation only");
      again.t.type(ESC);
      await again.t.waitFor(
        () => !again.t.screen().join("\n").includes("Rewind to which prompt?"),
        "the picker gone",
      );
      again.t.type(`Third question${ENTER}`);
      await again.t.waitFor((text) => text.includes("Answer three."), "the answer after the resume");
      expect(userTexts(server.requests[3]!.body)).toEqual(["First question", "Third question"]);
    },
  );

  test.skipIf(skipped !== "")(
    "a prompt of a transcript written before prompts carried their id rewinds the conversation only, and the rewind says why",
    async () => {
      const home = tempDir("cairn-rewind-home-");
      const { server, dir } = await firstRun(home);
      // As an earlier cairn wrote it: no prompt ids.
      const file = transcriptIn(home);
      const lines = readFileSync(file, "utf8").split("\n");
      const old = lines.map((line) => line.replace(/,"userMessageId":"[^"]*"/, ""));
      expect(old).not.toEqual(lines);
      writeFileSync(file, old.join("\n"));

      const resumed = await startCairn([], ["--continue"], { dir, server, env: { CAIRN_HOME: home } });
      await ready(resumed.t);
      await resumed.t.waitFor((text) => text.includes("the conversation so far"), "the history drawn");
      resumed.t.type(ESC);
      resumed.t.type(ESC);
      await resumed.t.waitFor((text) => text.includes("Rewind to which prompt?"), "the prompts");
      expect(resumed.t.screen().join("\n")).toContain("conversation only");
      resumed.t.type(ENTER);
      await resumed.t.waitFor((text) => text.includes("its files cannot be restored"), "the reason");
      expect(resumed.t.screen().join("\n")).not.toContain("Restore the conversation and the files");
      resumed.t.type(ENTER);
      await resumed.t.waitFor((text) => text.includes("Rewound the conversation"), "the rewind");
      expect(readFileSync(join(dir, "notes.txt"), "utf8")).toBe("changed\n");
    },
  );
});
