/**
 * Sessions in the SDK: every query writes a transcript under `$CAIRN_HOME` (unless
 * `persistSession: false`), and `resume`, `continue` and `forkSession` continue one, sending its
 * history to the model. Every test has its own temp `$CAIRN_HOME` (helpers.ts `cairnHome()`).
 */
import { existsSync, readdirSync, readFileSync, readlinkSync, statSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import {
  type Options,
  query,
  type SDKMessage,
  type SDKUserMessage,
  SessionNotFoundError,
  SessionWriteError,
} from "../../src/index.js";
import { JsonlTranscriptStore } from "../../src/sessions/index.js";
import { hang, reply, type ScriptedServer } from "../../src/testing/index.js";
import {
  cairnHome,
  cleanUp,
  collect,
  envFor,
  init,
  labels,
  result,
  runQuery,
  semanticBody,
  startServer,
  UUID_PATTERN,
  workspace,
} from "./helpers.js";

afterEach(cleanUp);

type Sent = { role: string; content: unknown }[];
const sent = (server: ScriptedServer, index: number): Sent =>
  semanticBody<{ messages: Sent }>(server.requests[index]!.body).messages;

const store = () => new JsonlTranscriptStore({ env: { CAIRN_HOME: cairnHome() } });

/** One query on `cwd` against its own scripted server. */
async function ask(
  cwd: string,
  prompt: string,
  steps: Parameters<typeof startServer>[0],
  options: Options = {},
) {
  const { server, messages } = await runQuery(steps, { cwd, ...options }, prompt);
  return { server, messages, sessionId: init(messages).session_id };
}

/** The transcript files under this test's $CAIRN_HOME. */
function transcripts(): string[] {
  const root = join(cairnHome(), "sessions");
  if (!existsSync(root)) return [];
  return readdirSync(root).flatMap((dir) =>
    readdirSync(join(root, dir))
      .filter((name) => name.endsWith(".jsonl"))
      .map((name) => join(root, dir, name)),
  );
}

describe("transcripts", () => {
  test("a query writes its transcript under $CAIRN_HOME, mode 0600, and it loads as the conversation", async () => {
    const cwd = workspace({ "notes.txt": "buy milk\n" });
    const { messages, server, sessionId } = await ask(cwd, "Summarise notes.txt", [
      reply().text("Reading.").tool("Read", { file_path: "notes.txt" }),
      reply().text("Buy milk."),
    ]);
    expect(sessionId).toMatch(UUID_PATTERN);
    for (const message of messages) expect((message as { session_id: string }).session_id).toBe(sessionId);
    const files = transcripts();
    expect(files).toHaveLength(1);
    expect(files[0]!.endsWith(`${sessionId}.jsonl`)).toBe(true);
    expect(statSync(files[0]!).mode & 0o777).toBe(0o600);
    expect(statSync(join(cairnHome(), "sessions")).mode & 0o777).toBe(0o700);
    const types = readFileSync(files[0]!, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line).type);
    expect(types).toEqual(["header", "user", "assistant", "tool_result", "assistant", "run_end"]);
    const loaded = await store().load(sessionId, cwd);
    expect(loaded.warnings).toEqual([]);
    // What the model was sent last, plus its answer.
    expect(loaded.history.slice(0, -1)).toEqual(sent(server, 1));
    expect(loaded.history.at(-1)).toEqual({
      role: "assistant",
      content: [{ type: "text", text: "Buy milk." }],
    });
  });

  test("sessionId names the new session's transcript; an id already in use is an error", async () => {
    const cwd = workspace();
    const { sessionId } = await ask(cwd, "Hi", [reply().text("Hello.")], { sessionId: "my-session" });
    expect(sessionId).toBe("my-session");
    expect(transcripts().map((file) => file.split("/").at(-1))).toEqual(["my-session.jsonl"]);
    const server = await startServer([reply().text("never")]);
    const again = query({ prompt: "Hi", options: { cwd, env: envFor(server), sessionId: "my-session" } });
    const failure = again.next();
    await expect(failure).rejects.toThrow(SessionWriteError);
    await expect(failure).rejects.toThrow(/session my-session already exists/);
    expect(server.requests).toHaveLength(0);
  });

  test("persistSession: false writes nothing", async () => {
    const cwd = workspace();
    const { messages } = await ask(cwd, "Hi", [reply().tool("Glob", { pattern: "*" }), reply().text("ok")], {
      persistSession: false,
    });
    expect(result(messages).subtype).toBe("success");
    expect(init(messages).session_id).toMatch(UUID_PATTERN);
    expect(readdirSync(cairnHome())).toEqual([]);
  });

  test("streaming input keeps writing to the same transcript", async () => {
    const cwd = workspace();
    const server = await startServer([reply().text("One."), reply().text("Two.")]);
    async function* input(): AsyncGenerator<SDKUserMessage> {
      for (const content of ["first", "second"]) {
        yield { type: "user", message: { role: "user", content }, parent_tool_use_id: null };
      }
    }
    const messages = await collect(query({ prompt: input(), options: { cwd, env: envFor(server) } }));
    expect(labels(messages).filter((label) => label === "result/success")).toHaveLength(2);
    const sessions = await store().list(cwd);
    expect(sessions).toHaveLength(1);
    expect(sessions[0]).toMatchObject({ sessionId: init(messages).session_id, prompts: 2, turns: 2 });
    const loaded = await store().load(sessions[0]!.sessionId, cwd);
    expect(loaded.runs).toHaveLength(2);
  });

  test("break closes the transcript: complete up to the break, no descriptor left open", async () => {
    const cwd = workspace();
    const server = await startServer([reply().tool("Glob", { pattern: "*" }), reply().text("never")]);
    let sessionId = "";
    for await (const message of query({ prompt: "Go", options: { cwd, env: envFor(server) } })) {
      if (message.type === "system" && message.subtype === "init") sessionId = message.session_id;
      if (message.type === "user") break;
    }
    const [file] = transcripts();
    expect(file!.endsWith(`${sessionId}.jsonl`)).toBe(true);
    if (existsSync("/proc/self/fd")) {
      const open = readdirSync("/proc/self/fd").flatMap((fd) => {
        try {
          return [readlinkSync(join("/proc/self/fd", fd))];
        } catch {
          return [];
        }
      });
      expect(open).not.toContain(file);
    }
    const loaded = await store().load(sessionId, cwd);
    expect(loaded.warnings).toEqual([]);
    expect(loaded.history.map((message) => message.role)).toEqual(["user", "assistant", "user"]);
  });
});

