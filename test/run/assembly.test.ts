import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { query } from "../../src/index.js";
import { reply } from "../../src/testing/index.js";
import { ofType, runCli, startServer } from "../conformance/pm/helpers.js";
import { modelFreeEnv } from "../helpers/env.js";
import { tempDir } from "../helpers/temp.js";

/** A $CAIRN_HOME holding `config` as config.json. */
function cairnHomeWith(config: unknown): string {
  const home = tempDir("cairn-assembly-home-");
  writeFileSync(path.join(home, "config.json"), JSON.stringify(config));
  return home;
}

function transcriptOf(cairnHome: string): Record<string, unknown>[] {
  const sessions = path.join(cairnHome, "sessions");
  const [dir] = readdirSync(sessions);
  const [file] = readdirSync(path.join(sessions, dir!));
  return readFileSync(path.join(sessions, dir!, file!), "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe("one run assembly: what is reported is what is enforced", () => {
  test("defaultMode plan in the user config: enforced, and reported in system/init and the transcript", async () => {
    const cairnHome = cairnHomeWith({ permissions: { defaultMode: "plan" } });
    const run = await runCli({
      steps: [reply().tool("Write", { file_path: "x.txt", content: "x" }), reply().text("Done.")],
      args: ["--output-format", "stream-json"],
      env: { CAIRN_HOME: cairnHome },
    });
    expect(run.code).toBe(0);
    const [init] = ofType(run.events, "system");
    expect(init).toMatchObject({ subtype: "init", permissionMode: "plan" });
    expect(JSON.stringify(run.server.requests[1]!.body)).toContain("plan mode is read-only");
    const prompt = transcriptOf(cairnHome).find((record) => record.type === "user" && record.prompt === true);
    expect(prompt).toMatchObject({ permissionMode: "plan" });
  });

  test("without a chosen mode print mode still reports default", async () => {
    const run = await runCli({ steps: [reply().text("Hi.")], args: ["--output-format", "stream-json"] });
    expect(ofType(run.events, "system")[0]).toMatchObject({ permissionMode: "default" });
  });

  test("the user config's model is the model used when no flag names one", async () => {
    const cairnHome = cairnHomeWith({ model: "anthropic/claude-haiku-4-5" });
    const run = await runCli({
      steps: [reply().text("Hi.")],
      rawArgs: ["-p", "hello", "--output-format", "json"],
      env: { CAIRN_HOME: cairnHome },
    });
    expect(run.code).toBe(0);
    expect((run.server.requests[0]!.body as { model: string }).model).toBe("claude-haiku-4-5");
  });

  test("an unknown key in the user config is warned about on stderr, naming file and key", async () => {
    const cairnHome = cairnHomeWith({ modle: "typo" });
    const run = await runCli({ steps: [reply().text("Hi.")], env: { CAIRN_HOME: cairnHome } });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(`${path.join(cairnHome, "config.json")}: unknown key modle ignored`);
  });

  test("SDK: the same config gives the same mode and model", async () => {
    const server = await startServer([reply().text("Hi.")]);
    const cairnHome = cairnHomeWith({
      model: "anthropic/claude-haiku-4-5",
      permissions: { defaultMode: "plan" },
    });
    const cwd = tempDir("cairn-assembly-ws-");
    mkdirSync(path.join(cwd, "sub"), { recursive: true });
    const messages = [];
    for await (const message of query({
      prompt: "hello",
      options: {
        cwd,
        env: {
          ...modelFreeEnv(),
          CAIRN_HOME: cairnHome,
          ANTHROPIC_BASE_URL: server.url,
          ANTHROPIC_API_KEY: "test",
        },
        persistSession: false,
      },
    }))
      messages.push(message);
    expect(messages[0]).toMatchObject({ type: "system", subtype: "init", permissionMode: "plan" });
    expect((server.requests[0]!.body as { model: string }).model).toBe("claude-haiku-4-5");
  });
});
