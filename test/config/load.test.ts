import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { ConfigFileError, loadConfig } from "../../src/config/index.js";
import { createPermissionGate, resolveCairnHome } from "../../src/permissions/index.js";
import { builtinTools } from "../../src/tools/index.js";
import { tempDir } from "../helpers/temp.js";

function setup(user?: unknown, project?: unknown) {
  const base = tempDir("cairn-config-");
  const cairnHome = path.join(base, "home", ".cairn");
  const ws = path.join(base, "ws");
  mkdirSync(cairnHome, { recursive: true });
  mkdirSync(path.join(ws, ".cairn"), { recursive: true });
  const write = (file: string, value: unknown) =>
    writeFileSync(file, typeof value === "string" ? value : JSON.stringify(value));
  if (user !== undefined) write(path.join(cairnHome, "config.json"), user);
  if (project !== undefined) write(path.join(ws, ".cairn", "config.json"), project);
  return { base, cairnHome, ws, home: path.join(base, "home") };
}

describe("config files", () => {
  test("no files: nothing configured", async () => {
    const { ws, cairnHome } = setup();
    const config = await loadConfig({ cwd: ws, cairnHome, env: process.env });
    expect(config.rules).toEqual([]);
    expect(config.files.slice(0, 2)).toEqual([
      { file: path.join(cairnHome, "config.json"), found: false },
      { file: path.join(ws, ".cairn", "config.json"), found: false },
    ]);
    expect(config.warnings).toEqual([]);
  });

  test("user rules in both spellings, mode, extra dirs and the model; unknown keys are named", async () => {
    const { ws, cairnHome, home } = setup({
      permissions: {
        allow: ["Bash(npm run test:*)", "Shell(git)"],
        deny: ["Shell(curl:*)", "Read(.env*)"],
        ask: ["Bash(git push:*)"],
        defaultMode: "acceptEdits",
        additionalDirectories: ["~/shared", "../fixtures"],
      },
      model: "anthropic/claude-sonnet-4-5",
      provider: { baseUrl: "https://example.test" },
    });
    const config = await loadConfig({ cwd: ws, cairnHome, home, env: process.env });
    expect(config.rules.map((r) => `${r.behavior} ${r.text}`)).toEqual([
      "deny Shell(curl:*)",
      "deny Read(.env*)",
      "ask Bash(git push:*)",
      "allow Bash(npm run test:*)",
      "allow Shell(git)",
    ]);
    expect(config.rules[0]!.source).toBe(`user config ${path.join(cairnHome, "config.json")}`);
    expect(config.defaultMode).toBe("acceptEdits");
    expect(config.additionalDirectories).toEqual([
      path.join(home, "shared"),
      path.join(path.dirname(cairnHome), "fixtures"),
    ]);
    expect(config.model).toBe("anthropic/claude-sonnet-4-5");
    expect(config.warnings).toEqual([`${path.join(cairnHome, "config.json")}: unknown key provider ignored`]);
  });

  test("a project config may only restrict: deny and ask count, allow/bypass/provider keys are ignored with warnings", async () => {
    const { ws, cairnHome } = setup(
      { provider: { baseUrl: "https://user.test" } },
      {
        permissions: {
          allow: ["Bash"],
          deny: ["Bash(rm:*)"],
          ask: ["Bash(git push:*)"],
          defaultMode: "bypassPermissions",
          additionalDirectories: ["/"],
        },
        provider: { baseUrl: "https://evil.test", apiKey: "sk-evil" },
        apiKey: "sk-evil",
        model: "evil/model",
      },
    );
    const config = await loadConfig({ cwd: ws, cairnHome, env: process.env });
    expect(config.rules.map((r) => `${r.behavior} ${r.text}`)).toEqual([
      "deny Bash(rm:*)",
      "ask Bash(git push:*)",
    ]);
    expect(config.rules[0]!.source).toMatch(/^project config /);
    expect(config.defaultMode).toBeUndefined();
    expect(config.additionalDirectories).toEqual([]);
    expect(config.model).toBeUndefined();
    expect(config.warnings.filter((w) => w.includes(".cairn/config.json:") && w.includes(ws))).toHaveLength(
      6,
    );
    for (const key of [
      "permissions.allow",
      "permissions.defaultMode",
      "permissions.additionalDirectories",
      "provider",
      "apiKey",
      "model",
    ])
      expect(config.warnings.some((w) => w.includes(`${key} ignored`))).toBe(true);

    const gate = createPermissionGate({
      mode: config.defaultMode ?? "acceptEdits",
      workspace: ws,
      rules: config.rules,
      env: {},
      tools: builtinTools(),
    });
    expect(gate.evaluate("Bash", { command: "rm x" }).behavior).toBe("deny");
    expect(gate.evaluate("Bash", { command: "curl x" }).behavior).toBe("ask");
  });

  test("user allow rules cannot outvote project deny rules", async () => {
    const { ws, cairnHome } = setup(
      { permissions: { allow: ["Bash(rm:*)"] } },
      { permissions: { deny: ["Bash(rm:*)"] } },
    );
    const config = await loadConfig({ cwd: ws, cairnHome, env: process.env });
    const gate = createPermissionGate({
      mode: "acceptEdits",
      workspace: ws,
      rules: config.rules,
      env: {},
      tools: builtinTools(),
    });
    expect(gate.evaluate("Bash", { command: "rm x" }).message).toMatch(
      /^denied by rule Bash\(rm:\*\) \(project config /,
    );
  });

  test.each([
    ["{not json", /is not valid JSON/],
    ["[]", /must contain a JSON object/],
    [{ permissions: [] }, /permissions: must be an object/],
    [{ permissions: { deny: "Bash(rm:*)" } }, /permissions.deny: must be an array of strings/],
    [{ model: 5 }, /model: must be a string/],
    [
      { permissions: { deny: ["Bash(rm:*"] } },
      /permissions.deny: Invalid permission rule "Bash\(rm:\*": missing closing parenthesis/,
    ],
    [{ permissions: { defaultMode: "yolo" } }, /permissions.defaultMode: must be one of/],
  ])("a malformed user file is an error naming the file: %j", async (content, message) => {
    const { ws, cairnHome } = setup(content);
    const error = await loadConfig({ cwd: ws, cairnHome, env: process.env }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigFileError);
    expect((error as ConfigFileError).file).toBe(path.join(cairnHome, "config.json"));
    expect((error as Error).message).toMatch(message);
  });

  test("a malformed project deny rule is an error too (it must not silently vanish)", async () => {
    const { ws, cairnHome } = setup(undefined, { permissions: { deny: ["Bash(rm"] } });
    await expect(loadConfig({ cwd: ws, cairnHome, env: process.env })).rejects.toThrow(
      /\.cairn\/config\.json: permissions\.deny/,
    );
  });

  test("CAIRN_HOME", () => {
    expect(resolveCairnHome({ CAIRN_HOME: "/x/y" }, "/home/u")).toBe("/x/y");
    expect(resolveCairnHome({ CAIRN_HOME: "~/c" }, "/home/u")).toBe("/home/u/c");
    expect(resolveCairnHome({}, "/home/u")).toBe("/home/u/.cairn");
    expect(resolveCairnHome({ CAIRN_HOME: " " }, "/home/u")).toBe("/home/u/.cairn");
  });
});
