import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import {
  getSubagentMessages,
  type HookInput,
  listSubagents,
  query,
  type SDKAssistantMessage,
  type SDKMessage,
  type SDKUserMessage,
} from "../../src/index.js";
import { reply, startScriptedServer } from "../../src/testing/index.js";
import { cleanUp, collect, envFor, result, workspace } from "../sdk/helpers.js";
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
 * Subagents through `query()` (docs/agents.md): the scripted model server answers the parent and
 * each subagent by its system prompt, so the subagents' own requests are visible.
 */
afterEach(cleanUp);

const AGENTS = {
  reviewer: {
    description: "Reviews code.",
    prompt: "You are the REVIEWER subagent.",
    tools: ["Read", "Grep"],
  },
  lister: {
    description: "Lists files.",
    prompt: "You are the LISTER subagent.",
    tools: ["Glob", "LS"],
    model: "haiku",
  },
};

async function delegate(options: Record<string, unknown> = {}, env: NodeJS.ProcessEnv = {}) {
  const script = twoAgentsScript();
  const server = await startScriptedServer({ respond: script.respond });
  const cwd = workspace({ "a.txt": "hello\n" });
  try {
    const messages = await collect(
      query({
        prompt: "Use both agents",
        options: {
          cwd,
          env: { ...envFor(server), ...env },
          agents: AGENTS,
          sandbox: { enabled: false },
          ...options,
        },
      }),
    );
    return { messages, script, server, cwd };
  } finally {
    await server.close();
  }
}

const subtypes = (messages: SDKMessage[], subtype: string) =>
  messages.filter(
    (m) => m.type === "system" && (m as { subtype?: string }).subtype === subtype,
  ) as unknown as Record<string, unknown>[];

