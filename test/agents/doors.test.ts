/**
 * Custom commands through the other doors: ACP (`cairn acp`, `available_commands_update`) and the
 * agent-SDK CLI protocol (the official SDK driving cairn: `supportedCommands()`, `system/init`).
 */
import { query as referenceQuery } from "@anthropic-ai/claude-agent-sdk";
import { afterEach, describe, expect, test } from "vitest";
import { query } from "../../src/index.js";
import { reply, type ScriptedServer } from "../../src/testing/index.js";
import { initialize, startAgent, textPrompt, until } from "../acp/helpers.js";
import { startServer, workspace } from "../conformance/pm/helpers.js";
import { throughCairn } from "../protocols/agent-sdk.helpers.js";
import { cleanUp, collect as collectSdk, envFor } from "../sdk/helpers.js";

afterEach(cleanUp);

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

describe("local plugins", () => {
  const plugin = () =>
    workspace({
      ".claude-plugin/plugin.json": JSON.stringify({ name: "kit", version: "1.2.0" }),
      "commands/hello.md": "---\ndescription: Greet\n---\nSay hello to $ARGUMENTS.\n",
      "skills/lint/SKILL.md": "---\ndescription: Lint the code\n---\nRun the linter.\n",
      "hooks/hooks.json": "{}",
    });

  test("the SDK's plugins option loads a plugin's commands and skills as <plugin>:<name>", async () => {
    const dir = plugin();
    const server = await startServer([reply().text("ok")]);
    const messages = await collectSdk(
      query({
        prompt: "/kit:hello Ada",
        options: { cwd: workspace(), env: envFor(server), plugins: [{ type: "local", path: dir }] },
      }),
    );
    const init = messages.find((message) => message.type === "system" && message.subtype === "init");
    expect(init).toMatchObject({
      plugins: [{ name: "kit", path: dir }],
      slash_commands: ["compact", "kit:lint", "kit:hello"],
      skills: ["kit:lint"],
    });
    expect(firstPrompt(server)).toContain("Say hello to Ada.");
    const notes = JSON.stringify(messages.filter((message) => message.type === "system"));
    expect(notes).toMatch(/plugin kit .*not applied: hooks/);
  });

  test("the official SDK passes plugins as --plugin-dir; cairn loads them", async () => {
    const dir = plugin();
    const server = await startServer([reply().text("ok")]);
    const q = referenceQuery({
      prompt: "/kit:hello Grace",
      options: { ...throughCairn(server, workspace()), plugins: [{ type: "local", path: dir }] },
    });
    let plugins: unknown;
    for await (const message of q) {
      if (message.type === "system" && message.subtype === "init") plugins = message.plugins;
    }
    expect(plugins).toEqual([{ name: "kit", path: dir }]);
    expect(firstPrompt(server)).toContain("Say hello to Grace.");
  });
});
