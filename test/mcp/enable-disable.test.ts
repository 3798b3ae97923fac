import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { cleanEnv, spawnCli, workspace } from "../conformance/pm/helpers.js";
import { tempDir } from "../helpers/temp.js";
import { FIXTURE, mcpConfig, stdioServer } from "./helpers.js";

/**
 * `cairn mcp enable|disable <server>` as the reference CLI has them: the approval of a project MCP
 * server, kept in the user config's `mcpApprovals`, so runs in that workspace start it.
 */
describe("cairn mcp enable / disable", () => {
  test("enable approves a project server for this workspace, disable withdraws it; other keys stay", async () => {
    const dir = workspace({ ".mcp.json": mcpConfig({ fixture: stdioServer(FIXTURE) }) });
    const home = tempDir("cairn-home-");
    writeFileSync(join(home, "config.json"), JSON.stringify({ model: "sonnet" }));
    const env = cleanEnv({ CAIRN_HOME: home });
    const run = async (args: string[]) => {
      const cli = spawnCli(args, { cwd: dir, env });
      const { code } = await cli.exited;
      return { code, ...cli.out };
    };
    const status = async () =>
      (
        JSON.parse((await run(["mcp", "list", "--json", "--sandbox", "disabled"])).stdout) as {
          status: string;
        }[]
      )[0]!.status;

    expect(await status()).toBe("disabled");
    const enabled = await run(["mcp", "enable", "fixture"]);
    expect(enabled.code).toBe(0);
    expect(enabled.stdout).toContain(`MCP server fixture (${join(dir, ".mcp.json")}) is approved for ${dir}`);
    const file = join(home, "config.json");
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({
      model: "sonnet",
      mcpApprovals: { [dir]: ["fixture"] },
    });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(await status()).toBe("connected");

    expect((await run(["mcp", "disable", "fixture"])).code).toBe(0);
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ model: "sonnet", mcpApprovals: {} });
    expect(await status()).toBe("disabled");
  });

  test("an unknown server, or one from a user file, is a one-line usage error (exit 2)", async () => {
    const dir = workspace();
    const home = tempDir("cairn-home-");
    writeFileSync(join(home, "config.json"), mcpConfig({ mine: stdioServer(FIXTURE) }));
    const env = cleanEnv({ CAIRN_HOME: home });
    const unknown = spawnCli(["mcp", "enable", "nope"], { cwd: dir, env });
    expect((await unknown.exited).code).toBe(2);
    expect(unknown.out.stderr).toBe(
      "cairn: no MCP server named nope here; cairn mcp list shows the configured ones\n",
    );
    const user = spawnCli(["mcp", "disable", "mine"], { cwd: dir, env });
    expect((await user.exited).code).toBe(2);
    expect(user.out.stderr).toMatch(
      /^cairn: MCP server mine is configured in .*config\.json, a user file: it needs no approval/,
    );
  });
});