describe("subagents through query()", () => {
  test("two subagents run concurrently, each with its own prompt, tools and model; their answers come back", async () => {
    const { messages, script } = await delegate();
    const init = messages[0] as { tools: string[]; agents: string[] };
    expect(init.tools).toContain("Agent");
    expect(init.agents).toEqual(expect.arrayContaining(["general-purpose", "reviewer", "lister"]));

    const reviewer = script.requests.get("REVIEWER")!;
    const lister = script.requests.get("LISTER")!;
    expect(reviewer).toHaveLength(2);
    expect(lister).toHaveLength(2);
    expect(toolNames(reviewer[0]!)).toEqual(["Read", "Grep"]);
    expect(toolNames(lister[0]!)).toEqual(["Glob", "LS"]);
    // Their own conversations: the task, not the parent's prompt.
    expect(messagesText(reviewer[0]!)).toContain("Review a.txt");
    expect(messagesText(reviewer[0]!)).not.toContain("Use both agents");
    expect((lister[0]!.body as { model: string }).model).toMatch(/haiku/);

    // Concurrent: both started before either ended.
    const order = messages
      .filter((m) => m.type === "system")
      .map((m) => (m as { subtype: string }).subtype)
      .filter((s) => s === "task_started" || s === "task_notification");
    expect(order).toEqual(["task_started", "task_started", "task_notification", "task_notification"]);

    const parentFinal = script.requests.get(PARENT)![1]!;
    expect(messagesText(parentFinal)).toContain("a.txt says hello.");
    expect(messagesText(parentFinal)).toContain("One file: a.txt.");
    const end = result(messages);
    expect(end.subtype).toBe("success");
    expect(end.subtype === "success" && end.result).toBe("Both agents reported.");
  });

  test("a tool the agent's definition leaves out is refused", async () => {
    const { messages, script } = await delegate();
    const refused = messages.find(
      (m): m is SDKUserMessage =>
        m.type === "user" && JSON.stringify(m.message.content).includes('"tool_use_id":"toolu_r2"'),
    )!;
    expect(JSON.stringify(refused.message.content)).toContain("No such tool available: Bash");
    expect(refused.parent_tool_use_id).toBe("toolu_p1");
    expect(messagesText(script.requests.get("REVIEWER")![1]!)).toContain("No such tool available: Bash");
  });

  test("every subagent message carries the Agent call's id; task messages name the agent", async () => {
    const { messages } = await delegate({ forwardSubagentText: true });
    const subagentIds: Record<string, string> = {
      toolu_r1: "toolu_p1",
      toolu_r2: "toolu_p1",
      toolu_l1: "toolu_p2",
    };
    const inner = messages.filter(
      (m): m is SDKAssistantMessage | SDKUserMessage =>
        (m.type === "assistant" || m.type === "user") && m.parent_tool_use_id !== null,
    );
    // Tool calls, results and (forwarded) text of both subagents.
    expect(inner.length).toBeGreaterThanOrEqual(8);
    for (const message of inner) {
      const text = JSON.stringify(message.message.content);
      const id = Object.keys(subagentIds).find((key) => text.includes(key));
      if (id) expect(message.parent_tool_use_id).toBe(subagentIds[id]);
      else expect(["toolu_p1", "toolu_p2"]).toContain(message.parent_tool_use_id);
    }
    const texts = inner.filter((m) => m.type === "assistant" && m.message.content[0]?.type === "text");
    expect(texts.map((m) => m.parent_tool_use_id).sort()).toEqual(["toolu_p1", "toolu_p2"]);
    // The parent's own messages stay on the main thread.
    const parentCalls = messages.filter(
      (m): m is SDKAssistantMessage =>
        m.type === "assistant" &&
        m.message.content[0]?.type === "tool_use" &&
        ["Agent", "Task"].includes(m.message.content[0].name),
    );
    expect(parentCalls.map((m) => m.parent_tool_use_id)).toEqual([null, null]);

    const started = subtypes(messages, "task_started");
    expect(started.map((m) => [m.tool_use_id, m.subagent_type, m.description])).toEqual(
      expect.arrayContaining([
        ["toolu_p1", "reviewer", "Review a.txt"],
        ["toolu_p2", "lister", "List files"],
      ]),
    );
    const progress = subtypes(messages, "task_progress");
    expect(progress.map((m) => m.last_tool_name).sort()).toEqual(["Bash", "Glob", "Read"]);
    const done = subtypes(messages, "task_notification");
    expect(done.map((m) => [m.tool_use_id, m.status, m.summary]).sort()).toEqual([
      ["toolu_p1", "completed", "a.txt says hello."],
      ["toolu_p2", "completed", "One file: a.txt."],
    ]);
    expect(
      done.every((m) => typeof m.output_file === "string" && (m.output_file as string).endsWith(".jsonl")),
    ).toBe(true);
  });

  test("without forwardSubagentText a subagent's text stays out of the stream; its answer is the tool result", async () => {
    const { messages } = await delegate();
    const innerText = messages.filter(
      (m) => m.type === "assistant" && m.parent_tool_use_id !== null && m.message.content[0]?.type === "text",
    );
    expect(innerText).toEqual([]);
    const answer = messages.find(
      (m): m is SDKUserMessage =>
        m.type === "user" &&
        m.parent_tool_use_id === null &&
        JSON.stringify(m.message.content).includes("toolu_p1"),
    )!;
    expect(JSON.stringify(answer.message.content)).toContain("a.txt says hello.");
    expect(answer.tool_use_result).toMatchObject({
      status: "completed",
      agentType: "reviewer",
      totalToolUseCount: 2,
    });
  });

  test("by default a subagent's tool calls and results name the subagent (agent_id, subagent_type, task_description); main-thread messages do not", async () => {
    const { messages } = await delegate();
    const started = subtypes(messages, "task_started");
    const taskOf = (toolUseId: string | null) => started.find((task) => task.tool_use_id === toolUseId)!;
    const inner = messages.filter(
      (m): m is SDKAssistantMessage | SDKUserMessage =>
        (m.type === "assistant" || m.type === "user") && m.parent_tool_use_id !== null,
    );
    // Three tool calls and their three results, no text: the convention's default.
    expect(inner.map((m) => m.type).sort()).toEqual([
      "assistant",
      "assistant",
      "assistant",
      "user",
      "user",
      "user",
    ]);
    for (const message of inner) {
      const task = taskOf(message.parent_tool_use_id);
      expect(message).toMatchObject({
        agent_id: task.task_id,
        subagent_type: task.subagent_type,
        task_description: task.description,
      });
    }
    expect(new Set(inner.map((m) => m.subagent_type))).toEqual(new Set(["reviewer", "lister"]));
    const outer = messages.filter(
      (m) => (m.type === "assistant" || m.type === "user") && m.parent_tool_use_id === null,
    );
    expect(outer.length).toBeGreaterThan(0);
    for (const message of outer) expect(message).not.toHaveProperty("agent_id");
  });

  test("CLAUDE_CODE_FORWARD_SUBAGENT_TEXT=1 in env forwards a subagent's text, as the option does; forwardSubagentText: false wins", async () => {
    const innerText = (messages: SDKMessage[]) =>
      messages.filter(
        (m) =>
          m.type === "assistant" && m.parent_tool_use_id !== null && m.message.content[0]?.type === "text",
      );
    const byEnv = await delegate({}, { CLAUDE_CODE_FORWARD_SUBAGENT_TEXT: "1" });
    expect(
      innerText(byEnv.messages)
        .map((m) => (m as SDKAssistantMessage).subagent_type)
        .sort(),
    ).toEqual(["lister", "reviewer"]);
    const off = await delegate({ forwardSubagentText: false }, { CLAUDE_CODE_FORWARD_SUBAGENT_TEXT: "1" });
    expect(innerText(off.messages)).toEqual([]);
  });

  test("usage and cost of the subagents roll up into the result", async () => {
    const { messages } = await delegate();
    const end = result(messages);
    expect(end.usage.input_tokens).toBe(TWO_AGENTS_USAGE.input);
    expect(end.usage.output_tokens).toBe(TWO_AGENTS_USAGE.output);
    const models = Object.keys(end.modelUsage);
    expect(models.some((model) => model.includes("haiku"))).toBe(true);
    expect(models.some((model) => model.includes("sonnet"))).toBe(true);
    const sum = Object.values(end.modelUsage).reduce((total, entry) => total + entry.costUSD, 0);
    expect(end.total_cost_usd).toBeGreaterThan(0);
    expect(end.total_cost_usd).toBeCloseTo(sum, 10);
    const haiku = Object.entries(end.modelUsage).find(([model]) => model.includes("haiku"))![1];
    expect(haiku.inputTokens).toBe(410);
  });

  test("SubagentStart and SubagentStop hooks fire with the agent's id, type and transcript", async () => {
    const inputs: HookInput[] = [];
    const hook = async (input: HookInput) => {
      inputs.push(input);
      return {};
    };
    const { messages } = await delegate({
      hooks: {
        SubagentStart: [{ hooks: [hook] }],
        SubagentStop: [{ hooks: [hook] }],
        Stop: [{ hooks: [hook] }],
      },
    });
    expect(result(messages).subtype).toBe("success");
    const starts = inputs.filter((i) => i.hook_event_name === "SubagentStart") as Record<string, unknown>[];
    const stops = inputs.filter((i) => i.hook_event_name === "SubagentStop") as Record<string, unknown>[];
    expect(starts.map((i) => i.agent_type).sort()).toEqual(["lister", "reviewer"]);
    expect(stops.map((i) => i.agent_type).sort()).toEqual(["lister", "reviewer"]);
    for (const stop of stops) {
      expect(starts.map((s) => s.agent_id)).toContain(stop.agent_id);
      expect(stop.agent_transcript_path).toMatch(new RegExp(`subagents/agent-${stop.agent_id}\\.jsonl$`));
      expect(stop.stop_hook_active).toBe(false);
    }
    // Stop fires once: for the parent, not for its subagents.
    expect(inputs.filter((i) => i.hook_event_name === "Stop")).toHaveLength(1);
    const transcript = readFileSync(stops[0]!.agent_transcript_path as string, "utf8");
    expect(transcript).toContain('"sidechain"');
  });

  test("supportedAgents() lists the agents; without agents the Agent tool is not offered", async () => {
    const server = await startScriptedServer({ steps: [reply().text("Hi.")] });
    try {
      const q = query({ prompt: "Hi", options: { cwd: workspace(), env: envFor(server), agents: AGENTS } });
      const agents = await q.supportedAgents();
      expect(agents.map((a) => a.name)).toEqual(["general-purpose", "Explore", "reviewer", "lister"]);
      expect(agents.find((a) => a.name === "lister")).toEqual({
        name: "lister",
        description: "Lists files.",
        model: "haiku",
      });
      await collect(q);
      const plain = await collect(
        query({ prompt: "Hi", options: { cwd: workspace(), env: envFor(server) } }),
      );
      expect((plain[0] as { tools: string[] }).tools).not.toContain("Agent");
      expect((plain[0] as { agents: string[] }).agents).toEqual([]);
    } finally {
      await server.close();
    }
  });
});

