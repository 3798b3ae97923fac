import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { hang, reply, type ScriptedServer } from "../../src/testing/index.js";
import { serverEnv, startServer, workspace } from "../conformance/pm/helpers.js";
import { semanticBody } from "../sdk/helpers.js";
import { type Agent, initialize, startAgent, textPrompt, until } from "./helpers.js";

/** The conversation a model request sent (prompt-caching markers left out). */
const sentMessages = (server: ScriptedServer, index: number) =>
  semanticBody<{ messages: { role: string; content: unknown }[] }>(server.requests[index]!.body).messages;

async function session(agent: Agent, dir: string): Promise<string> {
  await initialize(agent);
  return (await agent.connection.newSession({ cwd: dir, mcpServers: [] })).sessionId;
}

const select = (optionId: string) => () => ({ outcome: { outcome: "selected" as const, optionId } });

describe("cairn acp: session/request_permission", () => {
  test("a command outside the read-only list asks; allow once runs it", async () => {
    const server = await startServer([
      reply().tool("Bash", { command: "touch marker" }, "toolu_touch"),
      reply().text("Touched."),
    ]);
    const dir = workspace();
    const agent = startAgent(dir, { server });
    const sessionId = await session(agent, dir);
    agent.client.answer = select("allow_once");
    const response = await agent.connection.prompt(textPrompt(sessionId, "Touch the marker"));
    expect(response.stopReason).toBe("end_turn");

    const [request] = agent.client.permissionRequests;
    expect(request?.sessionId).toBe(sessionId);
    expect(request?.toolCall).toMatchObject({
      toolCallId: "toolu_touch",
      kind: "execute",
      title: "`touch marker`",
    });
    expect(request?.options.map((option) => [option.optionId, option.kind])).toEqual([
      ["allow_once", "allow_once"],
      ["allow_always", "allow_always"],
      ["reject_once", "reject_once"],
    ]);
    expect(request?.options[1]?.name).toBe("Always allow Bash(touch:*)");
    expect(existsSync(join(dir, "marker"))).toBe(true);
    const [call] = agent.client.updates("tool_call");
    expect(call).toMatchObject({ toolCallId: "toolu_touch", kind: "execute" });
    // Allowed, it is shown running, then done.
    expect(agent.client.updates("tool_call_update")).toMatchObject([
      { toolCallId: "toolu_touch", status: "in_progress" },
      { toolCallId: "toolu_touch", status: "completed" },
    ]);
  });

  test("a call that needs no approval and runs a while is shown running (from its first heartbeat)", async () => {
    const server = await startServer([
      reply().tool("Bash", { command: "sleep 1" }, "toolu_sleep"),
      reply().text("Slept."),
    ]);
    const dir = workspace();
    const agent = startAgent(dir, { env: { ...serverEnv(server), CAIRN_TOOL_PROGRESS_SECONDS: "0.2" } });
    const sessionId = await session(agent, dir);
    await agent.connection.setSessionMode({ sessionId, modeId: "bypassPermissions" });
    expect((await agent.connection.prompt(textPrompt(sessionId, "Sleep"))).stopReason).toBe("end_turn");
    expect(agent.client.permissionRequests).toHaveLength(0);
    expect(agent.client.updates("tool_call_update")).toMatchObject([
      { toolCallId: "toolu_sleep", status: "in_progress" },
      { toolCallId: "toolu_sleep", status: "completed" },
    ]);
  });

  test("reject does not run it: the call fails and the model reads why", async () => {
    const server = await startServer([
      reply().tool("Bash", { command: "touch marker" }, "toolu_touch"),
      reply().text("Not allowed, then."),
    ]);
    const dir = workspace();
    const agent = startAgent(dir, { server });
    const sessionId = await session(agent, dir);
    agent.client.answer = select("reject_once");
    const response = await agent.connection.prompt(textPrompt(sessionId, "Touch the marker"));
    expect(response.stopReason).toBe("end_turn");
    expect(agent.client.permissionRequests).toHaveLength(1);
    expect(existsSync(join(dir, "marker"))).toBe(false);
    expect(agent.client.updates("tool_call_update")).toMatchObject([
      { toolCallId: "toolu_touch", status: "failed" },
    ]);
    expect(JSON.stringify(server.requests[1]!.body)).toContain("The user rejected this tool call.");
  });

  test("allow always adds the suggested rule for the rest of the session: the next such command does not ask", async () => {
    const server = await startServer([
      reply().tool("Bash", { command: "touch first" }),
      reply().text("One."),
      reply().tool("Bash", { command: "touch second" }),
      reply().text("Two."),
    ]);
    const dir = workspace();
    const agent = startAgent(dir, { server });
    const sessionId = await session(agent, dir);
    agent.client.answer = select("allow_always");
    await agent.connection.prompt(textPrompt(sessionId, "Touch one"));
    await agent.connection.prompt(textPrompt(sessionId, "Touch another"));
    expect(agent.client.permissionRequests).toHaveLength(1);
    expect(existsSync(join(dir, "first"))).toBe(true);
    expect(existsSync(join(dir, "second"))).toBe(true);
  });
});

