/**
 * Custom slash commands (docs/agents.md, "Custom commands"): the built CLI and the SDK, against the
 * scripted model server over HTTP. The server sees what a command expands to.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { query, type SDKMessage, type SDKSystemMessage } from "../../src/index.js";
import { reply, type ScriptedServer } from "../../src/testing/index.js";
import { ofType, runCli } from "../conformance/pm/helpers.js";
import { tempDir } from "../helpers/temp.js";
import { cleanUp, collect, envFor, startServer, workspace } from "../sdk/helpers.js";

afterEach(cleanUp);

type Body = {
  model: string;
  system: string;
  tools: { name: string; description: string }[];
  messages: { role: string; content: unknown }[];
};
const bodyOf = (server: ScriptedServer, index: number) => server.requests[index]!.body as Body;
/** The text of the first user message the model got. */
const promptOf = (server: ScriptedServer, index = 0): string => {
  const content = bodyOf(server, index).messages[0]!.content;
  if (typeof content === "string") return content;
  return (content as { type: string; text?: string }[]).map((block) => block.text ?? "").join("");
};

const REVIEW = `---
description: Review one file
argument-hint: <file> [focus]
model: anthropic/claude-haiku-5-5
---
Review $1, looking for $2 problems. The whole request: $ARGUMENTS
`;

/** A user-level home (CAIRN_HOME, CLAUDE_CONFIG_DIR) of this test's own, holding `files`. */
function userHome(files: Record<string, string> = {}): Record<string, string> {
  const home = tempDir("cairn-user-", files);
  return { CAIRN_HOME: join(home, "cairn"), CLAUDE_CONFIG_DIR: join(home, "claude") };
}

