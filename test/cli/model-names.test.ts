/**
 * `--model` as people type it: aliases and `auto` reach the server as the full model id, an unknown
 * name fails before anything runs, and stderr's first line is cairn's even when the Anthropic client
 * has a deprecation notice to print.
 */
import { describe, expect, test } from "vitest";
import { reply } from "../../src/testing/index.js";
import { runCli } from "../conformance/pm/helpers.js";

const modelArgs = (model: string) => ["-p", "Say hi", "--model", model, "--output-format", "stream-json"];

describe("--model aliases", () => {
  for (const [alias, expected] of [
    ["sonnet", "claude-sonnet-5-5"],
    ["opus", "claude-opus-5-5"],
    ["haiku", "claude-haiku-5-5"],
    ["anthropic/opus", "claude-opus-5-5"],
  ] as const) {
    test(`${alias} is sent as ${expected}`, async () => {
      const run = await runCli({ steps: [reply().text("hi")], rawArgs: modelArgs(alias) });
      expect(run.stderr).toBe("");
      expect(run.code).toBe(0);
      expect(run.server.requests.map((request) => (request.body as { model: string }).model)).toEqual([
        expected,
      ]);
      // The Cursor-dialect init reports the display name of what runs, never the alias.
      expect(run.events[0]).toMatchObject({
        type: "system",
        subtype: "init",
        model: expect.stringMatching(/^Claude /),
      });
    });
  }

  test("auto and default are the configured default: CAIRN_MODEL, else the key's default model", async () => {
    const fromKey = await runCli({ steps: [reply().text("hi")], rawArgs: modelArgs("auto") });
    expect(fromKey.code).toBe(0);
    expect((fromKey.server.requests[0]!.body as { model: string }).model).toBe("claude-sonnet-5-5");

    const fromEnv = await runCli({
      steps: [reply().text("hi")],
      rawArgs: modelArgs("default"),
      env: { CAIRN_MODEL: "haiku" },
    });
    expect(fromEnv.code).toBe(0);
    expect((fromEnv.server.requests[0]!.body as { model: string }).model).toBe("claude-haiku-5-5");
  });
});

describe("unknown model names", () => {
  test("exit 2 before anything runs, one line naming close matches", async () => {
    const run = await runCli({ steps: [reply().text("never")], rawArgs: modelArgs("sonet") });
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.server.requests).toHaveLength(0);
    expect(run.stderr).toMatch(/^cairn: Unknown model "sonet": .*Did you mean sonnet\?.*\n$/);
    expect(run.stderr.split("\n")).toHaveLength(2);
  });

  test("a mistyped provider suggests the known one", async () => {
    const run = await runCli({ rawArgs: modelArgs("antropic/claude-opus-5-5") });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("Did you mean anthropic/claude-opus-5-5?");
  });

  test("an unknown CAIRN_MODEL is named as the source of the name", async () => {
    const run = await runCli({ rawArgs: ["-p", "hi"], env: { CAIRN_MODEL: "hakiu" } });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^cairn: CAIRN_MODEL: Unknown model "hakiu": .*Did you mean haiku/);
  });
});

describe("library warnings on stderr", () => {
  test("the client's deprecation notice comes after cairn's own line, once, as a cairn line", async () => {
    const run = await runCli({
      steps: [reply().text("ok")],
      rawArgs: ["-p", "hi", "--model", "claude-sonnet-4-5", "--output-format", "json", "--max-turns", "1"],
    });
    expect((run.server.requests[0]!.body as { model: string }).model).toBe("claude-sonnet-4-5");
    const lines = run.stderr.trimEnd().split("\n");
    expect(lines.every((line) => line.startsWith("cairn: "))).toBe(true);
    const notices = lines.filter((line) => line.includes("deprecated"));
    expect(notices).toEqual([
      expect.stringMatching(
        /^cairn: warning from @anthropic-ai\/sdk: The model 'claude-sonnet-4-5' is deprecated/,
      ),
    ]);
    expect(lines.at(-1)).toBe(notices[0]);
  });

  test("after an error, the first stderr line is cairn's error", async () => {
    const run = await runCli({
      steps: [],
      rawArgs: ["-p", "hi", "--model", "claude-sonnet-4-5"],
      env: { CAIRN_MAX_RETRIES: "0" },
    });
    expect(run.code).toBe(1);
    const lines = run.stderr.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^cairn: (?!warning from)/);
    expect(lines.slice(1)).toEqual([
      expect.stringMatching(/^cairn: warning from @anthropic-ai\/sdk: .*deprecated/),
    ]);
  });

  test("CAIRN_DEBUG=1 shows the notice where it happens (still a cairn line)", async () => {
    const run = await runCli({
      steps: [],
      rawArgs: ["-p", "hi", "--model", "claude-sonnet-4-5"],
      env: { CAIRN_MAX_RETRIES: "0", CAIRN_DEBUG: "1" },
    });
    const lines = run.stderr.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^cairn: warning from @anthropic-ai\/sdk: .*deprecated/);
    expect(lines.filter((line) => line.includes("deprecated"))).toHaveLength(1);
  });
});
