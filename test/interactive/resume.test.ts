import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, onTestFinished, test } from "vitest";
import type { ConversationMessage } from "../../src/engine/messages.js";
import { JsonlTranscriptStore } from "../../src/sessions/store.js";
import { reply } from "../../src/testing/index.js";
import { CLI, MODEL, serverEnv, startServer, workspace } from "../conformance/pm/helpers.js";
import { ENTER, load, ready, skipped, startCairn, userTexts } from "./cairn-terminal.js";
import { openTerminal } from "./pty-terminal.js";

/**
 * A resumed session shows its history (docs/interactive.md, "Resuming"): `--resume <id>`,
 * `--continue` and `/resume` draw the conversation so far into the scrollback once, then the input.
 */
const ts = "2026-12-01T10:00:00.000Z";

/** A session of `dir` written as cairn writes one: `turns` prompts with their answers. */
async function storedSession(
  home: string,
  dir: string,
  turns: {
    prompt: string;
    answer: string;
    tool?: { name: string; input: Record<string, unknown>; error?: string };
  }[],
  compactedBefore?: ConversationMessage[],
): Promise<string> {
  const store = new JsonlTranscriptStore({ cairnHome: home });
  const writer = await store.create(dir);
  if (compactedBefore)
    writer.append({
      type: "compact_boundary",
      ts,
      trigger: "manual",
      preTokens: 100,
      postTokens: 10,
      summary: "s",
      messages: compactedBefore,
    });
  turns.forEach((turn, i) => {
    writer.append({ type: "user", ts, prompt: true, message: { role: "user", content: turn.prompt } });
    if (turn.tool) {
      const id = `toolu_${i}`;
      writer.append({
        type: "assistant",
        ts,
        message: {
          role: "assistant",
          content: [{ type: "tool_use", id, name: turn.tool.name, input: turn.tool.input }],
        },
      });
      writer.append({
        type: "tool_result",
        ts,
        toolName: turn.tool.name,
        result: {
          type: "tool_result",
          tool_use_id: id,
          content: turn.tool.error ?? "ok",
          ...(turn.tool.error ? { is_error: true } : {}),
        },
      });
    }
    writer.append({
      type: "assistant",
      ts,
      message: { role: "assistant", content: [{ type: "text", text: turn.answer }] },
    });
  });
  await writer.close();
  return writer.sessionId;
}

describe(`interactive resume${skipped}`, () => {
  test.skipIf(skipped !== "")(
    "--resume <id> draws the conversation so far (prompts, markdown answers, tool calls, the compaction point) before the input, and the model gets it all",
    async () => {
      const home = mkdtempSync(join(tmpdir(), "cairn-home-"));
      const dir = workspace({ "notes.txt": "hello\n" });
      const id = await storedSession(
        home,
        dir,
        [
          {
            prompt: "Read the notes",
            answer: "The notes say **hello**.",
            tool: { name: "Read", input: { file_path: "notes.txt" } },
          },
          {
            prompt: "Run the tests",
            answer: "They fail.",
            tool: { name: "Bash", input: { command: "npm test" }, error: "Exit code 1" },
          },
        ],
        [
          {
            role: "user",
            content:
              "[Conversation summary] Earlier turns of this session were compacted.\n\nWe set up the repo.",
          },
          { role: "assistant", content: [{ type: "text", text: "Understood." }] },
        ],
      );
      const { t, server } = await startCairn([reply().text("Still here.")], ["--resume", id], {
        dir,
        env: { CAIRN_HOME: home },
      });
      await ready(t);
      await t.waitFor((text) => text.includes("the conversation so far"), "the history drawn");
      const all = t.all().join("\n");
      expect(all).toContain("the conversation was compacted here");
      expect(all).toMatch(/› Read the notes\n[\s\S]*✓ Read notes\.txt[\s\S]*The notes say hello\./);
      expect(all).toMatch(/› Run the tests\n[\s\S]*✗ `npm test` — Exit code 1[\s\S]*They fail\./);
      // Drawn once, above the input.
      expect(all.split("› Read the notes").length - 1).toBe(1);
      t.type(`And now?${ENTER}`);
      await t.waitFor((text) => text.includes("Still here."), "the answer");
      expect(userTexts(server.requests[0]!.body)).toContain("Read the notes");
      expect(userTexts(server.requests[0]!.body).at(-1)).toBe("And now?");
    },
  );

  test.skipIf(skipped !== "")(
    "a long session is drawn from its last 40 turns, the number not drawn said; `cairn resume` picks the latest session",
    async () => {
      const home = mkdtempSync(join(tmpdir(), "cairn-home-"));
      const dir = workspace();
      const turns = Array.from({ length: 45 }, (_, i) => ({
        prompt: `Question ${i + 1}`,
        answer: `Answer ${i + 1}.`,
      }));
      await storedSession(home, dir, turns);
      // `cairn resume` is `cairn --continue`: the latest session of the directory.
      if ("reason" in load) throw new Error(load.reason);
      const server = await startServer([]);
      const t = openTerminal(load, process.execPath, [CLI, "resume", "--model", MODEL], {
        cwd: dir,
        env: { ...serverEnv(server), CAIRN_HOME: home },
      });
      onTestFinished(() => t.kill("SIGKILL"));
      await ready(t);
      await t.waitFor((text) => text.includes("the conversation so far"), "the history drawn");
      const all = t.all().join("\n");
      expect(all).toContain("… 5 earlier turns are not drawn");
      expect(all).not.toContain("› Question 5\n");
      expect(all).toContain("› Question 6");
      expect(all).toContain("Answer 45.");
    },
  );

  test.skipIf(skipped !== "")(
    "--screen-reader --resume <id> prints the conversation so far as plain lines before the first prompt",
    async () => {
      const home = mkdtempSync(join(tmpdir(), "cairn-home-"));
      const dir = workspace();
      const id = await storedSession(home, dir, [
        {
          prompt: "Read the notes",
          answer: "The notes say **hello**.",
          tool: { name: "Read", input: { file_path: "notes.txt" } },
        },
      ]);
      const { t, server } = await startCairn(
        [reply().text("Plain answer.")],
        ["--screen-reader", "--resume", id],
        {
          dir,
          env: { CAIRN_HOME: home },
        },
      );
      await t.waitFor((text) => text.includes("the conversation so far"), "the history printed");
      const printed = t.all().join("\n");
      expect(printed).toMatch(/› Read the notes\n✓ Read notes\.txt\n\nThe notes say \*\*hello\*\*\./);
      expect(t.output()).not.toContain("\x1b[");
      t.type(`And now?${ENTER}`);
      await t.waitFor((text) => text.includes("Plain answer."), "the answer");
      expect(userTexts(server.requests[0]!.body)).toEqual(["Read the notes", "And now?"]);
    },
  );
});
