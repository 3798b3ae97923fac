import { existsSync } from "node:fs";
import { join } from "node:path";
import type { RequestPermissionRequest } from "@agentclientprotocol/sdk";
import { describe, expect, test } from "vitest";
import { reply } from "../../src/testing/index.js";
import { startServer, workspace } from "../conformance/pm/helpers.js";
import { LIBRARY_QUESTION, RUNTIME_QUESTION } from "../helpers/questions.js";
import { type Agent, initialize, startAgent, textPrompt } from "./helpers.js";

async function session(agent: Agent, dir: string): Promise<string> {
  await initialize(agent);
  return (await agent.connection.newSession({ cwd: dir, mcpServers: [] })).sessionId;
}

const QUESTIONS = [LIBRARY_QUESTION, RUNTIME_QUESTION];

/** Picks the option named `name` in each request. */
const byName = (names: string[]) => (request: RequestPermissionRequest) => {
  const name = names.shift();
  const option = request.options.find((one) => one.name === name);
  if (!option) throw new Error(`no option ${name} in ${request.options.map((one) => one.name).join(", ")}`);
  return { outcome: { outcome: "selected" as const, optionId: option.optionId } };
};

describe("cairn acp: AskUserQuestion", () => {
  test("each question is a permission request whose options are its choices; the model reads the answers", async () => {
    const server = await startServer([
      reply().tool("AskUserQuestion", { questions: QUESTIONS }, "toolu_ask"),
      reply().text("luxon on Bun."),
    ]);
    const dir = workspace();
    const agent = startAgent(dir, { server });
    const sessionId = await session(agent, dir);
    agent.client.answer = byName(["luxon", "Bun"]);
    const response = await agent.connection.prompt(textPrompt(sessionId, "Set it up"));
    expect(response.stopReason).toBe("end_turn");
    const requests = agent.client.permissionRequests;
    expect(requests.map((request) => request.toolCall.title)).toEqual([
      "Which library should we use?",
      "Which runtime?",
    ]);
    expect(requests[1]?.options.map((option) => [option.name, option.kind])).toEqual([
      ["Node", "allow_once"],
      ["Bun", "allow_once"],
      ["Deno", "allow_once"],
      ["Decline to answer", "reject_once"],
    ]);
    expect(requests[0]?.toolCall.toolCallId).toBe("toolu_ask");
    expect(JSON.stringify(server.requests[1]!.body)).toContain(
      'User has answered your questions: \\"Which library should we use?\\"=\\"luxon\\", \\"Which runtime?\\"=\\"Bun\\".',
    );
    expect(agent.client.updates("tool_call_update").at(-1)).toMatchObject({
      toolCallId: "toolu_ask",
      status: "completed",
    });
  });

  test("declining is a denial the model reads", async () => {
    const server = await startServer([
      reply().tool("AskUserQuestion", { questions: QUESTIONS }, "toolu_ask"),
      reply().text("I will pick myself."),
    ]);
    const dir = workspace();
    const agent = startAgent(dir, { server });
    const sessionId = await session(agent, dir);
    agent.client.answer = byName(["Decline to answer"]);
    await agent.connection.prompt(textPrompt(sessionId, "Set it up"));
    expect(agent.client.permissionRequests).toHaveLength(1);
    expect(JSON.stringify(server.requests[1]!.body)).toContain("The user declined to answer the questions.");
  });
});