describe("subagents: interrupts and resumed sessions", () => {
  test("interrupting the parent stops its subagents; the turn ends instead of waiting for them", async () => {
    const script = hangingAgentScript();
    const server = await startScriptedServer({ respond: script.respond });
    try {
      const q = query({
        prompt: "Review",
        options: { cwd: workspace(), env: envFor(server), agents: AGENTS },
      });
      const messages: SDKMessage[] = [];
      for await (const message of q) {
        messages.push(message);
        if (message.type === "system" && message.subtype === "task_started") {
          // Once the subagent's model request (which the server never answers) is out; the stream is
          // read meanwhile: a subagent waits for its messages to be taken.
          void (async () => {
            while (script.requests.get("REVIEWER")!.length === 0) await new Promise((r) => setImmediate(r));
            await q.interrupt();
          })();
        }
      }
      const end = result(messages);
      expect(end.subtype).toBe("error_during_execution");
      expect(end.subtype !== "success" && end.errors.join(" ")).toContain("interrupted");
      const done = subtypes(messages, "task_notification");
      expect(done.map((m) => m.status)).toEqual(["stopped"]);
      const answer = messages.find(
        (m): m is SDKUserMessage => m.type === "user" && m.parent_tool_use_id === null,
      )!;
      expect(JSON.stringify(answer.message.content)).toContain('"is_error":true');
    } finally {
      await server.close();
    }
  });

  test("a resumed session has the Agent call and its answer, not the subagent's own messages", async () => {
    const first = await delegate();
    const sessionId = result(first.messages).session_id;
    const server = await startScriptedServer({ steps: [reply().text("Resumed.")] });
    try {
      const again = await collect(
        query({
          prompt: "And now?",
          options: { cwd: first.cwd, env: envFor(server), agents: AGENTS, resume: sessionId },
        }),
      );
      expect(result(again).subtype).toBe("success");
      const sent = messagesText(server.requests[0]!);
      expect(sent).toContain("toolu_p1");
      expect(sent).toContain("a.txt says hello.");
      for (const inner of ["toolu_r1", "toolu_r2", "toolu_l1", "REVIEWER", "LISTER"])
        expect(sent).not.toContain(inner);
    } finally {
      await server.close();
    }
    // The subagents' messages are kept in their own transcripts.
    const files = subtypes(first.messages, "task_notification").map((m) =>
      readFileSync(m.output_file as string, "utf8"),
    );
    expect(files.join("\n")).toContain("toolu_r1");
    expect(files.join("\n")).toContain("toolu_l1");
  });

  test("listSubagents() and getSubagentMessages() read the subagents' transcripts of a session", async () => {
    // The session functions look in this process's CAIRN_HOME.
    const run = await delegate({}, { CAIRN_HOME: process.env.CAIRN_HOME });
    const sessionId = result(run.messages).session_id;
    const started = subtypes(run.messages, "task_started").map((m) => m.task_id as string);
    const ids = await listSubagents(sessionId);
    expect([...ids].sort()).toEqual([...started].sort());
    const texts = await Promise.all(
      ids.map(async (agentId) => {
        const messages = await getSubagentMessages(sessionId, agentId);
        expect(messages.length).toBeGreaterThan(1);
        for (const message of messages)
          expect(message).toMatchObject({ session_id: sessionId, parent_agent_id: agentId });
        return JSON.stringify(messages.map((m) => m.message));
      }),
    );
    // Each subagent's own conversation: one holds the reviewer's call, the other the lister's.
    expect(texts.filter((text) => text.includes("toolu_r1"))).toHaveLength(1);
    expect(texts.filter((text) => text.includes("toolu_l1"))).toHaveLength(1);
    expect(await getSubagentMessages(sessionId, "no-such-agent")).toEqual([]);
    expect(await getSubagentMessages(sessionId, ids[0]!, { limit: 1 })).toHaveLength(1);
  });
});