describe("cairn acp: session/set_mode", () => {
  test("plan mode refuses an edit without asking; the file is not written", async () => {
    const server = await startServer([
      reply().tool("Write", { file_path: "plan.txt", content: "no\n" }, "toolu_write"),
      reply().text("I will only plan."),
    ]);
    const dir = workspace();
    const agent = startAgent(dir, { server });
    const sessionId = await session(agent, dir);
    await agent.connection.setSessionMode({ sessionId, modeId: "plan" });
    const response = await agent.connection.prompt(textPrompt(sessionId, "Write the plan file"));
    expect(response.stopReason).toBe("end_turn");
    expect(agent.client.permissionRequests).toEqual([]);
    expect(agent.client.updates("tool_call_update")).toMatchObject([
      { toolCallId: "toolu_write", status: "failed" },
    ]);
    expect(existsSync(join(dir, "plan.txt"))).toBe(false);
  });

  test("an unknown mode is invalid params naming the modes", async () => {
    const server = await startServer([]);
    const dir = workspace();
    const agent = startAgent(dir, { server });
    const sessionId = await session(agent, dir);
    await expect(agent.connection.setSessionMode({ sessionId, modeId: "yolo" })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining("default, acceptEdits, plan, bypassPermissions"),
    });
  });
});

describe("cairn acp: session/cancel", () => {
  test("cancel mid-turn: the hung model call is abandoned, the prompt resolves cancelled, the session goes on", async () => {
    const server = await startServer([hang(), reply().text("Back again.")]);
    const dir = workspace();
    const agent = startAgent(dir, { server });
    const sessionId = await session(agent, dir);
    const prompt = agent.connection.prompt(textPrompt(sessionId, "Take forever"));
    await until(() => server.requests.length === 1);
    await agent.connection.cancel({ sessionId });
    expect(await prompt).toEqual({ stopReason: "cancelled" });

    const next = await agent.connection.prompt(textPrompt(sessionId, "Now answer"));
    expect(next.stopReason).toBe("end_turn");
    expect(agent.client.text("agent_message_chunk")).toBe("Back again.");
    expect(await agent.end()).toBe(0);
  });

  test("cancel mid-answer: the next prompt's request keeps the text already shown and says the user interrupted", async () => {
    const server = await startServer([
      // The answer stops after its first chunk ("Partial answer, ") and would never go on.
      reply().text("Partial answer, then the rest.").stall(3, 600_000),
      reply().text("Back again."),
    ]);
    const dir = workspace();
    const agent = startAgent(dir, { server });
    const sessionId = await session(agent, dir);
    const prompt = agent.connection.prompt(textPrompt(sessionId, "Explain it"));
    await until(() => agent.client.text("agent_message_chunk") === "Partial answer, ");
    await agent.connection.cancel({ sessionId });
    expect(await prompt).toEqual({ stopReason: "cancelled" });

    expect((await agent.connection.prompt(textPrompt(sessionId, "Go on"))).stopReason).toBe("end_turn");
    // What the reference sends: the answer as far as it was shown, its note, then the next prompt.
    expect(sentMessages(server, 1)).toEqual([
      { role: "user", content: "Explain it" },
      { role: "assistant", content: [{ type: "text", text: "Partial answer, " }] },
      {
        role: "user",
        content: [
          { type: "text", text: "[Request interrupted by user]" },
          { type: "text", text: "Go on" },
        ],
      },
    ]);
    expect(await agent.end()).toBe(0);
  });

  test("cancel and the next prompt sent together while a command runs: the next prompt waits its turn", async () => {
    // What an editor sends when the user types mid-turn. The new prompt was refused ("a prompt is
    // already running") in the few milliseconds the cancelled command took to end.
    const server = await startServer([
      reply().tool("Bash", { command: "touch started; sleep 30" }),
      reply().text("Fresh answer."),
    ]);
    const dir = workspace();
    const agent = startAgent(dir, { server });
    const sessionId = await session(agent, dir);
    agent.client.answer = select("allow_once");
    const first = agent.connection.prompt(textPrompt(sessionId, "Wait a while"));
    await until(() => existsSync(join(dir, "started")));
    await agent.connection.cancel({ sessionId }); // written before the prompt, as an editor does
    const second = agent.connection.prompt(textPrompt(sessionId, "Something else"));
    expect(await first).toEqual({ stopReason: "cancelled" });
    expect(await second).toEqual({ stopReason: "end_turn" });
    expect(agent.client.text("agent_message_chunk")).toBe("Fresh answer.");
    // The cancelled command keeps its result, followed by the reference's note for tool use.
    expect(sentMessages(server, 1).at(-2)).toMatchObject({
      role: "user",
      content: [
        { type: "tool_result", is_error: true },
        { type: "text", text: "[Request interrupted by user for tool use]" },
      ],
    });
    expect(sentMessages(server, 1).at(-1)).toEqual({ role: "user", content: "Something else" });
    expect(await agent.end()).toBe(0);
  });

  test("cancel while a permission request is open: the call does not run and the prompt resolves cancelled", async () => {
    const server = await startServer([reply().tool("Bash", { command: "touch marker" })]);
    const dir = workspace();
    const agent = startAgent(dir, { server });
    const sessionId = await session(agent, dir);
    // The editor cancels instead of answering, then answers the open request with `cancelled` (ACP).
    agent.client.answer = () => {
      void agent.connection.cancel({ sessionId });
      return { outcome: { outcome: "cancelled" } };
    };
    const response = await agent.connection.prompt(textPrompt(sessionId, "Touch the marker"));
    expect(response.stopReason).toBe("cancelled");
    expect(existsSync(join(dir, "marker"))).toBe(false);
    expect(server.requests).toHaveLength(1);
  });
});
