/**
 * The convention's settings helpers over cairn's config loader (docs/sdk.md, "Settings"):
 * `resolveSettings`, `filterEscalatingDefaultMode`, `matchDeniedModels`; and `foldSessionSummary`
 * (docs/sdk.md, "Session functions").
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import {
  ConfigFileError,
  filterEscalatingDefaultMode,
  foldSessionSummary,
  matchDeniedModels,
  type ResolvedSettings,
  resolveSettings,
} from "../../src/index.js";
import { workspace } from "./helpers.js";

function writeJson(file: string, value: unknown): string {
  mkdirSync(join(file, ".."), { recursive: true });
  writeFileSync(file, JSON.stringify(value));
  return file;
}

describe("resolveSettings", () => {
  // resolveSettings() reads the process's CAIRN_HOME / CLAUDE_CONFIG_DIR, as a query does.
  const saved = { ...process.env };
  let home: string;
  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), "cairn-settings-home-"));
    process.env.CAIRN_HOME = home;
    process.env.CLAUDE_CONFIG_DIR = join(home, "claude");
    process.env.CURSOR_CONFIG_DIR = join(home, "cursor");
  });
  afterEach(() => {
    process.env.CAIRN_HOME = saved.CAIRN_HOME;
    process.env.CLAUDE_CONFIG_DIR = saved.CLAUDE_CONFIG_DIR;
    process.env.CURSOR_CONFIG_DIR = saved.CURSOR_CONFIG_DIR;
  });

  test("what cairn applies, merged over the files, with each key's provenance and every file as written", async () => {
    const cwd = workspace();
    const userFile = writeJson(join(home, "config.json"), {
      model: "anthropic/claude-sonnet-5-5",
      permissions: { allow: ["Bash(npm test)"], defaultMode: "acceptEdits" },
    });
    const claudeUser = writeJson(join(home, "claude", "settings.json"), {
      permissions: { allow: ["Read"], deny: ["WebFetch"] },
      theme: "dark",
    });
    const projectFile = writeJson(join(cwd, ".cairn", "config.json"), {
      permissions: { deny: ["Bash(rm:*)"], allow: ["Bash"] },
    });
    const claudeProject = writeJson(join(cwd, ".claude", "settings.json"), {
      permissions: { ask: ["Write"] },
      hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "true" }] }] },
      model: "opus",
    });

    const resolved = await resolveSettings({ cwd });
    expect(resolved.effective).toEqual({
      model: "anthropic/claude-sonnet-5-5",
      permissions: {
        // A project file may only restrict: its `allow` is not applied, nor its `model`.
        allow: ["Bash(npm test)", "Read"],
        defaultMode: "acceptEdits",
        deny: ["Bash(rm:*)", "WebFetch"],
        ask: ["Write"],
      },
      hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "true" }] }] },
    });
    expect(resolved.provenance).toEqual({
      model: { source: "user", path: userFile },
      permissions: { source: "project", path: claudeProject },
      hooks: { source: "project", path: claudeProject },
    });
    expect(resolved.sources.map(({ source, path }) => [source, path])).toEqual([
      ["user", userFile],
      ["project", projectFile],
      ["user", claudeUser],
      ["project", claudeProject],
    ]);
    // As written: keys cairn does not apply are there, not in `effective`.
    expect(resolved.sources[2]!.settings.theme).toBe("dark");
  });

  test("settingSources decides which files load, as for query()", async () => {
    const cwd = workspace();
    writeJson(join(home, "config.json"), { model: "anthropic/claude-haiku-5" });
    const local = writeJson(join(cwd, ".claude", "settings.local.json"), { permissions: { deny: ["Bash"] } });

    const onlyLocal = await resolveSettings({ cwd, settingSources: ["local"] });
    expect(onlyLocal.effective).toEqual({ permissions: { deny: ["Bash"] } });
    expect(onlyLocal.sources).toEqual([
      { source: "local", path: local, settings: { permissions: { deny: ["Bash"] } } },
    ]);
    expect(await resolveSettings({ cwd, settingSources: [] })).toEqual({
      effective: {},
      provenance: {},
      sources: [],
    });
  });

  test("a malformed file rejects with ConfigFileError naming it, as a query would", async () => {
    const cwd = workspace();
    writeJson(join(cwd, ".cairn", "config.json"), { permissions: { deny: "Bash" } });
    await expect(resolveSettings({ cwd })).rejects.toThrow(ConfigFileError);
    await expect(resolveSettings({ cwd })).rejects.toThrow(/\.cairn\/config\.json: permissions\.deny/);
  });

  test("managedSettings is not applied, and a process warning says so", async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error & { code?: string }) =>
      warnings.push(`${warning.code}: ${warning.message}`);
    process.on("warning", onWarning);
    try {
      const resolved = await resolveSettings({ cwd: workspace(), managedSettings: { model: "x" } });
      expect(resolved.effective.model).toBeUndefined();
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off("warning", onWarning);
    }
    expect(warnings).toEqual([
      "CAIRN_NO_POLICY_TIER: resolveSettings(): managedSettings not applied: cairn has no policy settings tier",
    ]);
  });
});

describe("filterEscalatingDefaultMode", () => {
  const resolvedWith = (
    source: "user" | "project",
    defaultMode: "bypassPermissions" | "plan",
  ): ResolvedSettings => ({
    effective: { model: "m", permissions: { defaultMode, deny: ["Bash"] } },
    provenance: { permissions: { source } },
    sources: [{ source, settings: { permissions: { defaultMode } } }],
  });

  test("drops an escalating mode a project file set, keeps the rest", () => {
    expect(filterEscalatingDefaultMode(resolvedWith("project", "bypassPermissions"))).toEqual({
      model: "m",
      permissions: { deny: ["Bash"] },
    });
  });

  test("keeps a user file's escalating mode, and a project's mode that does not escalate", () => {
    expect(
      filterEscalatingDefaultMode(resolvedWith("user", "bypassPermissions")).permissions?.defaultMode,
    ).toBe("bypassPermissions");
    expect(filterEscalatingDefaultMode(resolvedWith("project", "plan")).permissions?.defaultMode).toBe(
      "plan",
    );
  });
});

describe("matchDeniedModels", () => {
  test("one flag per model: equal ids ignoring case and space; bad entries skipped with a warning", async () => {
    const match = await matchDeniedModels(
      ["claude-opus-4-8", "Claude-Haiku-5", "claude-sonnet-5", 7 as unknown as string],
      ["claude-opus-4-8", " claude-haiku-5 ", 3 as unknown as string],
    );
    expect(match).toEqual({
      denied: [true, true, false, false],
      warnings: ["deniedModels[2] is not a model name: ignored", "models[3] is not a string: not denied"],
    });
  });

  test("no list: nothing denied; models that are not a list: no flags, a warning", async () => {
    expect(await matchDeniedModels(["a"], undefined)).toEqual({ denied: [false], warnings: [] });
    expect(await matchDeniedModels("a" as unknown as string[], ["a"])).toEqual({
      denied: [],
      warnings: ["models is not a list: nothing matched"],
    });
  });
});

describe("foldSessionSummary", () => {
  const key = { projectKey: "p", sessionId: "s1" };

  test("set-once fields keep their first value, last-wins fields the latest; mtime is the store's", () => {
    const first = foldSessionSummary(
      undefined,
      key,
      [
        {
          type: "user",
          message: { role: "user", content: "Fix the bug" },
          cwd: "/ws",
          timestamp: "2026-01-01T00:00:00Z",
        },
        { type: "assistant", message: { role: "assistant", content: [{ type: "text", text: "On it." }] } },
        { type: "custom-title", customTitle: "Bug hunt" },
      ],
      { mtime: 10 },
    );
    expect(first).toEqual({
      sessionId: "s1",
      mtime: 10,
      data: {
        firstPrompt: "Fix the bug",
        lastPrompt: "Fix the bug",
        cwd: "/ws",
        createdAt: "2026-01-01T00:00:00Z",
        customTitle: "Bug hunt",
      },
    });
    const second = foldSessionSummary(first, key, [
      // A tool result is no prompt.
      {
        type: "user",
        message: { role: "user", content: [{ type: "tool_result", tool_use_id: "t", content: "ok" }] },
      },
      {
        type: "user",
        message: { role: "user", content: [{ type: "text", text: "Now test it" }] },
        cwd: "/elsewhere",
      },
      { type: "tag", tag: "wip" },
      { type: "summary", summary: "Fixed a bug" },
    ]);
    expect(second).toEqual({
      sessionId: "s1",
      mtime: 10,
      data: { ...first.data, lastPrompt: "Now test it", tag: "wip", summaryHint: "Fixed a bug" },
    });
  });
});
