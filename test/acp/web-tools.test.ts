import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { reply } from "../../src/testing/index.js";
import { serverEnv, startServer, workspace } from "../conformance/pm/helpers.js";
import { closeWebServers, startWebSite } from "../helpers/web-servers.js";
import { initialize, startAgent, textPrompt } from "./helpers.js";

afterEach(closeWebServers);

describe("cairn acp: the web tools", () => {
  test("a WebFetch is asked about as a fetch of its URL, then runs as a fetch tool call with the page's text", async () => {
    const site = await startWebSite();
    const url = `${site.url}/notes.txt`;
    const server = await startServer([
      reply().tool("WebFetch", { url, prompt: "Count the stones" }, "toolu_web"),
      reply().text("42 stones."),
    ]);
    const dir = workspace();
    const agent = startAgent(dir, { server });
    agent.client.answer = () => ({ outcome: { outcome: "selected", optionId: "allow_once" } });
    await initialize(agent);
    const { sessionId } = await agent.connection.newSession({ cwd: dir, mcpServers: [] });
    const response = await agent.connection.prompt(textPrompt(sessionId, "How many stones?"));
    expect(response.stopReason).toBe("end_turn");

    const [asked] = agent.client.permissionRequests;
    expect(asked?.toolCall).toMatchObject({ toolCallId: "toolu_web", title: `Fetch ${url}`, kind: "fetch" });
    const [call] = agent.client.updates("tool_call");
    expect(call).toMatchObject({ toolCallId: "toolu_web", kind: "fetch", title: `Fetch ${url}` });
    const update = agent.client.updates("tool_call_update").find((u) => u.status === "completed");
    const content = update?.content?.[0];
    expect(content?.type === "content" && content.content.type === "text" && content.content.text).toContain(
      "plain notes: stones 42",
    );
    expect(agent.client.text("agent_message_chunk")).toBe("42 stones.");
  });

  test("a search the provider ran (Anthropic's web_search server tool) is a completed fetch tool call listing its results", async () => {
    const server = await startServer([
      reply()
        .webSearch(
          "cairn building",
          [{ url: "https://stones.example.org/cairns", title: "Cairns of the north" }],
          "srvtoolu_search",
        )
        .text("Cairns are stacked stones."),
    ]);
    // WebSearch allowed by a rule: the provider's search is offered (it cannot be asked about per call).
    const home = mkdtempSync(join(tmpdir(), "cairn-home-"));
    writeFileSync(join(home, "config.json"), JSON.stringify({ permissions: { allow: ["WebSearch"] } }));
    const dir = workspace();
    const agent = startAgent(dir, { env: { ...serverEnv(server), CAIRN_HOME: home } });
    await initialize(agent);
    const { sessionId } = await agent.connection.newSession({ cwd: dir, mcpServers: [] });
    const response = await agent.connection.prompt(textPrompt(sessionId, "What are cairns?"));
    expect(response.stopReason).toBe("end_turn");
    expect(server.requests[0]?.body).toMatchObject({
      tools: expect.arrayContaining([{ type: "web_search_20250305", name: "web_search" }]),
    });

    expect(agent.client.permissionRequests).toEqual([]);
    const [call] = agent.client.updates("tool_call");
    expect(call).toMatchObject({
      toolCallId: "srvtoolu_search",
      kind: "fetch",
      title: 'Search the web for "cairn building"',
    });
    const update = agent.client.updates("tool_call_update").find((u) => u.status === "completed");
    expect(update?.toolCallId).toBe("srvtoolu_search");
    expect(JSON.stringify(update?.content)).toContain(
      "[Cairns of the north](https://stones.example.org/cairns)",
    );
    expect(agent.client.text("agent_message_chunk")).toBe("Cairns are stacked stones.");
  });
});
