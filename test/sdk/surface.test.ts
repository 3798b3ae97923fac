/**
 * The rest of the convention's surface (docs/sdk.md): its exports, the session functions over
 * cairn's transcripts, startup/prewarm, the options cairn implements besides the core ones, every
 * `Query` method, and the messages for API errors, long tools, status changes and rate limits.
 */
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import * as z from "zod";
import {
  AbortError,
  BUILTIN_TOOL_NAMES,
  createSdkMcpServer,
  deleteSession,
  EXIT_REASONS,
  forkSession,
  getSessionInfo,
  getSessionMessages,
  HOOK_EVENTS,
  InMemorySessionStore,
  importSessionToStore,
  LEGACY_TOOL_NAME_ALIASES,
  listSessions,
  listSubagents,
  type Options,
  prewarm,
  query,
  renameSession,
  type SDKMessage,
  type SDKUserMessage,
  SessionNotFoundError,
  startup,
  tagSession,
  tool,
} from "../../src/index.js";
import { workspaceKey } from "../../src/sessions/store.js";
import { reply, type ScriptedServer } from "../../src/testing/index.js";
import {
  cleanUp,
  collect,
  envFor,
  init,
  labels,
  result,
  semanticBody,
  startServer,
  workspace,
} from "./helpers.js";

afterEach(cleanUp);

/** Every documented `Query` method of the convention (§2). */
const QUERY_METHODS = [
  "interrupt",
  "setPermissionMode",
  "setMcpPermissionModeOverride",
  "setModel",
  "setMaxThinkingTokens",
  "applyFlagSettings",
  "updateSettings",
  "initializationResult",
  "reinitialize",
  "supportedCommands",
  "supportedModels",
  "supportedAgents",
  "mcpServerStatus",
  "getContextUsage",
  "usage_EXPERIMENTAL_MAY_CHANGE_DO_NOT_RELY_ON_THIS_API_YET",
  "readFile",
  "reloadPlugins",
  "reloadSkills",
  "reloadOutputStyles",
  "accountInfo",
  "rewindFiles",
  "seedReadState",
  "reconnectMcpServer",
  "toggleMcpServer",
  "readMcpResource",
  "setMcpServers",
  "streamInput",
  "stopTask",
  "backgroundTasks",
  "close",
  "next",
  "return",
  "throw",
];

/** A query against `server` in `cwd`, its transcripts in this process's CAIRN_HOME (where the session functions look). */
function options(server: ScriptedServer, cwd: string, extra: Options = {}): Options {
  return { cwd, env: { ...envFor(server), CAIRN_HOME: process.env.CAIRN_HOME }, ...extra };
}

async function* messages(...texts: string[]): AsyncGenerator<SDKUserMessage> {
  for (const text of texts)
    yield { type: "user", message: { role: "user", content: text }, parent_tool_use_id: null };
}

const ofType = <T extends SDKMessage["type"]>(all: SDKMessage[], type: T) =>
  all.filter((message): message is Extract<SDKMessage, { type: T }> => message.type === type);

describe("exports", () => {
  // That every export exists: convention-names.test.ts.
  test("the convention's runtime exports have its shapes", () => {
    expect(HOOK_EVENTS).toHaveLength(34);
    expect(EXIT_REASONS).toEqual(["clear", "resume", "logout", "prompt_input_exit", "other"]);
    expect(BUILTIN_TOOL_NAMES).toEqual(
      expect.arrayContaining(["Read", "Write", "Edit", "Bash", "Glob", "Grep"]),
    );
    expect(LEGACY_TOOL_NAME_ALIASES.Task).toBe("Agent");
    const error = new AbortError("aborted");
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe("AbortError");
  });

  test("every Query method of the convention is a function", () => {
    const q = query({ prompt: "x", options: { cwd: workspace() } });
    expect(
      QUERY_METHODS.filter((name) => typeof (q as unknown as Record<string, unknown>)[name] !== "function"),
    ).toEqual([]);
    q.close();
  });

  test("every Query method of the convention has a row in docs/sdk.md", () => {
    const docs = readFileSync(new URL("../../docs/sdk.md", import.meta.url), "utf8");
    const rows = docs.split("\n").filter((line) => line.startsWith("|"));
    const undocumented = QUERY_METHODS.filter((name) => !rows.some((row) => row.includes(`\`${name}(`)));
    expect(undocumented).toEqual([]);
  });
});

