import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { ConfigFileError, loadConfig } from "../../src/config/index.js";
import { createPermissionGate } from "../../src/permissions/index.js";
import { reply } from "../../src/testing/index.js";
import { builtinTools } from "../../src/tools/index.js";
import { runCli } from "../conformance/pm/helpers.js";
import { tempDir } from "../helpers/temp.js";

/** A workspace and a home with the given files (paths relative to them). */
function setup(files: { home?: Record<string, unknown>; ws?: Record<string, unknown> }) {
  const base = tempDir("cairn-foreign-");
  const home = path.join(base, "home");
  const ws = path.join(base, "ws");
  for (const [root, entries] of [
    [home, files.home ?? {}],
    [ws, files.ws ?? {}],
  ] as const) {
    for (const [file, value] of Object.entries(entries)) {
      mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
      writeFileSync(path.join(root, file), typeof value === "string" ? value : JSON.stringify(value));
    }
  }
  mkdirSync(ws, { recursive: true });
  return { home, ws, cairnHome: path.join(home, ".cairn"), env: {} };
}

const gateFor = (ws: string, rules: Awaited<ReturnType<typeof loadConfig>>["rules"]) =>
  createPermissionGate({ mode: "acceptEdits", workspace: ws, rules, env: {}, tools: builtinTools() });

describe("the other agents' config files", () => {
  test.each([
    [".claude/settings.json", { permissions: { deny: ["Read(secret.txt)"] } }],
    [".claude/settings.local.json", { permissions: { deny: ["Read(secret.txt)"] } }],
    [".cursor/cli.json", { version: 1, permissions: { allow: [], deny: ["Read(secret.txt)"] } }],
  ])("a deny rule in the project's %s is applied", async (file, content) => {
    const { ws, home, cairnHome, env } = setup({ ws: { [file]: content } });
    const config = await loadConfig({ cwd: ws, home, cairnHome, env });
    expect(gateFor(ws, config.rules).evaluate("Read", { file_path: "secret.txt" })).toMatchObject({
      behavior: "deny",
      message: expect.stringContaining(path.join(ws, file)),
    });
  });

  test("user-level files may allow; ~/.cursor/cli-config.json and ~/.claude/settings.json", async () => {
    const { ws, home, cairnHome, env } = setup({
      home: {
        ".cursor/cli-config.json": {
          version: 1,
          editor: { vimMode: false },
          permissions: { allow: ["Shell(touch)"], deny: ["Read(secret.txt)"] },
        },
        ".claude/settings.json": { permissions: { allow: ["Bash(mkdir:*)"] } },
      },
    });
    const config = await loadConfig({ cwd: ws, home, cairnHome, env });
    const gate = gateFor(ws, config.rules);
    expect(gate.evaluate("Read", { file_path: "secret.txt" }).behavior).toBe("deny");
    expect(gate.evaluate("Bash", { command: "touch x" }).behavior).toBe("allow");
    expect(gate.evaluate("Bash", { command: "mkdir d" }).behavior).toBe("allow");
    // Interface-only keys (version, editor) are documented as not applied, not warned about.
    expect(config.warnings).toEqual([]);
  });

  test("a project file may only restrict: its allow rules and other keys are reported, once each file (hooks are applied: docs/hooks.md)", async () => {
    const { ws, home, cairnHome, env } = setup({
      ws: {
        ".claude/settings.json": {
          permissions: { allow: ["Bash"], deny: ["Bash(rm:*)"], defaultMode: "bypassPermissions" },
          hooks: { PreToolUse: [] },
          model: "opus",
        },
        ".cursor/cli.json": { permissions: { allow: ["Shell(curl)"], deny: [] } },
      },
    });
    const config = await loadConfig({ cwd: ws, home, cairnHome, env });
    const gate = gateFor(ws, config.rules);
    expect(gate.evaluate("Bash", { command: "curl x" }).behavior).toBe("ask");
    expect(gate.evaluate("Bash", { command: "rm x" }).behavior).toBe("deny");
    expect(config.warnings).toEqual([
      expect.stringMatching(
        /\.claude\/settings\.json: not applied: permissions\.allow, permissions\.defaultMode, model \(/,
      ),
      expect.stringMatching(/\.cursor\/cli\.json: not applied: permissions\.allow \(/),
    ]);
  });

  test("Cursor's files from the repository root down to the working directory all count", async () => {
    const { ws, home, cairnHome, env } = setup({
      ws: {
        ".git/HEAD": "ref: refs/heads/main\n",
        ".cursor/cli.json": { permissions: { deny: ["Read(root-secret)"] } },
        "pkg/.cursor/cli.json": { permissions: { deny: ["Read(pkg-secret)"] } },
      },
    });
    const config = await loadConfig({ cwd: path.join(ws, "pkg"), home, cairnHome, env });
    expect(config.rules.map((rule) => rule.text)).toEqual(["Read(root-secret)", "Read(pkg-secret)"]);
  });

  test("a malformed foreign file is an error naming it (its deny rules must not vanish)", async () => {
    const { ws, home, cairnHome, env } = setup({ ws: { ".claude/settings.json": "{ nope" } });
    const error = await loadConfig({ cwd: ws, home, cairnHome, env }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigFileError);
    expect((error as ConfigFileError).file).toBe(path.join(ws, ".claude/settings.json"));
  });

  test.each([
    [".claude/settings.json", "project"],
    [".cursor/cli.json", "project"],
    ["cli-config.json", "user (CURSOR_CONFIG_DIR)"],
  ])("end to end: a Read denied in %s (%s) never reaches the model", async (file, _level) => {
    const base = tempDir("cairn-foreign-cli-");
    const cursorDir = path.join(base, "cursor");
    const deny = { permissions: { allow: [], deny: ["Read(secret.txt)"] } };
    const files: Record<string, string> = { "secret.txt": "TOP-SECRET-VALUE\n" };
    if (file === "cli-config.json") {
      mkdirSync(cursorDir, { recursive: true });
      writeFileSync(path.join(cursorDir, file), JSON.stringify(deny));
    } else files[file] = JSON.stringify(deny);
    const run = await runCli({
      files,
      steps: [reply().tool("Read", { file_path: "secret.txt" }), reply().text("Done.")],
      args: ["--output-format", "stream-json"],
      env: { CURSOR_CONFIG_DIR: cursorDir },
    });
    expect(run.code).toBe(0);
    const sent = JSON.stringify(run.server.requests[1]!.body);
    expect(sent).not.toContain("TOP-SECRET-VALUE");
    expect(sent).toContain("denied by rule Read(secret.txt)");
  });
});