describe("the agent option: the main thread as a named agent", () => {
  test("its prompt, tools and model; an unknown name is a configuration error", async () => {
    const server = await startScriptedServer({ steps: [reply().text("Listed.")] });
    try {
      const messages = await collect(
        query({
          prompt: "List",
          options: { cwd: workspace(), env: envFor(server), agents: AGENTS, agent: "lister" },
        }),
      );
      expect(result(messages).subtype).toBe("success");
      const request = server.requests[0]!;
      expect(JSON.stringify((request.body as { system: unknown }).system)).toContain(
        "You are the LISTER subagent.",
      );
      expect(toolNames(request)).toEqual(["Glob", "LS", "Agent"]);
      expect((request.body as { model: string }).model).toMatch(/haiku/);
      await expect(
        collect(query({ prompt: "Hi", options: { cwd: workspace(), env: envFor(server), agent: "nobody" } })),
      ).rejects.toThrow(/No agent named "nobody"\. Agents: general-purpose, Explore\./);
    } finally {
      await server.close();
    }
  });
});

describe("a subagent cannot escape the parent's permissions", () => {
  test("plan mode and the parent's hooks apply to the general-purpose agent's calls", async () => {
    const script = byAsker([
      {
        marker: "You are a subagent of cairn",
        steps: [
          reply()
            .tool("Write", { file_path: "out.txt", content: "x" }, "toolu_s1")
            .tool("Bash", { command: "touch marker" }, "toolu_s2"),
          reply().text("Could not write."),
        ],
      },
      {
        marker: PARENT,
        steps: [
          reply().tool("Agent", { description: "Write it", prompt: "Write out.txt" }, "toolu_p1"),
          reply().text("Done."),
        ],
      },
    ]);
    const server = await startScriptedServer({ respond: script.respond });
    const seen: string[] = [];
    const agentTypes: (string | undefined)[] = [];
    const cwd = workspace();
    try {
      const messages = await collect(
        query({
          prompt: "Write out.txt",
          options: {
            cwd,
            env: envFor(server),
            permissionMode: "plan",
            allowedTools: ["Agent", "Write", "Bash"],
            sandbox: { enabled: false },
            hooks: {
              PreToolUse: [
                {
                  hooks: [
                    async (input) => {
                      if (input.hook_event_name === "PreToolUse") seen.push(input.tool_name);
                      if (input.hook_event_name === "PreToolUse" && input.tool_name !== "Agent")
                        agentTypes.push(input.agent_type);
                      return {};
                    },
                  ],
                },
              ],
            },
          },
        }),
      );
      const end = result(messages);
      expect(end.permission_denials.map((denial) => denial.tool_use_id).sort()).toEqual([
        "toolu_s1",
        "toolu_s2",
      ]);
      expect(seen).toEqual(expect.arrayContaining(["Agent", "Write", "Bash"]));
      // The subagent's calls say whose they are.
      expect(agentTypes).toEqual(["general-purpose", "general-purpose"]);
      expect(existsSync(join(cwd, "out.txt"))).toBe(false);
      expect(existsSync(join(cwd, "marker"))).toBe(false);
      expect(messagesText(script.requests.get("You are a subagent of cairn")![1]!)).toContain("plan mode");
    } finally {
      await server.close();
    }
  });
});

