/**
 * `resumeSessionAt` takes the uuid of a message `query()` yielded, as the reference does ("typically
 * `SDKAssistantMessage.uuid`"): a program that keeps the uuid of an answer can rewind the session to
 * it later. Before, only the uuids of getSessionMessages() were known and a yielded one was refused.
 */
import { afterEach, describe, expect, test } from "vitest";
import {
  forkSession,
  getSessionMessages,
  type Options,
  query,
  type SDKAssistantMessage,
  type SDKMessage,
  type SDKUserMessage,
} from "../../src/index.js";
import { reply, type ScriptedServer } from "../../src/testing/index.js";
import { cleanUp, collect, envFor, init, result, semanticBody, startServer, workspace } from "./helpers.js";

afterEach(cleanUp);

/** The session functions read `$CAIRN_HOME` of this process: the queries write there too. */
function options(server: ScriptedServer, cwd: string, extra: Options = {}): Options {
  return { cwd, env: { ...envFor(server), CAIRN_HOME: process.env.CAIRN_HOME }, ...extra };
}

function assistants(messages: SDKMessage[]): SDKAssistantMessage[] {
  return messages.filter((message): message is SDKAssistantMessage => message.type === "assistant");
}

function toolResults(messages: SDKMessage[]): SDKUserMessage[] {
  return messages.filter((message): message is SDKUserMessage => message.type === "user");
}

/** What the model was sent in request `index`, as text. */
/** The conversation one request sent (its messages alone: the system prompt names the workspace, a random path). */
function sent(server: ScriptedServer, index: number): string {
  return JSON.stringify((semanticBody(server.requests[index]!.body) as { messages: unknown }).messages);
}

describe("resumeSessionAt with the uuid of a yielded message", () => {
  test("an assistant message's uuid: the next turn continues from that answer", async () => {
    const server = await startServer([reply().text("A1"), reply().text("A2"), reply().text("Rewound.")]);
    const cwd = workspace();
    const first = await collect(query({ prompt: "Q1", options: options(server, cwd) }));
    const sessionId = init(first).session_id;
    const atA1 = assistants(first)[0]!.uuid;
    await collect(query({ prompt: "Q2", options: options(server, cwd, { resume: sessionId }) }));

    const rewound = await collect(
      query({ prompt: "Q3", options: options(server, cwd, { resume: sessionId, resumeSessionAt: atA1 }) }),
    );
    expect(result(rewound).subtype).toBe("success");
    expect(sent(server, 2)).toContain("A1");
    expect(sent(server, 2)).not.toContain("Q2");
    expect(sent(server, 2)).not.toContain("A2");
    // getSessionMessages() names the answer by the uuid it was yielded under.
    const history = await getSessionMessages(sessionId);
    expect(history[1]?.uuid).toBe(atA1);
  });

  test("the blocks of one answer and its tool result are each a point to resume at", async () => {
    const server = await startServer([
      reply().text("Reading it.").tool("Read", { file_path: "notes.txt" }),
      reply().text("Done."),
      reply().text("at the tool result"),
      reply().text("at the call"),
      reply().text("at the text before the call"),
    ]);
    const cwd = workspace({ "notes.txt": "remember me\n" });
    const first = await collect(query({ prompt: "Read the notes", options: options(server, cwd) }));
    const sessionId = init(first).session_id;
    const [text, call] = assistants(first);
    const [read] = toolResults(first);
    expect(call?.message.content[0]?.type).toBe("tool_use");

    await collect(
      query({
        prompt: "Again",
        options: options(server, cwd, { resume: sessionId, resumeSessionAt: read!.uuid }),
      }),
    );
    expect(sent(server, 2)).toContain("remember me");
    expect(sent(server, 2)).not.toContain("Done.");

    // At the call: the call, whose result is now left out, is not sent (the API takes no call
    // without its result); the text before it is.
    await collect(
      query({
        prompt: "Again",
        options: options(server, cwd, { resume: sessionId, resumeSessionAt: call!.uuid }),
      }),
    );
    expect(sent(server, 3)).toContain("Reading it.");
    expect(sent(server, 3)).not.toContain("tool_use");
    expect(sent(server, 3)).not.toContain("remember me");

    await collect(
      query({
        prompt: "Again",
        options: options(server, cwd, { resume: sessionId, resumeSessionAt: text!.uuid }),
      }),
    );
    expect(sent(server, 4)).toContain("Reading it.");
    expect(sent(server, 4)).not.toContain("at the tool result");
    expect(sent(server, 4)).not.toContain("at the call");
  });

  test("a turn of a streamed conversation, and forkSession({ upToMessageId }) with the same uuid", async () => {
    const server = await startServer([reply().text("First answer."), reply().text("Second answer.")]);
    const cwd = workspace();
    async function* prompts(): AsyncGenerator<SDKUserMessage> {
      yield { type: "user", message: { role: "user", content: "one" }, parent_tool_use_id: null };
      yield { type: "user", message: { role: "user", content: "two" }, parent_tool_use_id: null };
    }
    const run = await collect(query({ prompt: prompts(), options: options(server, cwd) }));
    const sessionId = init(run).session_id;
    const firstAnswer = assistants(run)[0]!.uuid;

    const fork = await forkSession(sessionId, { upToMessageId: firstAnswer });
    const forked = await getSessionMessages(fork.sessionId);
    expect(forked.map((message) => JSON.stringify(message.message))).toEqual([
      expect.stringContaining("one"),
      expect.stringContaining("First answer."),
    ]);
  });

  test("an answer an automatic compaction kept verbatim keeps its uuid", async () => {
    const server = await startServer([
      reply().tool("Read", { file_path: "big.txt" }),
      // Reports a context nearly full: the next call is preceded by a compaction, which keeps this
      // turn verbatim and summarises the big file's.
      reply().text("Read it.").tool("Read", { file_path: "small.txt" }).usage({ input_tokens: 9000 }),
      reply().text("Summary: big.txt was read."),
      reply().text("Fine."),
      reply().text("Back at the answer."),
    ]);
    const cwd = workspace({ "big.txt": "a line of the big file\n".repeat(300), "small.txt": "small\n" });
    const window = { contextWindow: 10_000 };
    const first = await collect(query({ prompt: "Read the files", options: options(server, cwd, window) }));
    expect(first.some((m) => m.type === "system" && m.subtype === "compact_boundary")).toBe(true);
    const sessionId = init(first).session_id;
    const answer = assistants(first).find((m) => JSON.stringify(m.message.content).includes("Read it."))!;

    await collect(
      query({
        prompt: "again",
        options: options(server, cwd, { ...window, resume: sessionId, resumeSessionAt: answer.uuid }),
      }),
    );
    expect(sent(server, 4)).toContain("Summary: big.txt was read.");
    expect(sent(server, 4)).toContain("Read it.");
    expect(sent(server, 4)).not.toContain("Fine.");
  });

  test("a uuid the session does not have is still refused, naming it", async () => {
    const server = await startServer([reply().text("A1")]);
    const cwd = workspace();
    const first = await collect(query({ prompt: "Q1", options: options(server, cwd) }));
    const unknown = query({
      prompt: "x",
      options: options(server, cwd, {
        resume: init(first).session_id,
        resumeSessionAt: "00000000-0000-4000-8000-000000000000",
      }),
    });
    await expect(unknown.next()).rejects.toThrow(/resumeSessionAt.*No message 00000000/);
  });
});
