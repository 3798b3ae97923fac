import { afterEach, describe, expect, test } from "vitest";
import { reply, type ScriptedServer, startScriptedServer } from "../../src/testing/index.js";
import { cleanUp, envFor, examplePath, runProgram, workspace } from "../sdk/helpers.js";
import { type Asker, byAsker, messagesText, PARENT, toolNames } from "./helpers.js";

/**
 * The TypeScript examples of the public agent-SDK docs' "Subagents in the SDK" page
 * (examples/sdk/subagents-*.ts, verbatim but for the import), each run as its own Node process
 * against the scripted model server: the subagents they define really run, with their own prompts,
 * tools and models, inside the query's permissions.
 */
const servers: ScriptedServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
  await cleanUp();
});

async function runExample(name: string, askers: Asker[], files: Record<string, string> = {}) {
  const script = byAsker(askers);
  const server = await startScriptedServer({ respond: script.respond });
  servers.push(server);
  const cwd = workspace({ "auth.ts": "export const login = () => true;\n", ...files });
  const run = await runProgram(examplePath(name), { cwd, env: envFor(server) });
  return { ...run, script, server };
}

const delegation = (id: string, subagent: string, prompt = `Do the ${subagent} work`) =>
  reply().tool("Task", { description: `Run ${subagent}`, prompt, subagent_type: subagent }, id);

describe("the subagent examples of the public agent-SDK docs run unchanged", () => {
  test("programmatic definition: two agents, each in its own tools; the test runner's Bash stays asked-about", async () => {
    // A subagent's tools come in the order of the parent's.
    const run = await runExample("subagents-programmatic.ts", [
      {
        marker: "code review specialist",
        steps: [
          reply().tool("Read", { file_path: "auth.ts" }, "toolu_cr1"),
          reply().text("login() trusts everyone."),
        ],
      },
      {
        marker: "test execution specialist",
        steps: [
          reply().tool("Bash", { command: "npm test" }, "toolu_tr1"),
          reply().text("Tests could not run."),
        ],
      },
      {
        marker: PARENT,
        steps: [
          delegation("toolu_p1", "code-reviewer").tool(
            "Task",
            { description: "Run tests", prompt: "Run the tests", subagent_type: "test-runner" },
            "toolu_p2",
          ),
          reply().text("Security review: login() trusts everyone; tests did not run."),
        ],
      },
    ]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("Security review: login() trusts everyone; tests did not run.\n");
    const reviewer = run.script.requests.get("code review specialist")!;
    const runner = run.script.requests.get("test execution specialist")!;
    expect(toolNames(reviewer[0]!)).toEqual(["Read", "Glob", "Grep"]);
    expect(toolNames(runner[0]!)).toEqual(["Read", "Bash", "Grep"]);
    expect((reviewer[0]!.body as { model: string }).model).toMatch(/sonnet/);
    expect(messagesText(reviewer[1]!)).toContain("export const login");
    // The query allows Read, Grep, Glob and Task; nobody answers "ask": the subagent is refused too.
    expect(messagesText(runner[1]!)).toMatch(/Permission to use Bash was denied/);
  });

  test("dynamic agent configuration: the strict reviewer runs on opus with its factory-made prompt", async () => {
    const run = await runExample("subagents-dynamic.ts", [
      { marker: "strict security reviewer", steps: [reply().text("No issues found.")] },
      {
        marker: PARENT,
        steps: [delegation("toolu_p1", "security-reviewer"), reply().text("The PR looks safe.")],
      },
    ]);
    expect(run.stderr).toBe("");
    expect(run.stdout).toBe("The PR looks safe.\n");
    const reviewer = run.script.requests.get("strict security reviewer")!;
    expect((reviewer[0]!.body as { model: string }).model).toMatch(/opus/);
    expect(toolNames(reviewer[0]!)).toEqual(["Read", "Glob", "Grep"]);
  });

  test("detecting subagent invocation: the Task call, then messages from inside the subagent", async () => {
    const run = await runExample("subagents-detect.ts", [
      {
        marker: "Analyze code quality",
        steps: [reply().tool("Read", { file_path: "auth.ts" }, "toolu_s1"), reply().text("Fine code.")],
      },
      {
        marker: PARENT,
        steps: [delegation("toolu_p1", "code-reviewer"), reply().text("The reviewer says: fine code.")],
      },
    ]);
    expect(run.stderr).toBe("");
    expect(run.stdout).toBe(
      [
        "Subagent invoked: code-reviewer",
        // The subagent's Read call and its result.
        "  (running inside subagent)",
        "  (running inside subagent)",
        "The reviewer says: fine code.",
        "",
      ].join("\n"),
    );
  });

  test("resuming: the Explore agent's id comes back in the Task result and the session resumes", async () => {
    const run = await runExample(
      "subagents-resume.ts",
      [
        {
          marker: "read-only exploration subagent",
          steps: [
            reply().tool("Grep", { pattern: "app\\.get" }, "toolu_e1"),
            reply().text("Two endpoints: /a, /b."),
          ],
        },
        {
          marker: PARENT,
          steps: [
            delegation("toolu_p1", "Explore", "Find all API endpoints"),
            reply().text("Endpoints: /a and /b."),
            reply().text("Most complex: /b, /a."),
          ],
        },
      ],
      { "server.ts": 'app.get("/a");\napp.get("/b");\n' },
    );
    expect(run.stderr).toBe("");
    expect(run.stdout).toBe("Endpoints: /a and /b.\nMost complex: /b, /a.\n");
    const explore = run.script.requests.get("read-only exploration subagent")!;
    expect(toolNames(explore[0]!)).toEqual(["Read", "Glob", "Grep", "LS", "TodoWrite", "BashOutput"]);
    const parent = run.script.requests.get(PARENT)!;
    const agentId = /agentId: ([a-f0-9]+)/.exec(messagesText(parent[1]!))![1]!;
    // The second query resumed the session: it sends the first one's conversation, and the prompt
    // names the agent id the program found.
    expect(messagesText(parent[2]!)).toContain(`Resume agent ${agentId}`);
    expect(messagesText(parent[2]!)).toContain("Endpoints: /a and /b.");
    expect(toolNames(parent[2]!)).toContain("Agent");
  });

  test("tool restrictions: the analyzer gets only Read, Grep and Glob", async () => {
    const run = await runExample("subagents-tool-restrictions.ts", [
      {
        marker: "code architecture analyst",
        steps: [
          reply().tool("Write", { file_path: "x.ts", content: "" }, "toolu_a1"),
          reply().text("Layered."),
        ],
      },
      { marker: PARENT, steps: [delegation("toolu_p1", "code-analyzer"), reply().text("It is layered.")] },
    ]);
    expect(run.stderr).toBe("");
    expect(run.stdout).toBe("It is layered.\n");
    const analyzer = run.script.requests.get("code architecture analyst")!;
    expect(toolNames(analyzer[0]!)).toEqual(["Read", "Glob", "Grep"]);
    expect(messagesText(analyzer[1]!)).toContain("No such tool available: Write");
  });
});