describe("custom commands in the CLI", () => {
  test("/name args expands to the file's body with $ARGUMENTS and $1.. filled in; its model answers", async () => {
    const run = await runCli({
      files: { ".claude/commands/review.md": REVIEW },
      prompt: '/review src/a.ts "thread safety"',
      args: ["--output-format", "stream-json"],
      steps: [reply().text("Reviewed.")],
    });
    expect(run.code).toBe(0);
    expect(promptOf(run.server)).toBe(
      'Review src/a.ts, looking for thread safety problems. The whole request: src/a.ts "thread safety"',
    );
    expect(bodyOf(run.server, 0).model).toBe("claude-haiku-5-5");
    const [init] = ofType(run.events, "system");
    expect(init?.slash_commands).toEqual(["compact", "review"]);
    expect(ofType(run.events, "result")[0]?.result).toBe("Reviewed.");
  });

  test("a template without placeholders gets the arguments appended; a subfolder gives a second name", async () => {
    const run = await runCli({
      files: { ".cairn/commands/frontend/component.md": "Write a React component.\n" },
      prompt: "/frontend:component Button",
      steps: [reply().text("ok")],
    });
    expect(run.code).toBe(0);
    expect(promptOf(run.server)).toBe("Write a React component.\n\nARGUMENTS: Button");
  });

  test("an unknown /name is sent as written, and /compact stays cairn's own", async () => {
    const run = await runCli({
      files: { ".claude/commands/compact.md": "Not the built-in.\n" },
      prompt: "/nosuch do the thing",
      steps: [reply().text("ok")],
    });
    expect(run.code).toBe(0);
    expect(promptOf(run.server)).toBe("/nosuch do the thing");
    expect(run.stderr).toMatch(/compact\.md: not loaded: \/compact is one of cairn's own commands/);
  });

  test("allowed-tools of the user's own command pre-approves its calls; other calls are still refused", async () => {
    const command = "---\nallowed-tools: Bash(touch:*)\n---\nCreate the marker file.\n";
    const run = await runCli({
      env: userHome({ "claude/commands/mark.md": command }),
      prompt: "/mark",
      args: ["--output-format", "stream-json", "--sandbox", "disabled"],
      steps: [
        reply().tool("Bash", { command: "touch marker.txt" }),
        reply().tool("Bash", { command: "mkdir other" }),
        reply().text("done"),
      ],
    });
    expect(run.code).toBe(0);
    expect(existsSync(join(run.dir, "marker.txt"))).toBe(true);
    expect(existsSync(join(run.dir, "other"))).toBe(false);
    const completed = ofType(run.events, "tool_call").filter((event) => event.subtype === "completed");
    expect(JSON.stringify(completed[1])).toMatch(/error/);
  });

  test("without the command the same call is refused (print mode asks, and cannot)", async () => {
    const run = await runCli({
      prompt: "Create the marker file.",
      args: ["--sandbox", "disabled"],
      steps: [reply().tool("Bash", { command: "touch marker.txt" }), reply().text("done")],
    });
    expect(run.code).toBe(0);
    expect(existsSync(join(run.dir, "marker.txt"))).toBe(false);
  });

  test("allowed-tools of a project's command narrows the turn's tools and pre-approves nothing", async () => {
    const command = "---\nallowed-tools: Read, Grep, Bash(touch:*)\n---\nLook around.\n";
    const run = await runCli({
      files: { ".claude/commands/look.md": command },
      prompt: "/look",
      args: ["--sandbox", "disabled"],
      steps: [reply().tool("Bash", { command: "touch marker.txt" }), reply().text("done")],
    });
    expect(run.code).toBe(0);
    expect(bodyOf(run.server, 0).tools.map((tool) => tool.name)).toEqual(["Read", "Bash", "Grep"]);
    expect(existsSync(join(run.dir, "marker.txt"))).toBe(false);
  });

  test("a command's model that cannot be used fails the run naming the file (exit 2), no session left", async () => {
    const env = userHome();
    const run = await runCli({
      env,
      files: { ".claude/commands/bad.md": "---\nmodel: nosuchprovider/x\n---\nHi\n" },
      prompt: "/bad",
      steps: [],
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/bad\.md: model:/);
    expect(run.server.requests).toHaveLength(0);
    expect(existsSync(join(env.CAIRN_HOME!, "sessions"))).toBe(false);
  });
});

describe("custom commands in the SDK", () => {
  const init = (messages: SDKMessage[]): SDKSystemMessage => {
    const first = messages.find((message) => message.type === "system" && message.subtype === "init");
    return first as SDKSystemMessage;
  };

  test("supportedCommands() and system/init.slash_commands list them; the prompt expands", async () => {
    const cwd = workspace({
      ".claude/commands/review.md": REVIEW,
      ".claude/commands/fe/button.md": "Button\n",
    });
    const server = await startServer([reply().text("ok")]);
    const q = query({ prompt: "/review x.ts speed", options: { cwd, env: envFor(server) } });
    const commands = await q.supportedCommands();
    expect(commands).toEqual([
      expect.objectContaining({ name: "compact", builtin: true }),
      { name: "button", description: "Button (project:fe)", argumentHint: "", aliases: ["fe:button"] },
      { name: "review", description: "Review one file (project)", argumentHint: "<file> [focus]" },
    ]);
    const messages = await collect(q);
    expect(init(messages).slash_commands).toEqual(["compact", "button", "review"]);
    expect(promptOf(server)).toBe("Review x.ts, looking for speed problems. The whole request: x.ts speed");
    expect(bodyOf(server, 0).model).toBe("claude-haiku-5-5");
  });

  test("a project command shadows the user's command of the same name, with a warning", async () => {
    const cwd = workspace({ ".claude/commands/hello.md": "Project hello\n" });
    const server = await startServer([reply().text("ok")]);
    const env = { ...envFor(server), ...userHome({ "cairn/commands/hello.md": "User hello\n" }) };
    const messages = await collect(query({ prompt: "/hello", options: { cwd, env } }));
    expect(promptOf(server)).toBe("Project hello");
    const notes = messages.filter(
      (message) => message.type === "system" && message.subtype === "informational",
    );
    expect(JSON.stringify(notes)).toMatch(/hello\.md: not loaded: \\"hello\\" is already defined by/);
  });
});