describe("resume, continue, fork", () => {
  test("resume continues the same session: same id, the earlier history goes to the model", async () => {
    const cwd = workspace();
    const first = await ask(cwd, "Remember: the code word is heron.", [reply().text("Noted.")]);
    const second = await ask(cwd, "What is the code word?", [reply().text("Heron.")], {
      resume: first.sessionId,
    });
    expect(init(second.messages).session_id).toBe(first.sessionId);
    for (const message of second.messages) {
      expect((message as { session_id: string }).session_id).toBe(first.sessionId);
    }
    expect(sent(second.server, 0)).toEqual([
      { role: "user", content: "Remember: the code word is heron." },
      { role: "assistant", content: [{ type: "text", text: "Noted." }] },
      { role: "user", content: "What is the code word?" },
    ]);
    // One transcript, now with both prompts.
    expect(transcripts()).toHaveLength(1);
    expect((await store().list(cwd))[0]).toMatchObject({ sessionId: first.sessionId, prompts: 2 });
  });

  test("continue picks the latest session of this directory", async () => {
    const cwd = workspace();
    const older = await ask(cwd, "older prompt", [reply().text("older answer")]);
    const latest = await ask(cwd, "latest prompt", [reply().text("latest answer")]);
    // A newer session elsewhere is not this directory's.
    await ask(workspace(), "elsewhere", [reply().text("elsewhere answer")]);
    const olderFile = transcripts().find((file) => file.endsWith(`${older.sessionId}.jsonl`))!;
    utimesSync(olderFile, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));

    const continued = await ask(cwd, "and now?", [reply().text("ok")], { continue: true });
    expect(init(continued.messages).session_id).toBe(latest.sessionId);
    expect(sent(continued.server, 0).map((message) => message.content)).toEqual([
      "latest prompt",
      [{ type: "text", text: "latest answer" }],
      "and now?",
    ]);
  });

  test("continue with no earlier session starts a new one, with a system/informational note", async () => {
    const cwd = workspace();
    const { messages, server } = await ask(cwd, "Hi", [reply().text("Hello.")], { continue: true });
    expect(labels(messages)).toEqual([
      "system/init",
      "system/informational",
      "assistant/text",
      "result/success",
    ]);
    expect(messages[1]).toMatchObject({
      level: "warning",
      tag: "session",
      content: expect.stringMatching(/No earlier session/),
    });
    expect(sent(server, 0)).toEqual([{ role: "user", content: "Hi" }]);
    expect(transcripts()).toHaveLength(1);
  });

  test("forkSession: a new id with a copy of the history; the original transcript is untouched", async () => {
    const cwd = workspace();
    const original = await ask(cwd, "Pick a colour.", [reply().text("Teal.")]);
    const originalFile = transcripts()[0]!;
    const before = readFileSync(originalFile, "utf8");

    const fork = await ask(cwd, "Why that one?", [reply().text("It is calm.")], {
      resume: original.sessionId,
      forkSession: true,
    });
    const forkId = init(fork.messages).session_id;
    expect(forkId).toMatch(UUID_PATTERN);
    expect(forkId).not.toBe(original.sessionId);
    expect(result(fork.messages).session_id).toBe(forkId);
    expect(sent(fork.server, 0)).toEqual([
      { role: "user", content: "Pick a colour." },
      { role: "assistant", content: [{ type: "text", text: "Teal." }] },
      { role: "user", content: "Why that one?" },
    ]);
    expect(readFileSync(originalFile, "utf8")).toBe(before);
    const forked = await store().load(forkId, cwd);
    expect(forked.header.forkedFrom?.sessionId).toBe(original.sessionId);
    expect(forked.history).toHaveLength(4);
  });

  test("an unknown resume id: the first next() rejects naming the id; no model call, nothing written", async () => {
    const cwd = workspace();
    const server = await startServer([reply().text("never")]);
    const q = query({
      prompt: "Go on",
      options: { cwd, env: envFor(server), resume: "4f1c2d3e-0000-4000-8000-000000000000" },
    });
    const failure = q.next();
    await expect(failure).rejects.toThrow(SessionNotFoundError);
    await expect(failure).rejects.toThrow(/session 4f1c2d3e-0000-4000-8000-000000000000 not found/);
    await expect(q.next()).resolves.toEqual({ done: true, value: undefined });
    expect(server.requests).toHaveLength(0);
    expect(transcripts()).toEqual([]);
  });

  test("persistSession: false with resume sends the history but leaves the transcript as it was", async () => {
    const cwd = workspace();
    const first = await ask(cwd, "first", [reply().text("one")]);
    const file = transcripts()[0]!;
    const before = readFileSync(file, "utf8");
    const second = await ask(cwd, "second", [reply().text("two")], {
      resume: first.sessionId,
      persistSession: false,
    });
    expect(init(second.messages).session_id).toBe(first.sessionId);
    expect(sent(second.server, 0)).toHaveLength(3);
    expect(readFileSync(file, "utf8")).toBe(before);
  });

  test("an interrupted session resumes cleanly", async () => {
    const cwd = workspace();
    const server = await startServer([hang()]);
    const abortController = new AbortController();
    const q = query({ prompt: "Start the job", options: { cwd, env: envFor(server), abortController } });
    const seen: SDKMessage[] = [];
    for await (const message of q) {
      seen.push(message);
      if (message.type === "system") setTimeout(() => abortController.abort(), 50);
    }
    expect(result(seen).subtype).toBe("error_during_execution");
    const resumed = await ask(cwd, "Try again", [reply().text("Done.")], { resume: init(seen).session_id });
    expect(result(resumed.messages).subtype).toBe("success");
    // Nothing was streamed: the prompt, the reference's note, and the next prompt make one user turn.
    expect(sent(resumed.server, 0)).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "Start the job" },
          { type: "text", text: "[Request interrupted by user]" },
          { type: "text", text: "Try again" },
        ],
      },
    ]);
  });

  test("a session interrupted mid-answer resumes with what was streamed and the interrupt note", async () => {
    const cwd = workspace();
    const server = await startServer([reply().text("Partial answer, then the rest.").stall(3, 600_000)]);
    const abortController = new AbortController();
    const q = query({
      prompt: "Start the job",
      options: { cwd, env: envFor(server), abortController, includePartialMessages: true },
    });
    const seen: SDKMessage[] = [];
    for await (const message of q) {
      seen.push(message);
      if (message.type === "stream_event" && message.event.type === "content_block_delta")
        abortController.abort();
    }
    expect(result(seen).subtype).toBe("error_during_execution");
    const resumed = await ask(cwd, "Try again", [reply().text("Done.")], { resume: init(seen).session_id });
    expect(result(resumed.messages).subtype).toBe("success");
    // The same conversation the session had in memory: nothing to repair, nothing lost.
    const notes = resumed.messages.filter((m) => m.type === "system" && m.subtype === "informational");
    expect(notes.filter((note) => note.tag === "session")).toEqual([]);
    expect(sent(resumed.server, 0)).toEqual([
      { role: "user", content: "Start the job" },
      { role: "assistant", content: [{ type: "text", text: "Partial answer, " }] },
      {
        role: "user",
        content: [
          { type: "text", text: "[Request interrupted by user]" },
          { type: "text", text: "Try again" },
        ],
      },
    ]);
  });

  test("a session interrupted while a tool ran resumes with the call, its result and the tool-use note", async () => {
    const cwd = workspace();
    const server = await startServer([
      reply().tool("Bash", { command: "touch started; sleep 30" }, "toolu_wait"),
    ]);
    const abortController = new AbortController();
    const q = query({
      prompt: "Start the job",
      options: { cwd, env: envFor(server), abortController, permissionMode: "bypassPermissions" },
    });
    const done = collect(q);
    while (!existsSync(join(cwd, "started"))) await new Promise((resolve) => setTimeout(resolve, 10));
    abortController.abort();
    const seen = await done;
    const resumed = await ask(cwd, "Try again", [reply().text("Done.")], { resume: init(seen).session_id });
    const messages = sent(resumed.server, 0);
    expect(messages.slice(0, 2)).toEqual([
      { role: "user", content: "Start the job" },
      {
        role: "assistant",
        content: [
          { type: "tool_use", id: "toolu_wait", name: "Bash", input: { command: "touch started; sleep 30" } },
        ],
      },
    ]);
    expect(messages[2]).toMatchObject({
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "toolu_wait", is_error: true },
        { type: "text", text: "[Request interrupted by user for tool use]" },
      ],
    });
    // As the live session sends it (query.test.ts): the next prompt follows the tool results' turn.
    expect(messages.slice(3)).toEqual([{ role: "user", content: "Try again" }]);
  });
});
