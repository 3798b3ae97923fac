/**
 * Zed's ACP adapter for the agent SDK (`@zed-industries/claude-agent-acp`, a devDependency) with cairn
 * as the CLI it drives (`CLAUDE_CODE_EXECUTABLE`), and the official ACP client
 * (`@agentclientprotocol/sdk`) as the editor: initialize, session/new, two prompts in one session and
 * a permission round trip, all against the scripted model server.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { reply } from "../../src/testing/index.js";
import { initialize, promptEndsWith, startAgent } from "../acp/helpers.js";
import { CLI, serverEnv, startServer, workspace } from "../conformance/pm/helpers.js";

const ADAPTER = fileURLToPath(
  new URL("../../node_modules/@zed-industries/claude-agent-acp/dist/index.js", import.meta.url),
);

describe("Zed's claude-agent-acp adapter runs on cairn", () => {
  test("initialize, session/new, two prompts on one session, a permission round trip", async () => {
    const server = await startServer([
      reply().text("First answer."),
      reply().tool("Bash", { command: "touch approved-marker" }),
      reply().text("Done."),
    ]);
    const cwd = workspace();
    const agent = startAgent(cwd, {
      program: ADAPTER,
      args: [],
      env: { ...serverEnv(server), CLAUDE_CODE_EXECUTABLE: CLI },
    });
    agent.client.answer = (request) => {
      const allow = request.options.find((option) => option.kind === "allow_once") ?? request.options[0]!;
      return { outcome: { outcome: "selected", optionId: allow.optionId } };
    };
    const init = await initialize(agent);
    expect(init.protocolVersion).toBe(1);
    const session = await agent.connection.newSession({ cwd, mcpServers: [] });

    await promptEndsWith(agent, session.sessionId, "Say something", "First answer.");
    await promptEndsWith(agent, session.sessionId, "Touch the marker");
    expect(agent.client.permissionRequests).toHaveLength(1);
    expect(existsSync(join(cwd, "approved-marker"))).toBe(true);
    // Both prompts went to cairn in one conversation: the second request carries the first answer.
    expect(JSON.stringify(server.requests.at(-1)!.body)).toContain("First answer.");
    // The adapter keeps running after its editor goes away (the helper kills it after the test);
    // cairn, its CLI, exits with it.
  });
});
