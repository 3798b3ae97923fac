/**
 * Which files load (docs/agents.md, "Which files load"): the SDK's `settingSources` and the CLI's
 * `--setting-sources`, against the scripted model server over HTTP.
 */
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import type { SDKSystemMessage } from "../../src/index.js";
import { query } from "../../src/index.js";
import { reply, type ScriptedServer } from "../../src/testing/index.js";
import { ofType, runCli } from "../conformance/pm/helpers.js";
import { tempDir } from "../helpers/temp.js";
import { cleanUp, collect, envFor, runQuery, startServer, workspace } from "../sdk/helpers.js";

afterEach(cleanUp);

/** A workspace with one of everything a project can bring. */
const PROJECT = {
  "CLAUDE.md": "PROJECT-RULE: answer in French.\n",
  "AGENTS.md": "AGENTS-RULE: be brief.\n",
  "CLAUDE.local.md": "LOCAL-RULE: my own notes.\n",
  ".claude/commands/hello.md": "Say hello to $ARGUMENTS.\n",
  ".claude/skills/pdf/SKILL.md": "---\nname: pdf\ndescription: Read PDFs\n---\nBody.\n",
  ".claude/settings.json": JSON.stringify({ permissions: { deny: ["Read(secret.txt)"] } }),
  "secret.txt": "SECRET-CONTENT\n",
};

type Body = {
  system: string | { text: string }[];
  tools: { name: string }[];
  messages: { content: unknown }[];
};
const bodyOf = (server: ScriptedServer, index = 0) => server.requests[index]!.body as Body;
const systemOf = (server: ScriptedServer) => JSON.stringify(bodyOf(server).system);
const promptOf = (server: ScriptedServer) => JSON.stringify(bodyOf(server).messages[0]!.content);
const toolNames = (server: ScriptedServer) => bodyOf(server).tools.map((tool) => tool.name);

/** A user-level home of this test's own: an instruction file, a command and a skill. */
function userHome(): Record<string, string> {
  const home = tempDir("cairn-user-", {
    "claude/CLAUDE.md": "USER-RULE: sign with a dash.\n",
    "cairn/commands/mine.md": "My own command.\n",
    "claude/skills/notes/SKILL.md": "---\ndescription: Notes\n---\nNotes body.\n",
  });
  return { CAIRN_HOME: join(home, "cairn"), CLAUDE_CONFIG_DIR: join(home, "claude") };
}

describe("settingSources", () => {
  test("[] loads no file: no instructions, commands, skills or project rules", async () => {
    const cwd = workspace(PROJECT);
    const server = await startServer([reply().tool("Read", { file_path: "secret.txt" }), reply().text("ok")]);
    const env = { ...envFor(server), ...userHome() };
    const q = query({ prompt: "/hello world", options: { cwd, env, settingSources: [] } });
    expect((await q.supportedCommands()).map((command) => command.name)).toEqual(["compact"]);
    const messages = await collect(q);
    const init = messages[0] as SDKSystemMessage;
    expect(init.slash_commands).toEqual(["compact"]);
    expect(init.skills).toEqual([]);
    expect(promptOf(server)).toContain("/hello world");
    for (const marker of ["PROJECT-RULE", "AGENTS-RULE", "LOCAL-RULE", "USER-RULE"])
      expect(systemOf(server)).not.toContain(marker);
    expect(toolNames(server)).not.toContain("Skill");
    // .claude/settings.json did not load: its deny rule does not apply.
    expect(JSON.stringify(server.requests[1]!.body)).toContain("SECRET-CONTENT");
  });

  test("omitted loads them all (the convention's default): user, project and local files", async () => {
    const cwd = workspace(PROJECT);
    const server = await startServer([reply().tool("Read", { file_path: "secret.txt" }), reply().text("ok")]);
    const env = { ...envFor(server), ...userHome() };
    const messages = await collect(query({ prompt: "/hello world", options: { cwd, env } }));
    const init = messages[0] as SDKSystemMessage;
    expect(init.slash_commands).toEqual(["compact", "pdf", "notes", "hello", "mine"]);
    expect(init.skills).toEqual(["pdf", "notes"]);
    expect(promptOf(server)).toContain("Say hello to world.");
    for (const marker of ["PROJECT-RULE", "AGENTS-RULE", "LOCAL-RULE", "USER-RULE"])
      expect(systemOf(server)).toContain(marker);
    expect(JSON.stringify(server.requests[1]!.body)).not.toContain("SECRET-CONTENT");
  });

  test("[\"user\"] loads the user's files and none of the project's", async () => {
    const cwd = workspace(PROJECT);
    const server = await startServer([reply().text("ok")]);
    const env = { ...envFor(server), ...userHome() };
    const messages = await collect(query({ prompt: "Hi", options: { cwd, env, settingSources: ["user"] } }));
    const init = messages[0] as SDKSystemMessage;
    expect(init.slash_commands).toEqual(["compact", "notes", "mine"]);
    expect(systemOf(server)).toContain("USER-RULE");
    expect(systemOf(server)).not.toContain("PROJECT-RULE");
    expect(systemOf(server)).not.toContain("LOCAL-RULE");
  });

  test('["project"] loads the repository\'s files without the local ones', async () => {
    const cwd = workspace(PROJECT);
    const { server } = await runQuery([reply().text("ok")], { cwd, settingSources: ["project"] });
    expect(systemOf(server)).toContain("PROJECT-RULE");
    expect(systemOf(server)).not.toContain("LOCAL-RULE");
  });
});

describe("--setting-sources (CLI)", () => {
  test('"" loads no project file; the default loads them', async () => {
    const none = await runCli({
      files: PROJECT,
      prompt: "/hello world",
      args: ["--output-format", "stream-json", "--setting-sources", ""],
      steps: [reply().text("ok")],
    });
    expect(none.code).toBe(0);
    expect(promptOf(none.server)).toContain("/hello world");
    expect(systemOf(none.server)).not.toContain("PROJECT-RULE");
    expect(ofType(none.events, "system")[0]?.slash_commands).toBeUndefined();

    const all = await runCli({ files: PROJECT, prompt: "/hello world", steps: [reply().text("ok")] });
    expect(promptOf(all.server)).toContain("Say hello to world.");
    expect(systemOf(all.server)).toContain("PROJECT-RULE");
  });

  test("an unknown source is a usage error (exit 2) before anything runs", async () => {
    const run = await runCli({ args: ["--setting-sources", "user,everything"], steps: [] });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--setting-sources: unknown setting source "everything"/);
    expect(run.stdout).toBe("");
    expect(run.server.requests).toHaveLength(0);
  });
});
