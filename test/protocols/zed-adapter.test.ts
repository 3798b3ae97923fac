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
import { httpError, reply } from "../../src/testing/index.js";
import { initialize, promptEndsWith, startAgent, textPrompt } from "../acp/helpers.js";
import { CLI, serverEnv, startServer, workspace } from "../conformance/pm/helpers.js";
import { tempDir } from "../helpers/temp.js";

const ADAPTER = fileURLToPath(
  new URL("../../node_modules/@zed-industries/claude-agent-acp/dist/index.js", import.meta.url),
);

/**
 * Node's `--import` of a module that registers test/protocols/sdk-import-hook.mjs: the adapter's
 * `import … from "@anthropic-ai/claude-agent-sdk"` gets cairn's built package (dist/index.js), so
 * the adapter runs cairn's in-process `query()`: no CLI process between them.
 */
function sdkBoundToCairn(): string[] {
  const hook = new URL("./sdk-import-hook.mjs", import.meta.url).href;
  const target = new URL("../../dist/index.js", import.meta.url).href;
  const register = `import { register } from "node:module"; register(${JSON.stringify(hook)}, { data: { target: ${JSON.stringify(target)} } });`;
  return [`--import=data:text/javascript,${encodeURIComponent(register)}`];
}

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

describe("Zed's claude-agent-acp adapter with its agent SDK import bound to cairn (in-process query())", () => {
  test("prompt turns end (the adapter waits for idle after the result), a permission round trip, a failed turn is an error", async () => {
    const server = await startServer([
      reply().text("First answer."),
      reply().tool("Bash", { command: "touch approved-marker" }),
      reply().text("Done."),
      httpError(400, { message: "bad request" }),
    ]);
    const cwd = workspace();
    const agent = startAgent(cwd, {
      program: ADAPTER,
      args: [],
      nodeArgs: sdkBoundToCairn(),
      // The adapter's own settings (~/.claude) from an empty directory: none picks a model.
      env: { ...serverEnv(server), CLAUDE_CONFIG_DIR: tempDir("claude-config-") },
    });
    agent.client.answer = (request) => {
      const allow = request.options.find((option) => option.kind === "allow_once") ?? request.options[0]!;
      return { outcome: { outcome: "selected", optionId: allow.optionId } };
    };
    await initialize(agent);
    const session = await agent.connection.newSession({ cwd, mcpServers: [] });

    // The turn ends: the adapter returns on system/session_state_changed idle, which it asked for
    // with CLAUDE_CODE_EMIT_SESSION_STATE_EVENTS=1 in the query's env.
    await promptEndsWith(agent, session.sessionId, "Say something", "First answer.");
    await promptEndsWith(agent, session.sessionId, "Touch the marker");
    expect(agent.client.permissionRequests).toHaveLength(1);
    expect(existsSync(join(cwd, "approved-marker"))).toBe(true);
    // The adapter takes a result for its prompt's only after the prompt's echo (extraArgs
    // replay-user-messages); without it, it would take this error for a background task's and end
    // the turn normally.
    await expect(agent.connection.prompt(textPrompt(session.sessionId, "Fail please"))).rejects.toMatchObject(
      { message: expect.stringContaining("Internal error") },
    );
    // One conversation, on the configured model: the adapter sets the first model of
    // supportedModels(), which is `default`, on every new session.
    expect(JSON.stringify(server.requests.at(-1)!.body)).toContain("First answer.");
    expect(server.requests.map((request) => (request.body as { model: string }).model)).toEqual(
      Array(server.requests.length).fill("claude-sonnet-5-5"),
    );
  });
});
