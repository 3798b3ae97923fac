import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { reply } from "../../src/testing/index.js";
import { cleanEnv, spawnCli, startServer, workspace } from "../conformance/pm/helpers.js";
import { initialize, startAgent, textPrompt } from "./helpers.js";

describe("cairn acp: session/load", () => {
  test("a session of an earlier agent process is replayed as updates, then continues with its history", async () => {
    const server = await startServer([
      reply().tool("Read", { file_path: "notes.txt" }, "toolu_read"),
      reply().text("The notes say alpha."),
      reply().text("You asked about the notes."),
    ]);
    const dir = workspace({ "notes.txt": "alpha\n" });
    const first = startAgent(dir, { server });
    await initialize(first);
    const { sessionId } = await first.connection.newSession({ cwd: dir, mcpServers: [] });
    await first.connection.prompt(textPrompt(sessionId, "What do the notes say?"));
    expect(await first.end()).toBe(0);

    const second = startAgent(dir, { server });
    await initialize(second);
    const loaded = await second.connection.loadSession({ sessionId, cwd: dir, mcpServers: [] });
    expect(loaded.modes?.currentModeId).toBe("default");
    // Replayed before the response, in conversation order.
    expect(second.client.updates().map((update) => update.sessionUpdate)).toEqual([
      "user_message_chunk",
      "tool_call",
      "tool_call_update",
      "agent_message_chunk",
    ]);
    expect(second.client.text("user_message_chunk")).toBe("What do the notes say?");
    expect(second.client.text("agent_message_chunk")).toBe("The notes say alpha.");
    expect(second.client.updates("tool_call")[0]).toMatchObject({
      toolCallId: "toolu_read",
      kind: "read",
      locations: [{ path: join(dir, "notes.txt") }],
    });
    expect(second.client.updates("tool_call_update")[0]).toMatchObject({
      toolCallId: "toolu_read",
      status: "completed",
    });
    expect(JSON.stringify(second.client.updates("tool_call_update")[0]?.content)).toContain("alpha");

    second.client.clear();
    const response = await second.connection.prompt(textPrompt(sessionId, "What did I ask?"));
    expect(response.stopReason).toBe("end_turn");
    const sent = JSON.stringify(server.requests[2]!.body);
    expect(sent).toContain("What do the notes say?");
    expect(sent).toContain("The notes say alpha.");
    expect(second.client.text("agent_message_chunk")).toBe("You asked about the notes.");
    expect(await second.end()).toBe(0);
  });

  test("loading an unknown session is invalid params naming it", async () => {
    const server = await startServer([]);
    const dir = workspace();
    const agent = startAgent(dir, { server });
    await initialize(agent);
    const sessionId = "00000000-0000-4000-8000-000000000000";
    await expect(agent.connection.loadSession({ sessionId, cwd: dir, mcpServers: [] })).rejects.toMatchObject(
      {
        code: -32602,
        message: expect.stringContaining(sessionId),
      },
    );
  });
});

describe("cairn acp: authentication", () => {
  test("with no provider configured, initialize offers a method explaining it and session/new is auth_required", async () => {
    const dir = workspace();
    const agent = startAgent(dir, { env: cleanEnv(), args: [] });
    const response = await initialize(agent);
    expect(response.authMethods).toHaveLength(1);
    expect(response.authMethods?.[0]?.description).toContain("No model configured");
    await expect(agent.connection.newSession({ cwd: dir, mcpServers: [] })).rejects.toMatchObject({
      code: -32000,
      message: expect.stringContaining("ANTHROPIC_API_KEY"),
    });
    await expect(agent.connection.authenticate({ methodId: "provider" })).rejects.toMatchObject({
      code: -32000,
    });
    expect(await agent.end()).toBe(0);
  });

  test("a model that needs a missing key names the variable to set", async () => {
    const dir = workspace();
    const agent = startAgent(dir, { env: cleanEnv(), args: ["--model", "openai/gpt-5.6-terra"] });
    await initialize(agent);
    await expect(agent.connection.newSession({ cwd: dir, mcpServers: [] })).rejects.toMatchObject({
      code: -32000,
      message: expect.stringContaining("OPENAI_API_KEY"),
    });
  });
});

describe("cairn acp: the command line", () => {
  test("an unknown argument is a usage error (exit 2) with nothing on stdout", async () => {
    const { exited, out } = spawnCli(["acp", "--verbose"], { cwd: workspace(), env: cleanEnv() });
    expect((await exited).code).toBe(2);
    expect(out.stdout).toBe("");
    expect(out.stderr).toContain("Usage: cairn acp");
  });
});
