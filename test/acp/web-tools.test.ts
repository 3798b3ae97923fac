import { afterEach, describe, expect, test } from "vitest";
import { reply } from "../../src/testing/index.js";
import { startServer, workspace } from "../conformance/pm/helpers.js";
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
});
