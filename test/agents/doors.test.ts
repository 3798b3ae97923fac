/**
 * Custom commands through the other doors: ACP (`cairn acp`, `available_commands_update`) and the
 * agent-SDK CLI protocol (the official SDK driving cairn: `supportedCommands()`, `system/init`).
 */
import { query as referenceQuery } from "@anthropic-ai/claude-agent-sdk";
import { describe, expect, test } from "vitest";
import { reply, type ScriptedServer } from "../../src/testing/index.js";
import { initialize, startAgent, textPrompt, until } from "../acp/helpers.js";
import { startServer, workspace } from "../conformance/pm/helpers.js";
import { throughCairn } from "../protocols/agent-sdk.helpers.js";

const REVIEW = "---\ndescription: Review one file\nargument-hint: <file>\n---\nReview $1 carefully.\n";

const firstPrompt = (server: ScriptedServer): string =>
  JSON.stringify((server.requests[0]!.body as { messages: { content: unknown }[] }).messages[0]!.content);

describe("custom commands through ACP", () => {
  test("session/new announces the commands; a /name prompt expands", async () => {
    const server = await startServer([reply().text("Reviewed.")]);
    const dir = workspace({ ".claude/commands/review.md": REVIEW });
    const agent = startAgent(dir, { server });
    await initialize(agent);
    const { sessionId } = await agent.connection.newSession({ cwd: dir, mcpServers: [] });
    await until(() => agent.client.updates("available_commands_update").length > 0);
    const [update] = agent.client.updates("available_commands_update");
    expect(update?.availableCommands).toEqual([
      expect.objectContaining({ name: "compact", input: { hint: "[instructions]" } }),
      { name: "review", description: "Review one file (project)", input: { hint: "<file>" } },
    ]);
    const response = await agent.connection.prompt(textPrompt(sessionId, "/review src/a.ts"));
    expect(response.stopReason).toBe("end_turn");
    expect(firstPrompt(server)).toContain("Review src/a.ts carefully.");
    expect(await agent.end()).toBe(0);
  });
});

describe("custom commands through the agent-SDK CLI protocol", () => {
  test("the official SDK's supportedCommands() and system/init list them; the prompt expands", async () => {
    const server = await startServer([reply().text("Reviewed.")]);
    const dir = workspace({ ".claude/commands/review.md": REVIEW });
    const q = referenceQuery({ prompt: "/review src/b.ts", options: throughCairn(server, dir) });
    const commands = await q.supportedCommands();
    expect(commands.map((command) => command.name)).toEqual(["compact", "review"]);
    let slash: string[] | undefined;
    for await (const message of q) {
      if (message.type === "system" && message.subtype === "init") slash = message.slash_commands;
    }
    expect(slash).toEqual(["compact", "review"]);
    expect(firstPrompt(server)).toContain("Review src/b.ts carefully.");
  });
});
