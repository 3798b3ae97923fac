/**
 * What every transcript store must do (src/sessions/transcript-store.ts), through the interface
 * alone: no test here reads a file, so a store that is not files runs the same suite. Add a store
 * to `STORES` and it must pass.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import type { EngineEvent } from "../../src/engine/events.js";
import { runAgentLoop } from "../../src/engine/loop.js";
import type { ConversationMessage } from "../../src/engine/messages.js";
import { ReplayProvider } from "../../src/providers/replay.js";
import {
  type FileCheckpointStore,
  JsonlTranscriptStore,
  memoryFileCheckpoints,
  resumeTranscript,
  SessionNotFoundError,
  type TranscriptStore,
} from "../../src/sessions/index.js";
import { SessionLockedError } from "../../src/sessions/lock.js";
import { reply, toStep } from "../../src/testing/index.js";
import { echoTool } from "../helpers/loop.js";
import { tempDir } from "../helpers/temp.js";

const STORES: { name: string; make: (base: string) => TranscriptStore }[] = [
  { name: "JSONL", make: (base) => new JsonlTranscriptStore({ cairnHome: path.join(base, "home") }) },
];

/** Runs the real engine loop with a replayed model; every event goes to `record`, awaited. */
async function runLoop(
  history: ConversationMessage[],
  prompt: string,
  record: (event: EngineEvent) => void | Promise<void>,
  steps = [reply().text("Let me echo.").tool("Echo", { text: "hi" }), reply().text("Done.")],
): Promise<void> {
  const provider = new ReplayProvider({ version: 1, steps: steps.map(toStep) }, "test");
  for await (const event of runAgentLoop({
    env: process.env,
    sessionId: "s",
    cwd: process.cwd(),
    provider,
    model: "replay",
    providerModel: "replay",
    system: "",
    tools: [echoTool()],
    history,
    prompt,
    signal: new AbortController().signal,
  }))
    await record(event);
}

/**
 * Waits until the clock has moved on, so what is written next is "more recent" in a store whose
 * write times are coarse (file times advance by the kernel's tick).
 */
async function clockMovesOn(): Promise<void> {
  const until = Date.now() + 50;
  while (Date.now() < until) await new Promise((resolve) => setTimeout(resolve, until - Date.now()));
}

