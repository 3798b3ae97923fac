/**
 * The official agent SDK (`@anthropic-ai/claude-agent-sdk`, a devDependency) driving cairn as its CLI
 * through `pathToClaudeCodeExecutable`, over the agent-SDK CLI protocol (docs/protocols.md), against
 * the scripted model server.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { createSdkMcpServer, query, tool } from "@anthropic-ai/claude-agent-sdk";
import { afterEach, describe, expect, test } from "vitest";
import * as z from "zod";
import { reply, startScriptedServer } from "../../src/testing/index.js";
import { twoAgentsScript } from "../agents/helpers.js";
import { EVERYTHING } from "../mcp/helpers.js";
import { cleanUp, startServer, workspace } from "../sdk/helpers.js";
import { throughCairn } from "./agent-sdk.helpers.js";

afterEach(cleanUp);

type Message = { type: string; subtype?: string } & Record<string, unknown>;

async function collect(messages: AsyncIterable<unknown>): Promise<Message[]> {
  const out: Message[] = [];
  for await (const message of messages) out.push(message as Message);
  return out;
}

/** A streamed prompt, as a program writes it (`session_id: ""`: the CLI knows the session). */
const userMessage = (content: string) => ({
  type: "user" as const,
  message: { role: "user" as const, content },
  parent_tool_use_id: null,
  session_id: "",
});

const resultOf = (messages: Message[]) =>
  messages.find((m) => m.type === "result") as Message & Record<string, unknown>;

