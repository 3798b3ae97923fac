import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { httpError, reply } from "../../src/testing/index.js";
import { MODEL, startServer, workspace } from "../conformance/pm/helpers.js";
import { userTexts } from "../helpers/user-texts.js";
import { FIXTURE } from "../mcp/helpers.js";
import { initialize, startAgent, textPrompt } from "./helpers.js";

describe("cairn acp: initialize and sessions", () => {
  test("initialize advertises sessions that load, prompts with images and embedded context, MCP over http and sse, no auth", async () => {
    const server = await startServer([]);
    const agent = startAgent(workspace(), { server });
    const response = await initialize(agent);
    expect(response.protocolVersion).toBe(1);
    expect(response.agentCapabilities).toMatchObject({
      loadSession: true,
      promptCapabilities: { image: true, audio: false, embeddedContext: true },
      mcpCapabilities: { http: true, sse: true },
    });
    expect(response.authMethods).toEqual([]);
    expect(await agent.end()).toBe(0);
  });

  test("two prompts in one session: streamed thought and message chunks, end_turn, one continuing conversation", async () => {
    const server = await startServer([
      reply().thinking("Weighing the greeting.").text("Hello from cairn."),
      reply().text("Still here."),
    ]);
    const dir = workspace();
    const agent = startAgent(dir, { server });
    await initialize(agent);
    const { sessionId, modes } = await agent.connection.newSession({ cwd: dir, mcpServers: [] });
    expect(modes?.currentModeId).toBe("default");
    expect(modes?.availableModes.map((mode: { id: string }) => mode.id)).toEqual([
      "default",
      "acceptEdits",
      "plan",
      "bypassPermissions",
    ]);

    const first = await agent.connection.prompt(textPrompt(sessionId, "Say hello"));
    expect(first.stopReason).toBe("end_turn");
    expect(agent.client.text("agent_thought_chunk")).toBe("Weighing the greeting.");
    expect(agent.client.text("agent_message_chunk")).toBe("Hello from cairn.");
    // Streamed: the message arrived in more than one chunk (the server cuts deltas at 16 characters).
    expect(agent.client.updates("agent_message_chunk").length).toBeGreaterThan(1);
    expect(agent.client.notifications.every((notification) => notification.sessionId === sessionId)).toBe(
      true,
    );

    agent.client.clear();
    const second = await agent.connection.prompt(textPrompt(sessionId, "Are you there?"));
    expect(second.stopReason).toBe("end_turn");
    expect(agent.client.text("agent_message_chunk")).toBe("Still here.");
    expect(userTexts(server.requests[1]!.body)).toEqual(["Say hello", "Are you there?"]);
    expect(await agent.end()).toBe(0);
  });

  test("an embedded resource reaches the model inside a context element naming its URI", async () => {
    const server = await startServer([reply().text("Seen.")]);
    const dir = workspace();
    const agent = startAgent(dir, { server });
    await initialize(agent);
    const { sessionId } = await agent.connection.newSession({ cwd: dir, mcpServers: [] });
    await agent.connection.prompt({
      sessionId,
      prompt: [
        { type: "text", text: "Look at this" },
        { type: "resource", resource: { uri: "file:///tmp/a.ts", text: "const a = 1;" } },
      ],
    });
    expect(userTexts(server.requests[0]!.body).join("\n")).toContain(
      '<context ref="file:///tmp/a.ts">\nconst a = 1;\n</context>',
    );
  });

  test("an image and an embedded PDF reach the model as image and document blocks", async () => {
    const server = await startServer([reply().text("Seen.")]);
    const dir = workspace();
    const agent = startAgent(dir, { server });
    await initialize(agent);
    const { sessionId } = await agent.connection.newSession({ cwd: dir, mcpServers: [] });
    await agent.connection.prompt({
      sessionId,
      prompt: [
        { type: "text", text: "What is in these?" },
        { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
        {
          type: "resource",
          resource: { uri: "file:///tmp/spec.pdf", blob: "JVBERi0=", mimeType: "application/pdf" },
        },
      ],
    });
    expect(server.requests[0]!.media).toEqual([
      { kind: "image", mediaType: "image/png", data: "iVBORw0KGgo=", in: "prompt" },
      { kind: "document", mediaType: "application/pdf", data: "JVBERi0=", in: "prompt" },
    ]);
    expect(await agent.end()).toBe(0);
  });

  test("an audio block is refused with invalid params (audio is not advertised)", async () => {
    const server = await startServer([]);
    const dir = workspace();
    const agent = startAgent(dir, { server });
    await initialize(agent);
    const { sessionId } = await agent.connection.newSession({ cwd: dir, mcpServers: [] });
    await expect(
      agent.connection.prompt({
        sessionId,
        prompt: [{ type: "audio", data: "AAAA", mimeType: "audio/wav" }],
      }),
    ).rejects.toMatchObject({ code: -32602, message: expect.stringContaining("audio") });
    expect(server.requests).toHaveLength(0);
  });

  test("--max-turns ends a prompt that needs more model calls with max_turn_requests", async () => {
    const server = await startServer([
      reply().tool("Read", { file_path: "notes.txt" }),
      reply().text("never sent"),
    ]);
    const dir = workspace({ "notes.txt": "alpha\n" });
    const agent = startAgent(dir, { server, args: ["--model", MODEL, "--max-turns", "1"] });
    await initialize(agent);
    const { sessionId } = await agent.connection.newSession({ cwd: dir, mcpServers: [] });
    expect(await agent.connection.prompt(textPrompt(sessionId, "Read on"))).toEqual({
      stopReason: "max_turn_requests",
    });
    expect(server.requests).toHaveLength(1);
  });

  test("a turn the provider fails is an error naming the cause; the session takes the next prompt", async () => {
    const server = await startServer([
      httpError(400, { message: "prompt is too long" }),
      reply().text("Fine now."),
    ]);
    const dir = workspace();
    const agent = startAgent(dir, { server });
    await initialize(agent);
    const { sessionId } = await agent.connection.newSession({ cwd: dir, mcpServers: [] });
    await expect(agent.connection.prompt(textPrompt(sessionId, "Too much"))).rejects.toMatchObject({
      code: -32603,
      message: expect.stringContaining("prompt is too long"),
    });
    expect(await agent.connection.prompt(textPrompt(sessionId, "Again"))).toEqual({ stopReason: "end_turn" });
    expect(agent.client.text("agent_message_chunk")).toBe("Fine now.");
  });

  test("additionalDirectories are part of the workspace: a Read there does not ask", async () => {
    const extra = workspace({ "shared.txt": "from the other root\n" });
    const server = await startServer([
      reply().tool("Read", { file_path: join(extra, "shared.txt") }),
      reply().text("Read it."),
    ]);
    const dir = workspace();
    const agent = startAgent(dir, { server });
    const { agentCapabilities } = await initialize(agent);
    expect(agentCapabilities?.sessionCapabilities).toMatchObject({ additionalDirectories: {}, close: {} });
    const { sessionId } = await agent.connection.newSession({
      cwd: dir,
      mcpServers: [],
      additionalDirectories: [extra],
    });
    await agent.connection.prompt(textPrompt(sessionId, "Read the shared file"));
    expect(agent.client.permissionRequests).toEqual([]);
    expect(agent.client.updates("tool_call_update")).toMatchObject([{ status: "completed" }]);
    expect(JSON.stringify(agent.client.updates("tool_call_update"))).toContain("from the other root");
  });

  test("session/close ends a session: a later prompt names the missing session", async () => {
    const server = await startServer([]);
    const dir = workspace();
    const agent = startAgent(dir, { server });
    await initialize(agent);
    const { sessionId } = await agent.connection.newSession({ cwd: dir, mcpServers: [] });
    expect(await agent.connection.closeSession({ sessionId })).toEqual({});
    await expect(agent.connection.prompt(textPrompt(sessionId, "Hello?"))).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining(sessionId),
    });
  });

  test("a relative cwd is refused", async () => {
    const server = await startServer([]);
    const agent = startAgent(workspace(), { server });
    await initialize(agent);
    await expect(agent.connection.newSession({ cwd: "relative/dir", mcpServers: [] })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining("absolute"),
    });
  });
});

