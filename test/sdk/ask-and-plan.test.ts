/**
 * AskUserQuestion and ExitPlanMode through the SDK's `query()`: the question reaches `canUseTool`,
 * whose `updatedInput.answers` the model reads back (the agent-SDK convention); approving the plan
 * leaves plan mode, rejecting keeps planning with the user's note. In-process, against the scripted
 * model server.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import type { CanUseTool, SDKMessage } from "../../src/index.js";
import { reply } from "../../src/testing/index.js";
import { CHECKS_QUESTION, LIBRARY_QUESTION } from "../helpers/questions.js";
import { cleanUp, init, result, runQuery, users, workspace } from "./helpers.js";

afterEach(cleanUp);

const QUESTIONS = [LIBRARY_QUESTION, CHECKS_QUESTION];

/** The tool_result blocks of the run, in order. */
function toolResults(messages: SDKMessage[]) {
  return users(messages).flatMap((message) =>
    Array.isArray(message.message.content)
      ? message.message.content.flatMap((block) => (block.type === "tool_result" ? [{ block, message }] : []))
      : [],
  );
}

/** The result message's `result` text (a failed run has none). */
function resultText(messages: SDKMessage[]): string | undefined {
  const end = result(messages);
  return end.subtype === "success" ? end.result : undefined;
}

const textOf = (content: unknown) => (typeof content === "string" ? content : JSON.stringify(content));

describe("AskUserQuestion", () => {
  test("reaches canUseTool with the questions; the answers in updatedInput are what the model reads and tool_use_result holds", async () => {
    const asked: { name: string; input: Record<string, unknown> }[] = [];
    const canUseTool: CanUseTool = async (name, input) => {
      asked.push({ name, input });
      return {
        behavior: "allow",
        updatedInput: {
          ...input,
          answers: { "Which library should we use?": "luxon", "Which checks should run?": "lint, tests" },
        },
      };
    };
    const { messages, server } = await runQuery(
      [reply().tool("AskUserQuestion", { questions: QUESTIONS }), reply().text("luxon it is")],
      // bypassPermissions allows everything else, never a question to the user.
      { canUseTool, permissionMode: "bypassPermissions", allowDangerouslySkipPermissions: true },
    );
    expect(init(messages).tools).toContain("AskUserQuestion");
    expect(asked).toEqual([{ name: "AskUserQuestion", input: { questions: QUESTIONS } }]);
    const [{ block, message }] = toolResults(messages) as [ReturnType<typeof toolResults>[number]];
    const expected =
      'User has answered your questions: "Which library should we use?"="luxon", "Which checks should run?"="lint, tests". ' +
      "You can now continue with the user's answers in mind.";
    expect(textOf(block.content)).toBe(expected);
    expect(block.is_error).toBeUndefined();
    expect(message.tool_use_result).toEqual({
      questions: QUESTIONS,
      answers: { "Which library should we use?": "luxon", "Which checks should run?": "lint, tests" },
    });
    // The model got the same text.
    expect(JSON.stringify(server.requests[1]?.body)).toContain(JSON.stringify(expected).slice(1, -1));
    expect(resultText(messages)).toBe("luxon it is");
  });

  test("a declined question is a denial the model reads", async () => {
    const canUseTool: CanUseTool = async () => ({
      behavior: "deny",
      message: "The user declined to answer.",
    });
    const { messages } = await runQuery(
      [reply().tool("AskUserQuestion", { questions: QUESTIONS.slice(0, 1) }), reply().text("ok")],
      { canUseTool },
    );
    const [{ block }] = toolResults(messages) as [ReturnType<typeof toolResults>[number]];
    expect(block.is_error).toBe(true);
    expect(textOf(block.content)).toBe(
      "Permission to use AskUserQuestion was denied. The user declined to answer.",
    );
    expect(result(messages).permission_denials.map((d) => d.tool_name)).toEqual(["AskUserQuestion"]);
  });

  test("is not offered to a query nobody answers (no canUseTool)", async () => {
    const { messages, server } = await runQuery([reply().text("ok")]);
    expect(init(messages).tools).not.toContain("AskUserQuestion");
    const body = server.requests[0]?.body as { tools?: { name: string }[] };
    expect(body.tools?.map((tool) => tool.name)).not.toContain("AskUserQuestion");
  });
});

