import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { reply } from "../../src/testing/index.js";
import { MODEL, serverEnv, spawnCli, startServer, workspace } from "../conformance/pm/helpers.js";
import { tempDir } from "../helpers/temp.js";

/** A user-level cli-config.json of the reference CLI that allows `touch`, in `dir`. */
function allowTouchIn(dir: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "cli-config.json"),
    JSON.stringify({ version: 1, permissions: { allow: ["Shell(touch)"], deny: [] } }),
  );
}

/**
 * The reference CLI's environment for its user config file, `cli-config.json`: `CURSOR_CONFIG_DIR`,
 * else `~/.cursor/`, else `$XDG_CONFIG_HOME/cursor/` (docs/config.md). Its permission rules apply.
 */
describe("CURSOR_CONFIG_DIR and XDG_CONFIG_HOME", () => {
  async function touchRun(env: NodeJS.ProcessEnv): Promise<boolean> {
    const server = await startServer([
      reply().tool("Bash", { command: "touch marker" }),
      reply().text("Done."),
    ]);
    const cwd = workspace();
    const cli = spawnCli(["-p", "touch it", "--model", MODEL, "--sandbox", "disabled"], {
      cwd,
      env: { ...serverEnv(server), ...env },
    });
    expect((await cli.exited).code).toBe(0);
    return existsSync(join(cwd, "marker"));
  }

  test("CURSOR_CONFIG_DIR/cli-config.json: its allow rule lets the command run", async () => {
    const dir = tempDir("cairn-cursor-");
    expect(await touchRun({ CURSOR_CONFIG_DIR: dir })).toBe(false);
    allowTouchIn(dir);
    expect(await touchRun({ CURSOR_CONFIG_DIR: dir })).toBe(true);
  });

  test("without CURSOR_CONFIG_DIR and ~/.cursor/cli-config.json: $XDG_CONFIG_HOME/cursor/cli-config.json", async () => {
    const home = tempDir("cairn-home-");
    const xdg = tempDir("cairn-xdg-");
    allowTouchIn(join(xdg, "cursor"));
    const env = { HOME: home, XDG_CONFIG_HOME: xdg, CURSOR_CONFIG_DIR: "" };
    expect(await touchRun(env)).toBe(true);
    // ~/.cursor/cli-config.json, when there is one, wins over XDG (it allows nothing here).
    mkdirSync(join(home, ".cursor"));
    writeFileSync(
      join(home, ".cursor", "cli-config.json"),
      JSON.stringify({ version: 1, permissions: { allow: [], deny: [] } }),
    );
    expect(await touchRun(env)).toBe(false);
  });
});