describe("cairn acp: AskUserQuestion as a form (client offers elicitation.form)", () => {
  const MIXED = [
    QUESTIONS[0]!,
    {
      question: "Which checks should run?",
      header: "Checks",
      options: [
        { label: "lint", description: "biome" },
        { label: "types", description: "tsc" },
        { label: "tests", description: "vitest" },
      ],
      multiSelect: true,
    },
  ];

  async function formSession(agent: Agent, dir: string): Promise<string> {
    await agent.connection.initialize({
      protocolVersion: 1,
      clientCapabilities: { elicitation: { form: {} } },
    });
    return (await agent.connection.newSession({ cwd: dir, mcpServers: [] })).sessionId;
  }

  test("one form: a choice per single question, several for a multi-select one; the model reads the answers", async () => {
    const server = await startServer([
      reply().tool("AskUserQuestion", { questions: MIXED }, "toolu_ask"),
      reply().text("Set."),
    ]);
    const dir = workspace();
    const agent = startAgent(dir, { server });
    const sessionId = await formSession(agent, dir);
    agent.client.fill = () => ({ action: "accept", content: { q1: "luxon", q2: ["lint", "tests"] } });
    expect((await agent.connection.prompt(textPrompt(sessionId, "Set it up"))).stopReason).toBe("end_turn");
    expect(agent.client.permissionRequests).toEqual([]);
    const [form] = agent.client.elicitations;
    expect(form).toMatchObject({ sessionId, toolCallId: "toolu_ask", mode: "form" });
    expect((form as { requestedSchema: unknown }).requestedSchema).toEqual({
      type: "object",
      properties: {
        q1: {
          type: "string",
          title: "Library",
          description: "Which library should we use?",
          oneOf: [
            { const: "date-fns", title: "date-fns", description: "Small, functional" },
            { const: "luxon", title: "luxon", description: "Time zones built in" },
          ],
        },
        q2: {
          type: "array",
          title: "Checks",
          description: "Which checks should run?",
          minItems: 1,
          items: {
            anyOf: [
              { const: "lint", title: "lint", description: "biome" },
              { const: "types", title: "types", description: "tsc" },
              { const: "tests", title: "tests", description: "vitest" },
            ],
          },
        },
      },
      required: ["q1", "q2"],
    });
    expect(JSON.stringify(server.requests[1]!.body)).toContain(
      'User has answered your questions: \\"Which library should we use?\\"=\\"luxon\\", \\"Which checks should run?\\"=\\"lint, tests\\".',
    );
  });

  test("a declined form is a denial the model reads", async () => {
    const server = await startServer([
      reply().tool("AskUserQuestion", { questions: MIXED }, "toolu_ask"),
      reply().text("I will pick."),
    ]);
    const dir = workspace();
    const agent = startAgent(dir, { server });
    const sessionId = await formSession(agent, dir);
    await agent.connection.prompt(textPrompt(sessionId, "Set it up"));
    expect(agent.client.elicitations).toHaveLength(1);
    expect(JSON.stringify(server.requests[1]!.body)).toContain("The user declined to answer the questions.");
  });
});

describe("cairn acp: ExitPlanMode", () => {
  test("approving switches the session's mode (current_mode_update) and the edits then run", async () => {
    const server = await startServer([
      reply().tool("ExitPlanMode", { plan: "1. Write a.txt" }, "toolu_plan"),
      reply().tool("Write", { file_path: "a.txt", content: "A\n" }, "toolu_write"),
      reply().text("Done."),
    ]);
    const dir = workspace();
    const agent = startAgent(dir, { server });
    const sessionId = await session(agent, dir);
    await agent.connection.setSessionMode({ sessionId, modeId: "plan" });
    agent.client.answer = byName(["Yes, and auto-accept edits"]);
    const response = await agent.connection.prompt(textPrompt(sessionId, "Plan, then do it"));
    expect(response.stopReason).toBe("end_turn");
    const [request] = agent.client.permissionRequests;
    expect(agent.client.permissionRequests).toHaveLength(1);
    expect(request?.toolCall).toMatchObject({ toolCallId: "toolu_plan", kind: "switch_mode" });
    expect(request?.toolCall.content).toEqual([
      { type: "content", content: { type: "text", text: "1. Write a.txt" } },
    ]);
    expect(request?.options.map((option) => [option.optionId, option.kind])).toEqual([
      ["acceptEdits", "allow_always"],
      ["default", "allow_once"],
      ["plan", "reject_once"],
    ]);
    expect(agent.client.updates("current_mode_update").map((update) => update.currentModeId)).toContain(
      "acceptEdits",
    );
    expect(existsSync(join(dir, "a.txt"))).toBe(true);
  });

  test("'No, keep planning': the mode stays plan and the edit is refused", async () => {
    const server = await startServer([
      reply().tool("ExitPlanMode", { plan: "1. Write a.txt" }, "toolu_plan"),
      reply().tool("Write", { file_path: "a.txt", content: "A\n" }, "toolu_write"),
      reply().text("Still planning."),
    ]);
    const dir = workspace();
    const agent = startAgent(dir, { server });
    const sessionId = await session(agent, dir);
    await agent.connection.setSessionMode({ sessionId, modeId: "plan" });
    agent.client.answer = byName(["No, keep planning"]);
    await agent.connection.prompt(textPrompt(sessionId, "Plan"));
    expect(agent.client.permissionRequests).toHaveLength(1);
    expect(JSON.stringify(server.requests[1]!.body)).toContain("The user wants to keep planning.");
    expect(agent.client.updates("current_mode_update").map((update) => update.currentModeId)).not.toContain(
      "default",
    );
    expect(existsSync(join(dir, "a.txt"))).toBe(false);
  });
});
