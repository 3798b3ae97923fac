import { query } from "@anthropic-ai/claude-agent-sdk";
import { afterEach, describe, expect, test } from "vitest";
import { reply, type ScriptedServer, startScriptedServer } from "../../src/testing/index.js";
import { throughCairn } from "../protocols/agent-sdk.helpers.js";
import { cleanUp, workspace } from "../sdk/helpers.js";
import { byAsker, toolNames } from "./helpers.js";

/**
 * The official agent SDK driving cairn as its CLI (docs/protocols.md) with `agents`: they arrive in
 * `initialize`, run through the same run assembly, and come back as the SDK's messages.
 */
const servers: ScriptedServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
  await cleanUp();
});

type Message = { type: string; subtype?: string; parent_tool_use_id?: string | null } & Record<
  string,
  unknown
>;

describe("subagents through the agent-SDK CLI protocol", () => {
  test("the official SDK's agents option: the subagent runs with its tools; its messages name the Agent call", async () => {
    const script = byAsker([
      {
        marker: "REVIEWER",
        steps: [reply().tool("Read", { file_path: "a.txt" }, "toolu_r1"), reply().text("Says hello.")],
      },
      {
        // The SDK sends an empty system prompt when the program sets none: the parent is the rest.
        marker: "",
        steps: [
          reply().tool(
            "Task",
            { description: "Review", prompt: "Review a.txt", subagent_type: "reviewer" },
            "toolu_p1",
          ),
          reply().text("Reviewed."),
        ],
      },
    ]);
    const server = await startScriptedServer({ respond: script.respond });
    servers.push(server);
    const messages: Message[] = [];
    const q = query({
      prompt: "Review a.txt",
      options: {
        ...throughCairn(server, workspace({ "a.txt": "hello\n" })),
        agents: { reviewer: { description: "Reviews.", prompt: "You are the REVIEWER.", tools: ["Read"] } },
      },
    });
    expect((await q.supportedAgents()).map((agent) => agent.name)).toContain("reviewer");
    for await (const message of q) messages.push(message as unknown as Message);
    expect(messages.find((m) => m.type === "result")).toMatchObject({
      subtype: "success",
      result: "Reviewed.",
    });
    expect(toolNames(script.requests.get("REVIEWER")![0]!)).toEqual(["Read"]);
    const inner = messages.filter(
      (m) => (m.type === "assistant" || m.type === "user") && m.parent_tool_use_id,
    );
    expect(inner.map((m) => [m.type, m.parent_tool_use_id])).toEqual([
      ["assistant", "toolu_p1"],
      ["user", "toolu_p1"],
    ]);
    expect(messages.filter((m) => m.subtype === "task_notification")).toMatchObject([
      { tool_use_id: "toolu_p1", status: "completed", summary: "Says hello." },
    ]);
  });
});