describe("ExitPlanMode", () => {
  const PLAN = "1. Add a.txt\n2. Run the tests";

  test("is offered only in plan mode", async () => {
    const canUseTool: CanUseTool = async (_name, input) => ({ behavior: "allow", updatedInput: input });
    const planning = await runQuery([reply().text("ok")], { canUseTool, permissionMode: "plan" });
    expect(init(planning.messages).tools).toContain("ExitPlanMode");
    const coding = await runQuery([reply().text("ok")], { canUseTool });
    expect(init(coding.messages).tools).not.toContain("ExitPlanMode");
  });

  test("approved in canUseTool: plan mode ends, the model reads the approved plan and its edits run", async () => {
    const asked: { name: string; input: Record<string, unknown> }[] = [];
    const canUseTool: CanUseTool = async (name, input) => {
      asked.push({ name, input });
      return {
        behavior: "allow",
        updatedInput: input,
        updatedPermissions: [{ type: "setMode", mode: "acceptEdits", destination: "session" }],
      };
    };
    const cwd = workspace();
    const { messages } = await runQuery(
      [
        reply().tool("ExitPlanMode", { plan: PLAN }),
        reply().tool("Write", { file_path: "a.txt", content: "A" }),
        reply().text("done"),
      ],
      { cwd, canUseTool, permissionMode: "plan" },
    );
    // Only the plan was asked about: the write ran under acceptEdits.
    expect(asked).toEqual([{ name: "ExitPlanMode", input: { plan: PLAN } }]);
    const [exit, write] = toolResults(messages);
    expect(textOf(exit!.block.content)).toBe(
      `User has approved your plan. You can now start coding. Start with updating your todo list if applicable\n\n## Approved Plan:\n${PLAN}`,
    );
    expect(exit!.message.tool_use_result).toEqual({ plan: PLAN, isAgent: false });
    expect(write!.block.is_error).toBeUndefined();
    expect(existsSync(join(cwd, "a.txt"))).toBe(true);
    expect(
      messages.some(
        (m) => m.type === "system" && m.subtype === "status" && m.permissionMode === "acceptEdits",
      ),
    ).toBe(true);
    expect(resultText(messages)).toBe("done");
  });

  test("approved without a mode: the session leaves plan mode for default", async () => {
    const { messages } = await runQuery([reply().tool("ExitPlanMode", { plan: PLAN }), reply().text("ok")], {
      canUseTool: async (_name, input) => ({ behavior: "allow", updatedInput: input }),
      permissionMode: "plan",
    });
    expect(
      messages.some((m) => m.type === "system" && m.subtype === "status" && m.permissionMode === "default"),
    ).toBe(true);
  });

  test("rejected: still planning, and the model reads the user's note", async () => {
    const cwd = workspace();
    let asks = 0;
    const canUseTool: CanUseTool = async (name) => {
      asks++;
      if (name === "ExitPlanMode") return { behavior: "deny", message: "Keep planning: cover the docs too." };
      return { behavior: "allow" };
    };
    const { messages } = await runQuery(
      [
        reply().tool("ExitPlanMode", { plan: PLAN }),
        reply().tool("Write", { file_path: "a.txt", content: "A" }),
        reply().text("planning"),
      ],
      { cwd, canUseTool, permissionMode: "plan" },
    );
    const [exit, write] = toolResults(messages);
    expect(exit!.block.is_error).toBe(true);
    expect(textOf(exit!.block.content)).toBe(
      "Permission to use ExitPlanMode was denied. Keep planning: cover the docs too.",
    );
    // Plan mode holds: the write is refused without asking.
    expect(write!.block.is_error).toBe(true);
    expect(textOf(write!.block.content)).toMatch(/plan mode/);
    expect(asks).toBe(1);
    expect(existsSync(join(cwd, "a.txt"))).toBe(false);
  });

  test("in a query nobody answers, the plan is the result", async () => {
    const { messages, server } = await runQuery(
      [reply().text("Let me look first.").tool("ExitPlanMode", { plan: PLAN }), reply().text("never")],
      { permissionMode: "plan" },
    );
    expect(result(messages).subtype).toBe("success");
    expect(resultText(messages)).toBe(PLAN);
    expect(server.requests).toHaveLength(1);
  });
});