describe.each(STORES)("a transcript store ($name)", ({ make }) => {
  function setup() {
    const base = tempDir("cairn-store-");
    return { store: make(base), cwd: path.join(base, "project") };
  }

  test("create, append, load back: the conversation the engine built, at the location hooks are given", async () => {
    const { store, cwd } = setup();
    const writer = await store.create(cwd, "first");
    const history: ConversationMessage[] = [];
    await runLoop(history, "first prompt", (event) => writer.recordEvent(event));
    await writer.appendMessage({ role: "user", content: "appended as is" });
    await writer.close();
    history.push({ role: "user", content: "appended as is" });

    const loaded = await store.load("first", cwd);
    expect(loaded.history).toEqual(history);
    expect(loaded.header.sessionId).toBe("first");
    expect(loaded.warnings).toEqual([]);
    expect(writer.location).toBe(store.locate("first", cwd));
    expect(loaded.location).toBe(store.locate("first", cwd));
    expect(await store.find("first", cwd)).toBe(store.locate("first", cwd));
    expect(await store.exists("first", cwd)).toBe(true);
    expect(await store.exists("second", cwd)).toBe(false);
    // Found from anywhere when the working directory is not given.
    expect((await store.load("first")).history).toEqual(history);
  });

  test("an id that exists is refused by create; an unknown one is not found by load, open, find", async () => {
    const { store, cwd } = setup();
    await (await store.create(cwd, "taken")).close();
    await expect(store.create(cwd, "taken")).rejects.toThrow(/session taken already exists/);
    await expect(store.load("nobody", cwd)).rejects.toThrow(SessionNotFoundError);
    await expect(store.open("nobody", cwd)).rejects.toThrow(SessionNotFoundError);
    await expect(store.find("nobody")).rejects.toThrow(/session nobody not found/);
  });

  test("a resume appends to the same session: the next load has both runs", async () => {
    const { store, cwd } = setup();
    const writer = await store.create(cwd, "again");
    const history: ConversationMessage[] = [];
    await runLoop(history, "one", (event) => writer.recordEvent(event));
    await writer.close();
    const resumed = await resumeTranscript(store, "again", { cwd });
    expect(resumed.writer.sessionId).toBe("again");
    expect(resumed.history).toEqual(history);
    await runLoop(resumed.history, "two", (event) => resumed.writer.recordEvent(event), [
      reply().text("Two."),
    ]);
    await resumed.writer.close();
    expect((await store.load("again", cwd)).history).toEqual(resumed.history);
    expect((await store.list(cwd))[0]).toMatchObject({ sessionId: "again", prompts: 2 });
  });

  test("list and latest: the sessions of one working directory, most recently written first", async () => {
    const { store, cwd } = setup();
    const older = await store.create(cwd, "older");
    await runLoop([], "the older one", (event) => older.recordEvent(event));
    await older.close();
    await clockMovesOn();
    const newer = await store.create(cwd, "newer");
    await runLoop([], "the newer one", (event) => newer.recordEvent(event), [reply().text("hi")]);
    await newer.close();
    await (await store.create(path.join(cwd, "elsewhere"), "elsewhere")).close();

    const listed = await store.list(cwd);
    expect(listed.map((s) => [s.sessionId, s.firstPrompt, s.prompts, s.turns])).toEqual([
      ["newer", "the newer one", 1, 1],
      ["older", "the older one", 1, 2],
    ]);
    expect(listed[0]!.location).toBe(store.locate("newer", cwd));
    expect((await store.latest(cwd))?.sessionId).toBe("newer");
    expect(await store.latest(path.join(cwd, "nothing-here"))).toBeUndefined();
    expect((await store.listAll()).map((s) => s.sessionId).sort()).toEqual(["elsewhere", "newer", "older"]);
  });

  test("fork: a new session with a copy (or what `keep` keeps); the original unchanged; a throwing `keep` makes none", async () => {
    const { store, cwd } = setup();
    const writer = await store.create(cwd, "orig");
    const history: ConversationMessage[] = [];
    await runLoop(history, "one", (event) => writer.recordEvent(event));
    await writer.close();

    const forked = await store.fork("orig", { cwd });
    expect(forked.sessionId).not.toBe("orig");
    expect(forked.history).toEqual(history);
    const loaded = await store.load(forked.sessionId, cwd);
    expect(loaded.history).toEqual(history);
    expect(loaded.header.forkedFrom?.sessionId).toBe("orig");
    expect((await store.list(cwd)).find((s) => s.sessionId === forked.sessionId)?.forkedFrom).toBe("orig");

    const cut = await store.fork("orig", { cwd, newId: "cut", keep: (all) => all.slice(0, 1) });
    expect(cut.sessionId).toBe("cut");
    expect((await store.load("cut", cwd)).history).toEqual(history.slice(0, 1));

    const before = (await store.list(cwd)).length;
    await expect(
      store.fork("orig", {
        cwd,
        keep: () => {
          throw new Error("no such message");
        },
      }),
    ).rejects.toThrow("no such message");
    expect(await store.list(cwd)).toHaveLength(before);
    expect((await store.load("orig", cwd)).history).toEqual(history);
  });

  test("a session held by a writer is refused to a second one, until the first closes", async () => {
    const { store, cwd } = setup();
    const creator = await store.create(cwd, "held");
    await expect(store.open("held", cwd)).rejects.toThrow(SessionLockedError);
    await creator.close();
    const first = await store.open("held", cwd);
    await expect(store.open("held", cwd)).rejects.toThrow(SessionLockedError);
    await expect(resumeTranscript(store, "held", { cwd })).rejects.toThrow(/session held is in use/);
    await first.close();
    await (await store.open("held", cwd)).close();
  });

  test("title, tag and archived flag show in listings; delete removes the session", async () => {
    const { store, cwd } = setup();
    await (await store.create(cwd, "named")).close();
    expect((await store.list(cwd))[0]!.meta).toEqual({});
    await store.updateMeta("named", cwd, { title: "My title", tag: "t" });
    await store.updateMeta("named", undefined, { archived: true, tag: undefined });
    expect((await store.list(cwd))[0]!.meta).toEqual({ title: "My title", archived: true });

    await store.delete("named", cwd);
    expect(await store.list(cwd)).toEqual([]);
    await expect(store.load("named", cwd)).rejects.toThrow(SessionNotFoundError);
    await expect(store.delete("named", cwd)).rejects.toThrow(SessionNotFoundError);
    // Nothing of it is left: a new session under the same id starts without its title.
    await (await store.create(cwd, "named")).close();
    expect((await store.list(cwd))[0]!.meta).toEqual({});
  });

  test("a subagent's run goes to its own transcript, listed and loaded by agent id, not to the session's", async () => {
    const { store, cwd } = setup();
    const writer = await store.create(cwd, "parent");
    const subagentHistory: ConversationMessage[] = [];
    await runLoop(subagentHistory, "the subagent's task", (event) =>
      writer.recordEvent({
        type: "subagent",
        turn: 1,
        toolUseId: "toolu_agent",
        agentId: "a1",
        agentType: "general-purpose",
        description: "a task",
        transcriptPath: store.locateSubagent("parent", cwd, "a1"),
        event,
      }),
    );
    await writer.close();

    expect(await store.subagents("parent", cwd)).toEqual(["a1"]);
    expect((await store.loadSubagent("parent", "a1", cwd))?.history).toEqual(subagentHistory);
    expect(await store.loadSubagent("parent", "a2", cwd)).toBeUndefined();
    expect((await store.load("parent", cwd)).history).toEqual([]);
  });

  test("file checkpoints are kept per session and read back by a later opening", async () => {
    const { store, cwd } = setup();
    const file = path.join(tempDir("cairn-checkpointed-", { "notes.txt": "before\n" }), "notes.txt");
    const checkpoints = store.fileCheckpoints("cp", cwd);
    checkpoints.begin("message-1");
    await checkpoints.beforeChange(file);
    writeFileSync(file, "after\n");

    const again = store.fileCheckpoints("cp", cwd);
    expect(await again.rewind("message-1")).toMatchObject({ canRewind: true, filesChanged: [file] });
    expect(readFileSync(file, "utf8")).toBe("before\n");
    expect((await store.fileCheckpoints("other", cwd).rewind("message-1")).canRewind).toBe(false);
  });
});

