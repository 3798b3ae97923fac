/**
 * The official agent SDK driving cairn as its CLI (docs/protocols.md): its `canUseTool` answers
 * AskUserQuestion with `updatedInput.answers` and approves ExitPlanMode, as programs written for the
 * reference CLI do. Against the scripted model server.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { query } from "@anthropic-ai/claude-agent-sdk";
import { afterEach, expect, test } from "vitest";
import { reply } from "../../src/testing/index.js";
import { LIBRARY_QUESTION } from "../helpers/questions.js";
import { cleanUp, startServer, workspace } from "../sdk/helpers.js";
import { throughCairn } from "./agent-sdk.helpers.js";

afterEach(cleanUp);

type Message = { type: string; subtype?: string } & Record<string, unknown>;

async function collect(messages: AsyncIterable<unknown>): Promise<Message[]> {
  const out: Message[] = [];
  for await (const message of messages) out.push(message as Message);
  return out;
}

const QUESTION = LIBRARY_QUESTION;

test("canUseTool answers AskUserQuestion, then approves the plan: the model reads both, the edit runs", async () => {
  const server = await startServer([
    reply().tool("AskUserQuestion", { questions: [QUESTION] }),
    reply().tool("ExitPlanMode", { plan: "1. Write a.txt" }),
    reply().tool("Write", { file_path: "a.txt", content: "A\n" }),
    reply().text("Done."),
  ]);
  const cwd = workspace();
  const asked: string[] = [];
  const messages = await collect(
    query({
      prompt: "Plan it, then do it",
      options: {
        ...throughCairn(server, cwd),
        permissionMode: "plan",
        canUseTool: async (toolName, input) => {
          asked.push(toolName);
          if (toolName === "AskUserQuestion")
            return {
              behavior: "allow",
              updatedInput: { ...input, answers: { [QUESTION.question]: "luxon" } },
            };
          return {
            behavior: "allow",
            updatedInput: input,
            updatedPermissions: [{ type: "setMode", mode: "acceptEdits", destination: "session" }],
          };
        },
      },
    }),
  );
  const init = messages.find((m) => m.type === "system" && m.subtype === "init");
  expect(init?.tools).toEqual(expect.arrayContaining(["AskUserQuestion", "ExitPlanMode"]));
  expect(asked).toEqual(["AskUserQuestion", "ExitPlanMode"]);
  const sent = JSON.stringify(server.requests.map((request) => request.body));
  expect(sent).toContain(
    'User has answered your questions: \\"Which library should we use?\\"=\\"luxon\\". You can now continue',
  );
  expect(sent).toContain("User has approved your plan.");
  expect(existsSync(join(cwd, "a.txt"))).toBe(true);
  expect(messages.at(-1)).toMatchObject({ type: "result", subtype: "success", result: "Done." });
});
