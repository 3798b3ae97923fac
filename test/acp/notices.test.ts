import { describe, expect, test } from "vitest";
import { httpError, reply } from "../../src/testing/index.js";
import { startServer, workspace } from "../conformance/pm/helpers.js";
import { startAgent, textPrompt } from "./helpers.js";

/**
 * What is not part of the answer reaches the editor too: ACP projects the session's events, not the
 * SDK's messages, so a retried model call and a compaction are shown — as ACP's `notice` and
 * `compaction_update` when the client says it shows them, else as lines of thought.
 */
describe("cairn acp: notices", () => {
  test("a retried model call is a notice for a client that shows notices", async () => {
    const server = await startServer([httpError(529, { retryAfter: 0.01 }), reply().text("Made it.")]);
    const dir = workspace();
    const agent = startAgent(dir, { server });
    await agent.connection.initialize({
      protocolVersion: 1,
      clientCapabilities: { session: { notices: {} } },
    });
    const { sessionId } = await agent.connection.newSession({ cwd: dir, mcpServers: [] });
    const response = await agent.connection.prompt(textPrompt(sessionId, "Go"));
    expect(response.stopReason).toBe("end_turn");
    const notices = agent.client.updates("notice");
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatchObject({ severity: "warning" });
    expect(notices[0]?.title).toMatch(
      /^The model call failed \(HTTP 529\); retrying in \d+\.\d s \(attempt 2 of \d+\)\.$/,
    );
    expect(agent.client.text("agent_message_chunk")).toBe("Made it.");
    expect(agent.client.text("agent_thought_chunk")).toBe("");
    expect(await agent.end()).toBe(0);
  });

  test("without the notices capability the retry is a line of thought, never part of the answer", async () => {
    const server = await startServer([httpError(529, { retryAfter: 0.01 }), reply().text("Made it.")]);
    const dir = workspace();
    const agent = startAgent(dir, { server });
    await agent.connection.initialize({ protocolVersion: 1, clientCapabilities: {} });
    const { sessionId } = await agent.connection.newSession({ cwd: dir, mcpServers: [] });
    await agent.connection.prompt(textPrompt(sessionId, "Go"));
    expect(agent.client.updates("notice")).toEqual([]);
    expect(agent.client.text("agent_thought_chunk")).toContain("[cairn] The model call failed (HTTP 529)");
    expect(agent.client.text("agent_message_chunk")).toBe("Made it.");
    expect(await agent.end()).toBe(0);
  });

  test("/compact is a compaction the client follows by id: in progress with its summary, then completed", async () => {
    const server = await startServer([
      reply().text("The answer is 42."),
      reply().text("We talked about the answer, 42."),
    ]);
    const dir = workspace();
    const agent = startAgent(dir, { server });
    await agent.connection.initialize({
      protocolVersion: 1,
      clientCapabilities: { session: { compaction: {} } },
    });
    const { sessionId } = await agent.connection.newSession({ cwd: dir, mcpServers: [] });
    await agent.connection.prompt(textPrompt(sessionId, "What is the answer?"));
    agent.client.clear();
    const response = await agent.connection.prompt(textPrompt(sessionId, "/compact"));
    expect(response.stopReason).toBe("end_turn");
    const updates = agent.client.updates("compaction_update");
    expect(updates.map((update) => update.status)).toEqual(["in_progress", "in_progress", "completed"]);
    expect(new Set(updates.map((update) => update.compactionId)).size).toBe(1);
    expect(updates[1]?.summary).toEqual([{ type: "text", text: "We talked about the answer, 42." }]);
    expect(await agent.end()).toBe(0);
  });
});