/**
 * What a store's file checkpoints must do (`FileCheckpointStore`), through the interface alone: the
 * JSONL store's, and the in-memory ones of a session that keeps no transcript.
 */
const CHECKPOINT_STORES: { name: string; make: (base: string) => () => FileCheckpointStore }[] = [
  ...STORES.map(({ name, make }) => ({
    name: `${name} store`,
    make: (base: string) => {
      const store = make(base);
      return () => store.fileCheckpoints("cp", path.join(base, "project"));
    },
  })),
  {
    name: "memory",
    make: () => {
      const checkpoints = memoryFileCheckpoints();
      return () => checkpoints;
    },
  },
];

describe.each(CHECKPOINT_STORES)("file checkpoints ($name)", ({ make }) => {
  test("a rewind puts back the files as they were when the message was sent: changed ones restored, new ones removed", async () => {
    const dir = tempDir("cairn-checkpointed-", { "notes.txt": "one\ntwo\n" });
    const [notes, created] = [path.join(dir, "notes.txt"), path.join(dir, "created.txt")];
    const checkpointsOf = make(tempDir("cairn-store-"));
    const checkpoints = checkpointsOf();
    await checkpoints.begin("message-1");
    await checkpoints.beforeChange(notes);
    writeFileSync(notes, "one\nthree\nfour\n");
    await checkpoints.beforeChange(created);
    writeFileSync(created, "new\n");
    // The next message's turn saves what it finds then; a rewind to the first goes back further.
    await checkpoints.begin("message-2");
    await checkpoints.beforeChange(notes);
    writeFileSync(notes, "five\n");

    const preview = await checkpointsOf().rewind("message-1", { dryRun: true });
    expect(preview).toMatchObject({ canRewind: true, insertions: 2, deletions: 2 });
    expect(new Set(preview.filesChanged)).toEqual(new Set([notes, created]));
    expect(readFileSync(notes, "utf8")).toBe("five\n");

    expect((await checkpointsOf().rewind("message-1")).canRewind).toBe(true);
    expect(readFileSync(notes, "utf8")).toBe("one\ntwo\n");
    expect(existsSync(created)).toBe(false);
    expect(await checkpointsOf().rewind("never-sent")).toMatchObject({ canRewind: false });
  });
});
