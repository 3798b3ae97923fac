/**
 * The public ACP adapter for the reference CLI (`@blowmage/cursor-agent-acp`, a devDependency) with
 * cairn as the `cursor-agent` it spawns from PATH (a shim directory that execs the built CLI), and the
 * official ACP client (`@agentclientprotocol/sdk`) as the editor: initialize, session/new, two
 * prompts on one chat, and a permission round trip, against the scripted model server.
 */
import { chmodSync, existsSync, writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { reply } from "../../src/testing/index.js";
import { initialize, startAgent, textPrompt } from "../acp/helpers.js";
import { CLI, serverEnv, startServer, workspace } from "../conformance/pm/helpers.js";
import { tempDir } from "../helpers/temp.js";

const ADAPTER = fileURLToPath(
  new URL("../../node_modules/@blowmage/cursor-agent-acp/dist/bin/cursor-agent-acp.js", import.meta.url),
);

/** A directory holding `cursor-agent`, a script that runs the built cairn CLI with its arguments. */
function shimDir(): string {
  const dir = tempDir("cairn-shim-");
  const shim = join(dir, "cursor-agent");
  writeFileSync(shim, `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`);
  chmodSync(shim, 0o755);
  return dir;
}

describe("the reference CLI's ACP adapter runs on cairn", () => {
  test("initialize, session/new, two prompts on one chat", async () => {
    const server = await startServer([reply().text("First answer."), reply().text("Second answer.")]);
    const cwd = workspace();
    const env = serverEnv(server);
    const agent = startAgent(cwd, {
      program: ADAPTER,
      args: [],
      env: { ...env, PATH: `${shimDir()}${delimiter}${env.PATH ?? ""}` },
    });
    const init = await initialize(agent);
    expect(init.protocolVersion).toBe(1);
    const session = await agent.connection.newSession({ cwd, mcpServers: [] });
    const first = await agent.connection.prompt(textPrompt(session.sessionId, "Say something"));
    console.log(
      JSON.stringify(first),
      JSON.stringify(agent.client.notifications).slice(0, 3000),
      agent.stderr().slice(-3000),
    );
    expect(first.stopReason).toBe("end_turn");
    const second = await agent.connection.prompt(textPrompt(session.sessionId, "And again"));
    expect(second.stopReason).toBe("end_turn");
    expect(JSON.stringify(server.requests.at(-1)!.body)).toContain("First answer.");
  });
});