describe("session functions over cairn's transcripts", () => {
  test("list, info, messages, rename, tag, fork up to a message, delete", async () => {
    const server = await startServer([reply().text("First answer."), reply().text("Second answer.")]);
    const cwd = workspace();
    const run = await collect(query({ prompt: messages("one", "two"), options: options(server, cwd) }));
    const sessionId = init(run).session_id;

    const listed = await listSessions({ dir: cwd });
    expect(listed).toEqual([
      expect.objectContaining({ sessionId, summary: "one", firstPrompt: "one", cwd: expect.any(String) }),
    ]);
    expect(listed[0]!.lastModified).toBeGreaterThan(0);
    expect((await listSessions()).map((info) => info.sessionId)).toContain(sessionId);

    const history = await getSessionMessages(sessionId, { dir: cwd });
    expect(history.map((m) => [m.type, JSON.stringify(m.message)])).toEqual([
      ["user", expect.stringContaining('"one"')],
      ["assistant", expect.stringContaining("First answer.")],
      ["user", expect.stringContaining('"two"')],
      ["assistant", expect.stringContaining("Second answer.")],
    ]);
    // Stable ids: the same on every read.
    expect((await getSessionMessages(sessionId)).map((m) => m.uuid)).toEqual(history.map((m) => m.uuid));
    expect(await getSessionMessages(sessionId, { offset: 1, limit: 2 })).toEqual(history.slice(1, 3));

    await renameSession(sessionId, "Numbers", { dir: cwd });
    await tagSession(sessionId, "demo");
    expect(await getSessionInfo(sessionId)).toMatchObject({
      summary: "Numbers",
      customTitle: "Numbers",
      tag: "demo",
    });
    await tagSession(sessionId, null);
    expect((await getSessionInfo(sessionId))?.tag).toBeUndefined();

    const fork = await forkSession(sessionId, { upToMessageId: history[1]!.uuid, title: "Just one" });
    expect(fork.sessionId).not.toBe(sessionId);
    expect((await getSessionMessages(fork.sessionId)).map((m) => m.message)).toEqual(
      history.slice(0, 2).map((m) => m.message),
    );
    expect((await getSessionInfo(fork.sessionId))?.summary).toBe("Just one");
    expect(await listSubagents(sessionId)).toEqual([]);

    const store = new InMemorySessionStore();
    await importSessionToStore(sessionId, store, { dir: cwd });
    const [stored] = await store.listSessions(workspaceKey(cwd));
    expect(stored?.sessionId).toBe(sessionId);
    expect(await store.load({ projectKey: workspaceKey(cwd), sessionId })).toEqual(history);

    await deleteSession(sessionId);
    expect(await getSessionInfo(sessionId)).toBeUndefined();
    await expect(getSessionMessages(sessionId)).rejects.toThrow(SessionNotFoundError);
    await expect(renameSession("no-such-session", "x")).rejects.toThrow(SessionNotFoundError);
  });

  test("the title option names the session as renameSession() would", async () => {
    const server = await startServer([reply().text("Titled."), reply().text("Untitled.")]);
    const cwd = workspace();
    const run = await collect(
      query({ prompt: "hello", options: options(server, cwd, { title: "Release notes" }) }),
    );
    const sessionId = init(run).session_id;
    expect(await getSessionInfo(sessionId)).toMatchObject({
      customTitle: "Release notes",
      summary: "Release notes",
    });
    const untitled = await collect(query({ prompt: "again", options: options(server, cwd) }));
    expect((await getSessionInfo(init(untitled).session_id))?.customTitle).toBeUndefined();
  });

  test("resumeSessionAt: the conversation goes on from that message, also on a later resume", async () => {
    const server = await startServer([
      reply().text("A1"),
      reply().text("A2"),
      reply().text("After the rewind."),
      reply().text("Still rewound."),
    ]);
    const cwd = workspace();
    const first = await collect(query({ prompt: messages("Q1", "Q2"), options: options(server, cwd) }));
    const sessionId = init(first).session_id;
    const history = await getSessionMessages(sessionId);
    const atA1 = history[1]!.uuid;

    await collect(
      query({ prompt: "Q3", options: options(server, cwd, { resume: sessionId, resumeSessionAt: atA1 }) }),
    );
    const rewound = JSON.stringify(semanticBody(server.requests[2]!.body));
    expect(rewound).toContain("A1");
    expect(rewound).not.toContain("Q2");
    await collect(query({ prompt: "Q4", options: options(server, cwd, { resume: sessionId }) }));
    const later = JSON.stringify(semanticBody(server.requests[3]!.body));
    expect(later).toContain("After the rewind.");
    expect(later).not.toContain("A2");

    const unknown = query({
      prompt: "x",
      options: options(server, cwd, {
        resume: sessionId,
        resumeSessionAt: "00000000-0000-5000-8000-000000000000",
      }),
    });
    await expect(unknown.next()).rejects.toThrow(/resumeSessionAt.*No message 00000000/);
  });
});