describe("a subagent that does not finish", () => {
  test("its turn limit ends it; the parent reads why as the Agent call's error and goes on", async () => {
    const script = byAsker([
      { marker: "SLOW", steps: [reply().tool("Read", { file_path: "a.txt" }, "toolu_s1")] },
      {
        marker: PARENT,
        steps: [
          reply().tool("Agent", { description: "Slow", prompt: "Go", subagent_type: "slow" }, "toolu_p1"),
          reply().text("It ran out of turns."),
        ],
      },
    ]);
    const server = await startScriptedServer({ respond: script.respond });
    try {
      const messages = await collect(
        query({
          prompt: "Go",
          options: {
            cwd: workspace({ "a.txt": "a\n" }),
            env: envFor(server),
            agents: { slow: { description: "Slow.", prompt: "You are SLOW.", maxTurns: 1 } },
          },
        }),
      );
      const end = result(messages);
      expect(end.subtype === "success" && end.result).toBe("It ran out of turns.");
      const sent = messagesText(script.requests.get(PARENT)![1]!);
      expect(sent).toContain("The subagent slow did not finish: Reached the maximum number of turns (1).");
      expect(sent).toContain('"is_error":true');
      expect(subtypes(messages, "task_notification").map((m) => m.status)).toEqual(["failed"]);
    } finally {
      await server.close();
    }
  });
});

describe("canUseTool and subagents", () => {
  test("a subagent's call is asked about like the parent's, with the subagent's agentID", async () => {
    const script = byAsker([
      {
        marker: "REVIEWER",
        steps: [reply().tool("Bash", { command: "npm test" }, "toolu_r1"), reply().text("Tests ran.")],
      },
      {
        marker: PARENT,
        steps: [
          reply().tool(
            "Agent",
            { description: "Test", prompt: "Run the tests", subagent_type: "reviewer" },
            "toolu_p1",
          ),
          reply().text("Done."),
        ],
      },
    ]);
    const server = await startScriptedServer({ respond: script.respond });
    const asked: { tool: string; toolUseID: string; agentID: string | undefined }[] = [];
    try {
      const messages = await collect(
        query({
          prompt: "Test",
          options: {
            cwd: workspace(),
            env: envFor(server),
            sandbox: { enabled: false },
            agents: {
              reviewer: { description: "Runs tests.", prompt: "You are the REVIEWER.", tools: ["Bash"] },
            },
            canUseTool: async (tool, _input, { toolUseID, agentID }) => {
              asked.push({ tool, toolUseID, agentID });
              return { behavior: "deny", message: "not now" };
            },
          },
        }),
      );
      const started = subtypes(messages, "task_started")[0]!;
      expect(asked).toEqual([{ tool: "Bash", toolUseID: "toolu_r1", agentID: started.task_id }]);
      expect(messagesText(script.requests.get("REVIEWER")![1]!)).toContain("not now");
    } finally {
      await server.close();
    }
  });
});