describe("the official agent SDK drives cairn", () => {
  test("a plain query(): init, assistant, result", async () => {
    const server = await startServer([reply().text("Hello from cairn.")]);
    const messages = await collect(
      query({ prompt: "Say hello", options: throughCairn(server, workspace()) }),
    );
    // The program's first message is `init`, as with Claude Code: the turn's boundaries
    // (`session_state_changed`, which the SDK asks for with CLAUDE_CODE_SDK_READS_SESSION_STATE=1)
    // are marked `sdk_host_only`, and the SDK keeps them for itself.
    expect(messages[0]).toMatchObject({
      type: "system",
      subtype: "init",
      tools: expect.arrayContaining(["Read"]),
    });
    expect(messages.filter((m) => m.subtype === "session_state_changed")).toEqual([]);
    expect(resultOf(messages)).toMatchObject({
      subtype: "success",
      result: "Hello from cairn.",
      is_error: false,
    });
    expect(JSON.stringify(server.requests[0]!.body)).toContain("Say hello");
  });

  test("a program that asks for the turn states itself (CLAUDE_CODE_EMIT_SESSION_STATE_EVENTS=1) gets running and idle", async () => {
    // Zed's adapter asks so, and ends a prompt on `idle`.
    const server = await startServer([reply().text("Hello.")]);
    const messages = await collect(
      query({
        prompt: "Say hello",
        options: throughCairn(server, workspace(), { CLAUDE_CODE_EMIT_SESSION_STATE_EVENTS: "1" }),
      }),
    );
    // (Other system messages, such as a note that the machine has no sandbox, may come between.)
    const flow = messages
      .filter((m) => ["session_state_changed", "init", "success"].includes(m.subtype ?? ""))
      .map((m) => (m.subtype === "session_state_changed" ? m.state : m.subtype));
    expect(flow).toEqual(["running", "init", "success", "idle"]);
  });

  test("includePartialMessages streams the raw deltas", async () => {
    const server = await startServer([reply().text("Streaming works.")], { chunkSize: 4 });
    const messages = await collect(
      query({
        prompt: "Go",
        options: { ...throughCairn(server, workspace()), includePartialMessages: true },
      }),
    );
    const deltas = messages
      .filter((m) => m.type === "stream_event")
      .map((m) => (m.event as { delta?: { text?: string } }).delta?.text ?? "")
      .join("");
    expect(deltas).toBe("Streaming works.");
  });

  test("canUseTool answers cairn's can_use_tool requests: allow runs the command, deny does not", async () => {
    for (const behavior of ["allow", "deny"] as const) {
      const server = await startServer([
        reply().tool("Bash", { command: "touch marker" }),
        reply().text("Done."),
      ]);
      const cwd = workspace();
      const asked: string[] = [];
      const messages = await collect(
        query({
          prompt: "Touch the marker",
          options: {
            ...throughCairn(server, cwd),
            canUseTool: async (toolName, input) => {
              asked.push(toolName);
              return behavior === "allow"
                ? { behavior: "allow", updatedInput: input }
                : { behavior: "deny", message: "not here" };
            },
          },
        }),
      );
      expect(asked).toEqual(["Bash"]);
      expect(existsSync(join(cwd, "marker"))).toBe(behavior === "allow");
      expect(resultOf(messages)).toMatchObject({ subtype: "success" });
    }
  });

  test("a PreToolUse hook in the host denies a write (hook_callback round trip)", async () => {
    const server = await startServer([
      reply().tool("Write", { file_path: ".env", content: "SECRET=1\n" }),
      reply().text("Could not."),
    ]);
    const cwd = workspace();
    const seen: string[] = [];
    await collect(
      query({
        prompt: "Write .env",
        options: {
          ...throughCairn(server, cwd),
          hooks: {
            PreToolUse: [
              {
                matcher: "Write|Edit",
                hooks: [
                  async (input) => {
                    seen.push((input as { tool_name: string }).tool_name);
                    return {
                      hookSpecificOutput: {
                        hookEventName: "PreToolUse",
                        permissionDecision: "deny",
                        permissionDecisionReason: "No .env files.",
                      },
                    };
                  },
                ],
              },
            ],
          },
        },
      }),
    );
    expect(seen).toEqual(["Write"]);
    expect(existsSync(join(cwd, ".env"))).toBe(false);
    expect(JSON.stringify(server.requests[1]!.body)).toContain("No .env files.");
  });

  test("a failed initialize ends the session: the prompt never runs without the program's hooks", async () => {
    // The hook's matcher is not a regular expression, so cairn answers initialize with an error.
    // The SDK writes the prompt anyway; running it would run the Write without the hook that
    // forbids it.
    const server = await startServer([
      reply().tool("Write", { file_path: ".env", content: "SECRET=1\n" }),
      reply().text("Written."),
    ]);
    const cwd = workspace();
    const lines: string[] = [];
    const run = collect(
      query({
        prompt: "Write .env",
        options: {
          ...throughCairn(server, cwd),
          stderr: (line: string) => lines.push(line),
          hooks: {
            PreToolUse: [
              { matcher: "Write(", hooks: [async () => ({ decision: "block", reason: "No .env files." })] },
            ],
          },
        },
      }),
    );
    await expect(run).rejects.toThrow(/exited with code 1/);
    expect(lines.join("")).toContain(
      'cairn: initialize failed: cairn query(): invalid option hooks.PreToolUse.0: matcher "Write("',
    );
    expect(server.requests).toEqual([]);
    expect(existsSync(join(cwd, ".env"))).toBe(false);
  });

  test("an in-process createSdkMcpServer tool of the host runs through mcp_message", async () => {
    const server = await startServer([
      reply().tool("mcp__probe__add", { a: 2, b: 3 }),
      reply().text("Sum is 5."),
    ]);
    const probe = createSdkMcpServer({
      name: "probe",
      version: "1.0.0",
      tools: [
        tool("add", "Add two numbers", { a: z.number(), b: z.number() }, async ({ a, b }) => ({
          content: [{ type: "text", text: `sum=${a + b}` }],
        })),
      ],
    });
    const messages = await collect(
      query({
        prompt: "Add 2 and 3",
        options: {
          ...throughCairn(server, workspace()),
          mcpServers: { probe },
          allowedTools: ["mcp__probe__add"],
        },
      }),
    );
    expect(resultOf(messages)).toMatchObject({ subtype: "success", result: "Sum is 5." });
    expect(JSON.stringify(server.requests[1]!.body)).toContain("sum=5");
  });

  test("an abort while canUseTool is still open stops the run: no further model request", async () => {
    // The SDK closes stdin; the unanswered can_use_tool read as a denial and cairn called the model
    // again (a paid request whose result nobody saw).
    const server = await startServer([
      reply().tool("Write", { file_path: "a.txt", content: "x" }),
      reply().text("z"),
    ]);
    const abortController = new AbortController();
    const messages = query({
      prompt: "Write it",
      options: {
        ...throughCairn(server, workspace()),
        abortController,
        canUseTool: () => {
          setTimeout(() => abortController.abort(), 50);
          return new Promise(() => {});
        },
      },
    });
    await collect(messages).catch(() => []);
    // The cairn process is gone once the SDK settles; give a straggler request no chance to hide.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(server.requests).toHaveLength(1);
  });

  test("a stdio MCP server from npm, delivered as the SDK does by default (initialize, --await-initialize)", async () => {
    // The pinned SDK sends process MCP servers in `initialize` and refuses to go on unless the
    // answer confirms them (`mcp_servers_applied`): before, every program passing one stopped there.
    const server = await startServer([
      reply().tool("mcp__everything__echo", { message: "PONG-42" }),
      reply().text("It echoed."),
    ]);
    const messages = await collect(
      query({
        prompt: "Echo PONG-42",
        options: {
          ...throughCairn(server, workspace()),
          mcpServers: { everything: { command: process.execPath, args: [EVERYTHING] } },
          allowedTools: ["mcp__everything__echo"],
        },
      }),
    );
    expect(resultOf(messages)).toMatchObject({ subtype: "success", result: "It echoed." });
    expect(JSON.stringify(server.requests[1]!.body)).toContain("Echo: PONG-42");
  });

  test("streaming input: two turns in one conversation, setModel() between them", async () => {
    const server = await startServer([reply().text("First."), reply().text("Second.")]);
    let release: () => void = () => {};
    const secondTurn = new Promise<void>((resolve) => {
      release = resolve;
    });
    async function* prompts() {
      yield userMessage("one");
      await secondTurn;
      yield userMessage("two");
    }
    const q = query({ prompt: prompts(), options: throughCairn(server, workspace()) });
    const results: Message[] = [];
    for await (const message of q as AsyncIterable<Message>) {
      if (message.type !== "result") continue;
      results.push(message);
      if (results.length === 1) {
        await q.setModel("haiku");
        release();
      } else break;
    }
    expect(results.map((r) => r.result)).toEqual(["First.", "Second."]);
    expect((server.requests[1]!.body as { model: string }).model).toMatch(/^claude-haiku/);
    expect(JSON.stringify(server.requests[1]!.body)).toContain("First.");
  });

  test("--replay-user-messages: each prompt comes back as isReplay: true, with its uuid, when its turn starts", async () => {
    const server = await startServer([reply().text("First."), reply().text("Second.")]);
    const secondUuid = "11111111-2222-4333-8444-555555555555";
    // Both prompts are queued at once: the second's echo must wait for its own turn.
    async function* prompts() {
      yield userMessage("one");
      yield {
        ...userMessage("two"),
        uuid: secondUuid as `${string}-${string}-${string}-${string}-${string}`,
      };
    }
    const messages = await collect(
      query({
        prompt: prompts(),
        options: { ...throughCairn(server, workspace()), extraArgs: { "replay-user-messages": null } },
      }),
    );
    const flow = messages
      .filter((m) => m.subtype !== "session_state_changed")
      .map((m) =>
        m.type === "user"
          ? `replay:${JSON.stringify((m.message as { content: unknown }).content)}`
          : (m.subtype ?? m.type),
      );
    expect(flow).toEqual([
      "init",
      'replay:"one"',
      "assistant",
      "success",
      "init",
      'replay:"two"',
      "assistant",
      "success",
    ]);
    const sessionId = messages.find((m) => m.subtype === "init")!.session_id;
    const replays = messages.filter((m) => m.type === "user");
    for (const replay of replays) expect(replay).toMatchObject({ isReplay: true, session_id: sessionId });
    expect(replays[0]!.uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(replays[1]!.uuid).toBe(secondUuid);
  });

  test("--forward-subagent-text (the CLI's flag, here through extraArgs) forwards a subagent's text; without it only its tool calls come", async () => {
    const run = async (extraArgs: Record<string, null>) => {
      const script = twoAgentsScript();
      const server = await startScriptedServer({ respond: script.respond });
      const lines: string[] = [];
      try {
        const messages = await collect(
          query({
            prompt: "Use both agents",
            options: {
              ...throughCairn(server, workspace({ "a.txt": "hello\n" })),
              stderr: (line: string) => lines.push(line),
              // cairn's own system prompt, which the scripted model tells the parent by.
              systemPrompt: { type: "preset", preset: "claude_code" },
              agents: {
                reviewer: {
                  description: "Reviews code.",
                  prompt: "You are the REVIEWER subagent.",
                  tools: ["Read"],
                },
                lister: {
                  description: "Lists files.",
                  prompt: "You are the LISTER subagent.",
                  tools: ["Glob"],
                },
              },
              extraArgs,
            },
          }),
        );
        return { messages, stderr: lines.join("") };
      } finally {
        await server.close();
      }
    };
    const subagentBlocks = (messages: Message[]) =>
      messages
        .filter((m) => m.type === "assistant" && m.parent_tool_use_id !== null)
        .map((m) => (m.message as { content: { type: string }[] }).content[0]!.type);
    const forwarded = await run({ "forward-subagent-text": null });
    expect(forwarded.stderr).not.toContain("forward-subagent-text");
    expect(subagentBlocks(forwarded.messages)).toContain("text");
    const plain = await run({});
    expect(subagentBlocks(plain.messages)).not.toContain("text");
    expect(subagentBlocks(plain.messages)).toContain("tool_use");
  });

  test("interrupt() ends a running turn with an error result", async () => {
    const server = await startServer([{ kind: "hang" } as never]);
    const q = query({ prompt: "Wait forever", options: throughCairn(server, workspace()) });
    let result: Message | undefined;
    for await (const message of q as AsyncIterable<Message>) {
      if (message.type === "system" && message.subtype === "init") setTimeout(() => void q.interrupt(), 200);
      if (message.type === "result") result = message;
    }
    expect(result).toMatchObject({ is_error: true, subtype: "error_during_execution" });
  });

  test("resume continues a session cairn recorded; outputFormat gives structured_output", async () => {
    const server = await startServer([
      reply().text("I will remember 42."),
      reply().tool("StructuredOutput", { answer: 42 }),
    ]);
    const cwd = workspace();
    const first = await collect(query({ prompt: "Remember 42", options: throughCairn(server, cwd) }));
    const sessionId = resultOf(first).session_id as string;
    const second = await collect(
      query({
        prompt: "What number?",
        options: {
          ...throughCairn(server, cwd),
          resume: sessionId,
          outputFormat: {
            type: "json_schema",
            schema: { type: "object", properties: { answer: { type: "number" } }, required: ["answer"] },
          },
        },
      }),
    );
    expect(JSON.stringify(server.requests[1]!.body)).toContain("Remember 42");
    expect(resultOf(second)).toMatchObject({ subtype: "success", structured_output: { answer: 42 } });
  });
});

describe("the official agent SDK: resumeSessionAt (--resume-session-at)", () => {
  test("the uuid of an assistant message cairn sent is a point to resume at", async () => {
    const server = await startServer([reply().text("A1"), reply().text("A2"), reply().text("Rewound.")]);
    const cwd = workspace();
    const first = await collect(query({ prompt: "Q1", options: throughCairn(server, cwd) }));
    const sessionId = resultOf(first).session_id as string;
    const atA1 = first.find((m) => m.type === "assistant")!.uuid as string;
    await collect(query({ prompt: "Q2", options: { ...throughCairn(server, cwd), resume: sessionId } }));
    const rewound = await collect(
      query({
        prompt: "Q3",
        options: { ...throughCairn(server, cwd), resume: sessionId, resumeSessionAt: atA1 },
      }),
    );
    expect(resultOf(rewound)).toMatchObject({ subtype: "success", result: "Rewound." });
    const sent = JSON.stringify(server.requests[2]!.body);
    expect(sent).toContain("A1");
    expect(sent).not.toContain("A2");
  });
});

describe("the official agent SDK: sandbox and settings (--settings)", () => {
  test("sandbox.filesystem.denyRead, which the SDK sends inside --settings, keeps a file from Read", async () => {
    const server = await startServer([reply().tool("Read", { file_path: "secret.txt" }), reply().text("ok")]);
    const cwd = workspace({ "secret.txt": "TOPSECRET-9920\n" });
    const messages = await collect(
      query({
        prompt: "Read it",
        options: {
          ...throughCairn(server, cwd),
          permissionMode: "bypassPermissions",
          allowDangerouslySkipPermissions: true,
          sandbox: { enabled: true, failIfUnavailable: false, filesystem: { denyRead: ["secret.txt"] } },
        },
      }),
    );
    expect(resultOf(messages)).toMatchObject({ subtype: "success" });
    const sent = server.requests.map((request) => JSON.stringify(request.body)).join("\n");
    expect(sent).toContain("denyRead");
    expect(sent).not.toContain("TOPSECRET-9920");
  });
});

describe("the official agent SDK: images and file checkpoints over the CLI protocol", () => {
  const PNG =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

  test("a streamed user message with an image block reaches the model as an image", async () => {
    const server = await startServer([reply().text("A red pixel.")]);
    async function* input() {
      yield {
        type: "user" as const,
        message: {
          role: "user" as const,
          content: [
            { type: "text" as const, text: "What is this?" },
            {
              type: "image" as const,
              source: { type: "base64" as const, media_type: "image/png" as const, data: PNG },
            },
          ],
        },
        parent_tool_use_id: null,
        session_id: "",
      };
    }
    const messages = await collect(query({ prompt: input(), options: throughCairn(server, workspace()) }));
    expect(resultOf(messages)).toMatchObject({ subtype: "success", result: "A red pixel." });
    expect(server.requests[0]!.media).toEqual([
      { kind: "image", in: "prompt", mediaType: "image/png", data: PNG },
    ]);
  });

  test("enableFileCheckpointing + rewindFiles (rewind_files) put a written file back", async () => {
    const server = await startServer([
      reply().tool("Write", { file_path: "made.txt", content: "hello\n" }),
      reply().text("Written."),
    ]);
    const cwd = workspace({ "kept.txt": "kept\n" });
    const uuid = "44444444-4444-4444-8444-444444444444";
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    async function* input() {
      yield {
        type: "user" as const,
        message: { role: "user" as const, content: "Write made.txt" },
        parent_tool_use_id: null,
        session_id: "",
        uuid: uuid as `${string}-${string}-${string}-${string}-${string}`,
      };
      await held;
    }
    const q = query({
      prompt: input(),
      options: { ...throughCairn(server, cwd), enableFileCheckpointing: true, permissionMode: "acceptEdits" },
    });
    let dryRun: unknown;
    let rewound: unknown;
    let existedBefore = false;
    for await (const message of q as AsyncIterable<Message>) {
      if (message.type !== "result") continue;
      existedBefore = existsSync(join(cwd, "made.txt"));
      dryRun = await q.rewindFiles(uuid, { dryRun: true });
      rewound = await q.rewindFiles(uuid);
      release();
    }
    expect(existedBefore).toBe(true);
    expect(dryRun).toEqual({
      canRewind: true,
      filesChanged: [join(cwd, "made.txt")],
      insertions: 0,
      deletions: 1,
    });
    expect(rewound).toEqual(dryRun);
    expect(existsSync(join(cwd, "made.txt"))).toBe(false);
  });
});