describe("startup() and prewarm()", () => {
  test("startup validates at once and runs one query; prewarm's claim reports the session", async () => {
    await expect(startup({ options: { maxTurns: 0 } })).rejects.toThrow(/maxTurns/);
    const server = await startServer([reply().text("Warm."), reply().text("Claimed.")]);
    const cwd = workspace();
    const warm = await startup({ options: options(server, cwd) });
    expect(result(await collect(warm.query("Hi")))).toMatchObject({ result: "Warm." });
    expect(() => warm.query("again")).toThrow(/only once/);

    const spare = await prewarm({ options: { env: options(server, cwd).env } });
    const claimed = await collect(spare.claim({ prompt: "Hi", options: { cwd } }));
    expect(result(claimed)).toMatchObject({ result: "Claimed." });
    expect(await spare.claimed).toMatchObject({ cwd, sessionId: init(claimed).session_id });
    await spare.exited;
  });
});

describe("options", () => {
  test("stderr gets cairn's diagnostics: ignored options and the run's warnings", async () => {
    const server = await startServer([reply().text("ok")]);
    const lines: string[] = [];
    await collect(
      query({
        prompt: "Go",
        options: {
          ...options(server, workspace()),
          stderr: (line) => lines.push(line),
          appendSystemPrompt: "x",
          mcpServers: { broken: { command: "/definitely/not/a/server" } },
        } as Options,
      }),
    );
    expect(lines).toContainEqual(expect.stringMatching(/unknown option "appendSystemPrompt" ignored.*\n$/));
    expect(lines).toContainEqual(expect.stringMatching(/^cairn: MCP server broken failed/));
  });

  test("debugFile gets the same diagnostics as stderr, appended, readable by its owner only", async () => {
    const server = await startServer([reply().text("ok")]);
    const cwd = workspace();
    await collect(
      query({
        prompt: "Go",
        options: {
          ...options(server, cwd),
          debugFile: "cairn-debug.log",
          appendSystemPrompt: "x",
        } as Options,
      }),
    );
    const file = join(cwd, "cairn-debug.log");
    expect(readFileSync(file, "utf8")).toMatch(/unknown option "appendSystemPrompt" ignored.*\n$/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  test("betas are sent as the anthropic-beta header", async () => {
    const server = await startServer([reply().text("ok")]);
    await collect(
      query({
        prompt: "Go",
        options: options(server, workspace(), { betas: ["context-1m-2025-08-07", "b2"] }),
      }),
    );
    expect(server.requests[0]!.headers["anthropic-beta"]).toBe("context-1m-2025-08-07,b2");
  });

  test("permissionPromptToolName: an MCP tool answers the permission questions", async () => {
    const asked: string[] = [];
    const approver = createSdkMcpServer({
      name: "approver",
      tools: [
        tool(
          "prompt",
          "Answers permission prompts",
          { tool_name: z.string(), input: z.record(z.string(), z.unknown()), tool_use_id: z.string() },
          async ({ tool_name }) => {
            asked.push(tool_name);
            const answer =
              tool_name === "Write"
                ? { behavior: "allow" }
                : { behavior: "deny", message: "No commands here." };
            return { content: [{ type: "text", text: JSON.stringify(answer) }] };
          },
        ),
      ],
    });
    const server = await startServer([
      reply().tool("Write", { file_path: "a.txt", content: "A\n" }),
      reply().tool("Bash", { command: "rm -rf build" }),
      reply().text("Done."),
    ]);
    const cwd = workspace();
    const run = await collect(
      query({
        prompt: "Go",
        options: options(server, cwd, {
          mcpServers: { approver },
          permissionPromptToolName: "mcp__approver__prompt",
          allowedTools: ["mcp__approver"],
        }),
      }),
    );
    expect(asked).toEqual(["Write", "Bash"]);
    expect(readFileSync(join(cwd, "a.txt"), "utf8")).toBe("A\n");
    expect(result(run).permission_denials.map((denial) => denial.tool_name)).toEqual(["Bash"]);
    expect(JSON.stringify(server.requests[2]!.body)).toContain("No commands here.");
  });

  test('tools: { type: "preset", preset: "claude_code" } is the full built-in set', async () => {
    const server = await startServer([reply().text("ok")]);
    const run = await collect(
      query({
        prompt: "Go",
        options: options(server, workspace(), { tools: { type: "preset", preset: "claude_code" } }),
      }),
    );
    const init = run[0]!;
    // Without canUseTool nobody answers AskUserQuestion, and ExitPlanMode is offered in plan mode only.
    const offered = BUILTIN_TOOL_NAMES.filter(
      (name) => name !== "AskUserQuestion" && name !== "ExitPlanMode",
    );
    expect(init.type === "system" && init.subtype === "init" && init.tools).toEqual(offered);
  });
});

describe("Query methods", () => {
  test("initializationResult, accountInfo, context usage, readFile and the documented answers", async () => {
    const server = await startServer([reply().text("ok")]);
    const cwd = workspace({ "notes.txt": "hello world\n" });
    const q = query({ prompt: "Go", options: options(server, cwd) });
    await collect(q);
    expect(await q.initializationResult()).toMatchObject({
      commands: [expect.objectContaining({ name: "compact" })],
      agents: [],
      output_style: "default",
      available_output_styles: ["default"],
      models: expect.arrayContaining([
        expect.objectContaining({ value: expect.stringMatching(/^anthropic\//) }),
      ]),
      account: { apiProvider: "firstParty" },
    });
    expect(await q.getContextUsage()).toMatchObject({
      totalTokens: expect.any(Number),
      maxTokens: expect.any(Number),
    });
    expect((await q.getContextUsage()).totalTokens).toBeGreaterThan(0);
    expect(await q.readFile("notes.txt", { maxBytes: 5 })).toEqual({
      contents: "hello",
      absPath: expect.stringMatching(/notes\.txt$/),
      truncated: true,
      encoding: "utf-8",
    });
    expect(await q.readFile("missing.txt")).toBeNull();
    await expect(q.stopTask("t1")).rejects.toThrow(/no task t1/);
    expect(await q.backgroundTasks()).toBe(false);
    expect(await q.rewindFiles("u1")).toMatchObject({ canRewind: false });
    expect(await q.setMcpPermissionModeOverride("srv", "auto")).toEqual({
      warning: expect.stringMatching(/mcp__srv/),
    });
  });

  test("a query closed without being iterated ends the MCP servers a method started", async () => {
    const server = await startServer([]);
    const echo = createSdkMcpServer({
      name: "echo",
      tools: [
        tool("echo", "Echoes", { text: z.string() }, async ({ text }) => ({
          content: [{ type: "text", text }],
        })),
      ],
    });
    const q = query({ prompt: "Go", options: options(server, workspace(), { mcpServers: { echo } }) });
    await q.getContextUsage();
    expect((await q.mcpServerStatus()).map((status) => status.status)).toEqual(["connected"]);
    q.close();
    await new Promise((resolve) => setImmediate(resolve));
    expect((await q.mcpServerStatus()).map((status) => status.status)).toEqual(["disabled"]);
    expect(server.requests).toEqual([]);
  });

  test("streamInput adds turns: to a string prompt's query, and beside a prompt iterable", async () => {
    const server = await startServer([reply().text("One."), reply().text("Two."), reply().text("Three.")]);
    const cwd = workspace();
    const q = query({ prompt: "first", options: options(server, cwd) });
    const streamed = q.streamInput(messages("second", "third"));
    const all = await collect(q);
    await streamed;
    expect(ofType(all, "result").map((end) => end.subtype === "success" && end.result)).toEqual([
      "One.",
      "Two.",
      "Three.",
    ]);
    // One conversation: the last request holds the first prompt.
    expect(JSON.stringify(server.requests[2]!.body)).toContain("first");
    await expect(q.streamInput(messages("late"))).rejects.toThrow(/takes no more input/);
  });
});

describe("messages", () => {
  test("tool_progress heartbeats while a command runs, between its tool_use and its result", async () => {
    const server = await startServer([reply().tool("Bash", { command: "sleep 1" }), reply().text("Slept.")]);
    const base = options(server, workspace());
    const run = await collect(
      query({
        prompt: "Go",
        options: {
          ...base,
          env: { ...base.env, CAIRN_TOOL_PROGRESS_SECONDS: "0.1" },
          permissionMode: "bypassPermissions",
          sandbox: { enabled: false },
        },
      }),
    );
    const progress = ofType(run, "tool_progress");
    expect(progress.length).toBeGreaterThan(0);
    const use = run.findIndex((m) => m.type === "assistant" && m.message.content[0]?.type === "tool_use");
    const done = run.findIndex((m) => m.type === "user");
    const call = run[use]!;
    const id =
      call.type === "assistant" && call.message.content[0]?.type === "tool_use" && call.message.content[0].id;
    for (const heartbeat of progress) {
      expect(heartbeat).toMatchObject({ tool_name: "Bash", tool_use_id: id, parent_tool_use_id: null });
      const at = run.indexOf(heartbeat);
      expect(at > use && at < done).toBe(true);
    }
  });

  test("rate_limit_event from the Anthropic rate-limit headers", async () => {
    const server = await startServer([
      reply().text("ok").headers({
        "anthropic-ratelimit-requests-limit": "100",
        "anthropic-ratelimit-requests-remaining": "5",
        "anthropic-ratelimit-requests-reset": "2026-12-02T01:00:00Z",
        "anthropic-ratelimit-tokens-limit": "10000",
        "anthropic-ratelimit-tokens-remaining": "9000",
      }),
    ]);
    const run = await collect(query({ prompt: "Go", options: options(server, workspace()) }));
    expect(ofType(run, "rate_limit_event")).toEqual([
      {
        type: "rate_limit_event",
        rate_limit_info: {
          status: "allowed_warning",
          limit: "requests",
          utilization: 0.95,
          resetsAt: Date.parse("2026-12-02T01:00:00Z") / 1000,
        },
        uuid: expect.any(String),
        session_id: init(run).session_id,
      },
    ]);
  });

  test("system/status: compacting, then the result; a permission mode set mid-turn", async () => {
    const server = await startServer([
      reply().text("First answer."),
      reply().text("Summary: one question, one answer."),
      reply().tool("Glob", { pattern: "*" }),
      reply().text("Listed."),
    ]);
    const q = query({
      prompt: messages("Question", "/compact", "List"),
      options: options(server, workspace()),
    });
    const seen: SDKMessage[] = [];
    for await (const message of q) {
      seen.push(message);
      if (message.type === "assistant" && message.message.content[0]?.type === "tool_use") {
        await q.setPermissionMode("acceptEdits");
      }
    }
    const statuses = seen.filter((m) => m.type === "system" && m.subtype === "status");
    expect(statuses).toEqual([
      expect.objectContaining({ status: "compacting" }),
      expect.objectContaining({ status: null, compact_result: "success" }),
      expect.objectContaining({ status: null, permissionMode: "acceptEdits" }),
    ]);
    const order = labels(seen);
    expect(order.indexOf("system/compact_boundary")).toBeGreaterThan(order.indexOf("system/status"));
  });
});

test("AbortError: an aborted query ends its turn with an error result and does not throw", async () => {
  const server = await startServer([reply().text("never").delayPerEvent(200)]);
  const abortController = new AbortController();
  const q = query({ prompt: "Go", options: options(server, workspace(), { abortController }) });
  const seen: SDKMessage[] = [];
  let thrown: unknown;
  try {
    for await (const message of q) {
      seen.push(message);
      abortController.abort();
    }
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeUndefined();
  expect(result(seen)).toMatchObject({
    subtype: "error_during_execution",
    errors: ["The run was interrupted."],
  });
});
