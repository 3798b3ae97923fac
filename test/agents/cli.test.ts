import { afterEach, describe, expect, test } from "vitest";
import { reply, type ScriptedServer, startScriptedServer } from "../../src/testing/index.js";
import { MODEL, parseLines, serverEnv, spawnCli, workspace } from "../conformance/pm/helpers.js";
import {
  byAsker,
  hangingAgentScript,
  messagesText,
  PARENT,
  TWO_AGENTS_USAGE,
  toolNames,
  twoAgentsScript,
} from "./helpers.js";

/**
 * Subagents in print mode (docs/agents.md): agent files of the workspace, the built CLI, stream-json
 * with the delegation as a `taskToolCall` and the subagents' own calls marked with `parent_call_id`.
 */
const servers: ScriptedServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

const FILES = {
  "a.txt": "hello\n",
  ".cairn/agents/reviewer.md":
    "---\nname: reviewer\ndescription: Reviews code.\ntools: Read, Grep\n---\nYou are the REVIEWER subagent.\n",
  ".claude/agents/lister.md":
    "---\nname: lister\ndescription: Lists files.\ntools: [Glob, LS]\nmodel: haiku\n---\nYou are the LISTER subagent.\n",
  ".cursor/agents/scout.md":
    "---\nname: scout\ndescription: Looks around.\nreadonly: true\n---\nYou are the SCOUT subagent.\n",
};

async function run(args: string[], dir = workspace(FILES), script = twoAgentsScript()) {
  const server = await startScriptedServer({ respond: script.respond });
  servers.push(server);
  const spawned = spawnCli(["-p", "Use both agents", "--model", MODEL, "--sandbox", "disabled", ...args], {
    cwd: dir,
    env: serverEnv(server),
  });
  const { code } = await spawned.exited;
  return { code, ...spawned.out, dir, script, server };
}

const toolCalls = (events: Record<string, unknown>[], subtype: string) =>
  events.filter((event) => event.type === "tool_call" && event.subtype === subtype);

describe("subagents in print mode", () => {
  test("agent files define the agents; two run concurrently with their own prompts and tools", async () => {
    const { code, stdout, stderr, script } = await run(["--output-format", "stream-json"]);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    const events = parseLines(stdout);
    expect(events[0]!.tools).toContain("Agent");

    const reviewer = script.requests.get("REVIEWER")!;
    const lister = script.requests.get("LISTER")!;
    expect(toolNames(reviewer[0]!)).toEqual(["Read", "Grep"]);
    expect(toolNames(lister[0]!)).toEqual(["Glob", "LS"]);
    expect((lister[0]!.body as { model: string }).model).toMatch(/haiku/);
    // The workspace's agent files: Bash is not among the reviewer's tools, so its call is refused.
    expect(messagesText(reviewer[1]!)).toContain("No such tool available: Bash");

    // The delegation: a taskToolCall whose result is the subagent's answer.
    const delegated = toolCalls(events, "completed").filter((event) => event.parent_call_id === undefined);
    expect(delegated.map((event) => event.tool_call)).toEqual([
      {
        taskToolCall: {
          args: {
            description: expect.any(String),
            prompt: expect.any(String),
            subagentType: expect.any(String),
          },
          result: {
            success: expect.objectContaining({ result: expect.any(String), agentId: expect.any(String) }),
          },
        },
      },
      expect.anything(),
    ]);
    const answers = Object.fromEntries(
      delegated.map((event) => {
        const call = (
          event.tool_call as {
            taskToolCall: { args: { subagentType: string }; result: { success: { result: string } } };
          }
        ).taskToolCall;
        return [call.args.subagentType, call.result.success.result];
      }),
    );
    expect(answers).toEqual({ reviewer: "a.txt says hello.", lister: "One file: a.txt." });

    // The subagents' own calls, each marked with the Agent call that runs it; both delegations had
    // started before either finished.
    const inner = toolCalls(events, "started").filter((event) => event.parent_call_id !== undefined);
    expect(inner.map((event) => [event.call_id, event.parent_call_id]).sort()).toEqual([
      ["toolu_l1", "toolu_p2"],
      ["toolu_r1", "toolu_p1"],
      ["toolu_r2", "toolu_p1"],
    ]);
    const labels = events.map((event) =>
      event.type === "tool_call" && event.parent_call_id === undefined
        ? `${event.subtype}:${event.call_id}`
        : "",
    );
    expect(labels.indexOf("started:toolu_p2")).toBeLessThan(labels.indexOf("completed:toolu_p1"));
    // The parent's answer and text are its own: no subagent text is printed.
    expect(stdout).not.toContain('a.txt says hello."}]');
    const result = events.at(-1)!;
    expect(result.result).toBe("Delegating.Both agents reported.");
  });

  test("json: the result's usage counts the subagents' model calls", async () => {
    const { code, stdout } = await run(["--output-format", "json"]);
    expect(code).toBe(0);
    const result = parseLines(stdout)[0]!;
    expect(result.usage).toMatchObject({
      inputTokens: TWO_AGENTS_USAGE.input,
      outputTokens: TWO_AGENTS_USAGE.output,
    });
  });

  test("a readonly agent file gets only tools that change nothing", async () => {
    const script = byAsker([
      { marker: "SCOUT", steps: [reply().text("Scouted.")] },
      {
        marker: PARENT,
        steps: [
          reply().tool(
            "Agent",
            { description: "Scout", prompt: "Look around", subagent_type: "scout" },
            "toolu_p1",
          ),
          reply().text("Done."),
        ],
      },
    ]);
    const { code } = await run(["--output-format", "json"], workspace(FILES), script);
    expect(code).toBe(0);
    expect(toolNames(script.requests.get("SCOUT")![0]!)).toEqual([
      "Read",
      "Glob",
      "Grep",
      "LS",
      "TodoWrite",
      "BashOutput",
    ]);
  });

  test("--resume restores the parent's conversation without the subagents' messages", async () => {
    const first = await run(["--output-format", "json"]);
    expect(first.code).toBe(0);
    const sessionId = parseLines(first.stdout)[0]!.session_id as string;
    const server = await startScriptedServer({ steps: [reply().text("Resumed.")] });
    servers.push(server);
    const again = spawnCli(["-p", "And now?", "--model", MODEL, "--resume", sessionId], {
      cwd: first.dir,
      env: serverEnv(server),
    });
    expect((await again.exited).code).toBe(0);
    const sent = messagesText(server.requests[0]!);
    expect(sent).toContain("a.txt says hello.");
    for (const inner of ["toolu_r1", "toolu_r2", "toolu_l1", "REVIEWER"]) expect(sent).not.toContain(inner);
  });

  test("SIGINT while subagents run ends the CLI with 130", async () => {
    const script = hangingAgentScript();
    const server = await startScriptedServer({ respond: script.respond });
    servers.push(server);
    const spawned = spawnCli(["-p", "Review", "--model", MODEL, "--output-format", "stream-json"], {
      cwd: workspace(FILES),
      env: serverEnv(server),
    });
    while (script.requests.get("REVIEWER")!.length === 0) await new Promise((r) => setTimeout(r, 20));
    spawned.child.kill("SIGINT");
    const { code } = await spawned.exited;
    expect(code).toBe(130);
    const events = parseLines(spawned.out.stdout);
    expect(events.some((event) => event.type === "tool_call" && event.call_id === "toolu_p1")).toBe(true);
  });
});
