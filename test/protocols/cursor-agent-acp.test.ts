/**
 * The public ACP adapter for the reference CLI (`@blowmage/cursor-agent-acp` 0.7.1, a devDependency)
 * with cairn as the `cursor-agent` it spawns from PATH (a shim directory whose `cursor-agent` execs the
 * built CLI), and the official ACP client (`@agentclientprotocol/sdk`) as the editor, against the
 * scripted model server. The adapter calls `--version`, `status` (it looks for "Logged in as"),
 * `models` (`<id> - <name>` lines), `create-chat` (the chat id is the last line) and then, per
 * prompt, `--resume <chat> --model <id> --print --output-format json --force <prompt>`.
 *
 * Permissions: this adapter version never sends `session/request_permission` to the editor (its
 * permission handler is not wired to the prompt path) and always passes `--force`, so what cairn
 * can do is keep the user's deny rules, which hold under `--force`; the second test checks that.
 */
import { chmodSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { reply, type StepInput } from "../../src/testing/index.js";
import { initialize, promptEndsWith, startAgent } from "../acp/helpers.js";
import { CLI, serverEnv, startServer, workspace } from "../conformance/pm/helpers.js";
import { tempDir } from "../helpers/temp.js";

const ADAPTER = fileURLToPath(
  new URL("../../node_modules/@blowmage/cursor-agent-acp/dist/bin/cursor-agent-acp.js", import.meta.url),
);

/** A directory holding `cursor-agent`: a script that runs the built cairn CLI with its arguments. */
function shimDir(): string {
  const dir = tempDir("cairn-shim-");
  const shim = join(dir, "cursor-agent");
  writeFileSync(shim, `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`);
  chmodSync(shim, 0o755);
  return dir;
}

async function adapterOnCairn(steps: StepInput[], files: Record<string, string> = {}) {
  const server = await startServer(steps);
  const cwd = workspace(files);
  const env = serverEnv(server);
  const agent = startAgent(cwd, {
    program: ADAPTER,
    args: [],
    env: { ...env, PATH: `${shimDir()}${delimiter}${env.PATH ?? ""}` },
  });
  return { server, cwd, agent };
}

describe("the reference CLI's ACP adapter runs on cairn", () => {
  test("initialize, session/new (cairn's models offered), two prompts on one chat", {
    timeout: 60_000,
  }, async () => {
    const { server, cwd, agent } = await adapterOnCairn([
      reply().text("First answer."),
      reply().text("Second answer."),
    ]);
    const init = await initialize(agent);
    expect(init.protocolVersion).toBe(1);
    const session = await agent.connection.newSession({ cwd, mcpServers: [] });
    // The adapter read `cairn models`: every listed id is offered to the editor, auto first.
    // (`models` is an unstable part of the protocol, absent from the SDK's NewSessionResponse type.)
    const { models } = session as { models?: { availableModels: { modelId: string }[] } };
    const offered = (models?.availableModels ?? []).map((model) => model.modelId);
    expect(offered[0]).toBe("auto");
    expect(offered).toContain("claude-sonnet-5-5");
    expect(agent.stderr()).toContain("Cursor CLI authenticated");
    // create-chat ran, and asked no model.
    expect(server.requests).toHaveLength(0);

    await promptEndsWith(agent, session.sessionId, "Say something", "First answer.");
    await promptEndsWith(agent, session.sessionId, "And again", "Second answer.");
    // One chat: the second prompt's request carries the first prompt and its answer.
    const sent = JSON.stringify(server.requests.at(-1)!.body);
    expect(sent).toContain("Say something");
    expect(sent).toContain("First answer.");
  });

  test("the user's deny rule holds under the adapter's --force: the call is refused, the prompt ends normally", {
    timeout: 60_000,
  }, async () => {
    const { server, cwd, agent } = await adapterOnCairn(
      [reply().tool("Bash", { command: "rm -f keep.txt" }), reply().text("I was not allowed to.")],
      { "keep.txt": "precious\n" },
    );
    mkdirSync(join(cwd, ".cursor"));
    writeFileSync(
      join(cwd, ".cursor", "cli.json"),
      JSON.stringify({ permissions: { allow: [], deny: ["Shell(rm)"] } }),
    );
    await initialize(agent);
    const session = await agent.connection.newSession({ cwd, mcpServers: [] });
    await promptEndsWith(agent, session.sessionId, "Delete keep.txt", "I was not allowed to.");
    expect(existsSync(join(cwd, "keep.txt"))).toBe(true);
    // The model was told why, and the adapter (0.7.1) asked the editor nothing.
    expect(JSON.stringify(server.requests[1]!.body)).toMatch(/denied/);
    expect(agent.client.permissionRequests).toEqual([]);
  });
});