describe("cairn acp: tool calls", () => {
  test("a Read is a tool_call (kind read, title, absolute location) then a tool_call_update with its output", async () => {
    const server = await startServer([
      reply().tool("Read", { file_path: "notes.txt" }, "toolu_read"),
      reply().text("It says alpha."),
    ]);
    const dir = workspace({ "notes.txt": "alpha\nbeta\n" });
    const agent = startAgent(dir, { server });
    await initialize(agent);
    const { sessionId } = await agent.connection.newSession({ cwd: dir, mcpServers: [] });
    const response = await agent.connection.prompt(textPrompt(sessionId, "Read the notes"));
    expect(response.stopReason).toBe("end_turn");

    const [call] = agent.client.updates("tool_call");
    expect(call).toMatchObject({
      toolCallId: "toolu_read",
      kind: "read",
      title: "Read notes.txt",
      status: "pending",
      locations: [{ path: join(dir, "notes.txt") }],
      rawInput: { file_path: "notes.txt" },
    });
    const [update] = agent.client.updates("tool_call_update");
    expect(update).toMatchObject({ toolCallId: "toolu_read", status: "completed" });
    const content = update!.content?.[0];
    expect(content?.type === "content" && content.content.type === "text" && content.content.text).toContain(
      "alpha",
    );
    expect(agent.client.text("agent_message_chunk")).toBe("It says alpha.");
  });

  test("Edit and Write calls carry diff content (old and new text) and change the files", async () => {
    const server = await startServer([
      reply()
        .tool("Edit", { file_path: "a.txt", old_string: "one", new_string: "uno" }, "toolu_edit")
        .tool("Write", { file_path: "b.txt", content: "fresh\n" }, "toolu_write")
        .tool("Write", { file_path: "c.txt", content: "replaced\n" }, "toolu_overwrite"),
      reply().text("Edited."),
    ]);
    const dir = workspace({ "a.txt": "one two\n", "c.txt": "original\n" });
    const agent = startAgent(dir, { server });
    await initialize(agent);
    const { sessionId } = await agent.connection.newSession({ cwd: dir, mcpServers: [] });
    await agent.connection.setSessionMode({ sessionId, modeId: "acceptEdits" });
    await agent.connection.prompt(textPrompt(sessionId, "Edit the files"));

    const calls = agent.client.updates("tool_call");
    expect(calls.map((call) => [call.toolCallId, call.kind, call.title])).toEqual([
      ["toolu_edit", "edit", "Edit a.txt"],
      ["toolu_write", "edit", "Write b.txt"],
      ["toolu_overwrite", "edit", "Write c.txt"],
    ]);
    expect(calls.map((call) => call.content)).toEqual([
      [{ type: "diff", path: join(dir, "a.txt"), oldText: "one", newText: "uno" }],
      [{ type: "diff", path: join(dir, "b.txt"), oldText: null, newText: "fresh\n" }],
      [{ type: "diff", path: join(dir, "c.txt"), oldText: "original\n", newText: "replaced\n" }],
    ]);
    const statuses = agent.client
      .updates("tool_call_update")
      .map((update) => [update.toolCallId, update.status]);
    expect(statuses).toEqual([
      ["toolu_edit", "completed"],
      ["toolu_write", "completed"],
      ["toolu_overwrite", "completed"],
    ]);
    expect(readFileSync(join(dir, "a.txt"), "utf8")).toBe("uno two\n");
    expect(readFileSync(join(dir, "b.txt"), "utf8")).toBe("fresh\n");
    expect(agent.client.permissionRequests).toEqual([]);
  });

  test("TodoWrite becomes the session's plan, not a tool call", async () => {
    const todos = [
      { content: "Read the code", status: "completed", activeForm: "Reading the code" },
      { content: "Fix the bug", status: "in_progress", activeForm: "Fixing the bug" },
      { content: "Run the tests", status: "pending", activeForm: "Running the tests" },
    ];
    const server = await startServer([reply().tool("TodoWrite", { todos }), reply().text("Planned.")]);
    const dir = workspace();
    const agent = startAgent(dir, { server });
    await initialize(agent);
    const { sessionId } = await agent.connection.newSession({ cwd: dir, mcpServers: [] });
    await agent.connection.prompt(textPrompt(sessionId, "Plan it"));
    expect(agent.client.updates("plan")).toEqual([
      {
        sessionUpdate: "plan",
        entries: [
          { content: "Read the code", status: "completed", priority: "medium" },
          { content: "Fix the bug", status: "in_progress", priority: "medium" },
          { content: "Run the tests", status: "pending", priority: "medium" },
        ],
      },
    ]);
    expect(agent.client.updates("tool_call")).toEqual([]);
    expect(agent.client.updates("tool_call_update")).toEqual([]);
  });

  test("the client's MCP servers join the session: the model calls a tool of one", async () => {
    const server = await startServer([
      reply().tool("mcp__notes__read_note", {}, "toolu_mcp"),
      reply().text("The note says hello."),
    ]);
    const dir = workspace();
    const agent = startAgent(dir, { server });
    await initialize(agent);
    const { sessionId } = await agent.connection.newSession({
      cwd: dir,
      mcpServers: [
        {
          name: "notes",
          command: process.execPath,
          args: [FIXTURE],
          env: [{ name: "FIXTURE_NOTE", value: "hello" }],
        },
      ],
    });
    const response = await agent.connection.prompt(textPrompt(sessionId, "Read the note"));
    expect(response.stopReason).toBe("end_turn");
    const tools = (server.requests[0]!.body as { tools: { name: string }[] }).tools.map((tool) => tool.name);
    expect(tools).toContain("mcp__notes__read_note");
    expect(agent.client.updates("tool_call")[0]).toMatchObject({ toolCallId: "toolu_mcp", kind: "other" });
    const [update] = agent.client.updates("tool_call_update");
    expect(update?.status).toBe("completed");
    expect(JSON.stringify(update?.content)).toContain("note: hello");
    expect(await agent.end()).toBe(0);
  });
});
