import { createHash } from "node:crypto";
import { appendFileSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import type { EngineEvent } from "../../src/engine/events.js";
import { runAgentLoop } from "../../src/engine/loop.js";
import type { ConversationMessage } from "../../src/engine/messages.js";
import { ReplayProvider } from "../../src/providers/replay.js";
import {
  JsonlTranscriptStore,
  loadTranscript,
  resumeTranscript,
  SessionNotFoundError,
  TranscriptError,
  workspaceKey,
} from "../../src/sessions/index.js";
import { reply, toStep } from "../../src/testing/index.js";
import { echoTool } from "../helpers/loop.js";
import { tempDir } from "../helpers/temp.js";
import { historyProblems } from "./kill-child.js";

function setup() {
  const base = tempDir("cairn-sessions-");
  const cwd = path.join(base, "project");
  const store = new JsonlTranscriptStore({ cairnHome: path.join(base, "home") });
  return { base, cwd, store };
}

/** Runs the real engine loop with a replayed model, teeing its events into `record`. */
async function runLoop(
  history: ConversationMessage[],
  prompt: string,
  record: (event: EngineEvent) => void,
  steps = [
    reply().text("Let me echo.").tool("Echo", { text: "hi" }).tool("Echo", { text: "ho" }),
    reply().text("Done."),
  ],
) {
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
    record(event);
}

describe("a transcript round-trips the engine's history", () => {
  test("create, record a run, load: the same ConversationMessage[] the engine built", async () => {
    const { cwd, store } = setup();
    const writer = await store.create(cwd);
    const history: ConversationMessage[] = [];
    await runLoop(history, "first prompt", (event) => writer.recordEvent(event));
    writer.close();

    const loaded = await store.load(writer.sessionId);
    expect(loaded.history).toEqual(history);
    expect(loaded.warnings).toEqual([]);
    expect(loaded.header).toMatchObject({ type: "header", version: 1, sessionId: writer.sessionId, cwd });
    expect(loaded.runs).toHaveLength(1);
    expect(loaded.runs[0]).toMatchObject({ subtype: "success", numTurns: 2, permissionDenials: 0 });
    expect(historyProblems(loaded.history)).toEqual([]);
  });

  test("reopen with the same id (resume), append another run: both runs load in order", async () => {
    const { cwd, store } = setup();
    const first = await store.create(cwd, "resume-me");
    const history: ConversationMessage[] = [];
    await runLoop(history, "one", (event) => first.recordEvent(event));
    first.close();

    const resumed = await resumeTranscript(store, "resume-me");
    expect(resumed.history).toEqual(history);
    expect(resumed.writer.location).toBe(first.path);
    await runLoop(resumed.history, "two", (event) => resumed.writer.recordEvent(event), [
      reply().text("Again."),
    ]);
    resumed.writer.close();

    const loaded = await store.load("resume-me");
    expect(loaded.history).toEqual(resumed.history);
    expect(
      loaded.history.filter((m) => m.role === "user" && typeof m.content === "string").map((m) => m.content),
    ).toEqual(["one", "two"]);
    expect(loaded.runs).toHaveLength(2);
  });

  test("one complete JSON record per line, type first", async () => {
    const { cwd, store } = setup();
    const writer = await store.create(cwd);
    writer.appendMessage({ role: "user", content: "hi" });
    writer.close();
    const lines = readFileSync(writer.path, "utf8").split("\n");
    expect(lines.at(-1)).toBe("");
    for (const line of lines.slice(0, -1)) expect(line).toMatch(/^\{"type":"/);
  });
});

describe("crashes and corruption", () => {
  async function session() {
    const { cwd, store } = setup();
    const writer = await store.create(cwd, "crashy");
    await runLoop([], "prompt", (event) => writer.recordEvent(event));
    writer.close();
    return { store, cwd, writer, file: writer.path };
  }

  test("a torn last line is ignored with a warning; reopening marks it repaired and appends cleanly", async () => {
    const { store, file } = await session();
    const before = (await store.load("crashy")).history;
    appendFileSync(file, '{"type":"assistant","ts":"2026-01-01","message":{"role":"assis');

    const torn = await store.load("crashy");
    expect(torn.history).toEqual(before);
    expect(torn.warnings).toEqual([expect.objectContaining({ kind: "torn", line: torn.lines })]);

    const writer = await store.open("crashy");
    expect(writer.warnings[0]).toMatch(/cut short by a crash/);
    writer.appendMessage({ role: "user", content: "after the crash" });
    writer.close();

    const repaired = await store.load("crashy");
    expect(repaired.warnings).toEqual([expect.objectContaining({ kind: "repaired", line: torn.lines })]);
    expect(repaired.history.at(-1)).toEqual({ role: "user", content: "after the crash" });
  });

  test("a corrupt line in the middle is reported with its line number, and the rest is kept", async () => {
    const { store, file } = await session();
    const lines = readFileSync(file, "utf8").split("\n");
    const broken = lines.findIndex((line) => line.startsWith('{"type":"tool_result"'));
    lines[broken] = "{this is not json";
    writeFileSync(file, lines.join("\n"));

    const loaded = await store.load("crashy");
    expect(loaded.warnings).toContainEqual(expect.objectContaining({ kind: "corrupt", line: broken + 1 }));
    expect(loaded.warnings.find((w) => w.kind === "corrupt")!.message).toMatch(
      new RegExp(`^line ${broken + 1} skipped: not valid JSON`),
    );
    // The lost result is closed as interrupted, so the history stays valid.
    expect(loaded.warnings).toContainEqual(expect.objectContaining({ kind: "history" }));
    expect(historyProblems(loaded.history)).toEqual([]);
    expect(loaded.history.at(-1)).toEqual({ role: "assistant", content: [{ type: "text", text: "Done." }] });
  });

  test("a crash between a tool call and its result: the call is closed as interrupted", async () => {
    const { cwd, store } = setup();
    const writer = await store.create(cwd, "dangling");
    writer.recordEvent({
      type: "run_start",
      sessionId: "dangling",
      cwd,
      model: "m",
      modelDisplayName: "M",
      apiKeySource: "none",
      permissionMode: "default",
      tools: [],
      prompt: "go",
      startedAt: 0,
    });
    writer.append({
      type: "assistant",
      ts: "t",
      message: {
        role: "assistant",
        content: [{ type: "tool_use", id: "toolu_a", name: "Bash", input: { command: "sleep 9" } }],
      },
    });
    writer.close();
    const loaded = await store.load("dangling");
    expect(loaded.history[2]).toEqual({
      role: "user",
      content: [
        {
          type: "tool_result",
          tool_use_id: "toolu_a",
          content: "The tool call was interrupted (no result was recorded).",
          is_error: true,
        },
      ],
    });
    expect(historyProblems(loaded.history)).toEqual([]);
  });

  test("orphan results are dropped and results are put in tool-call order", async () => {
    const { cwd, store } = setup();
    const writer = await store.create(cwd, "order");
    writer.appendMessage({ role: "user", content: "go" });
    writer.append({
      type: "assistant",
      ts: "t",
      message: {
        role: "assistant",
        content: [
          { type: "tool_use", id: "a", name: "X", input: {} },
          { type: "tool_use", id: "b", name: "X", input: {} },
        ],
      },
    });
    for (const id of ["b", "zzz", "a"])
      writer.append({
        type: "tool_result",
        ts: "t",
        result: { type: "tool_result", tool_use_id: id, content: id },
      });
    writer.close();
    const loaded = await store.load("order");
    expect(loaded.history[2]).toEqual({
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "a", content: "a" },
        { type: "tool_result", tool_use_id: "b", content: "b" },
      ],
    });
    expect(loaded.warnings.map((w) => w.message)).toEqual([
      "dropped a tool result with no matching tool call (zzz)",
    ]);
  });

  test("no header, or a newer format, is an error naming the file", async () => {
    const { base } = setup();
    const file = path.join(base, "bad.jsonl");
    writeFileSync(file, '{"type":"user","ts":"t","message":{"role":"user","content":"x"}}\n');
    await expect(loadTranscript(file)).rejects.toThrow(TranscriptError);
    await expect(loadTranscript(file)).rejects.toThrow(/bad\.jsonl: line 1 is not a transcript header/);
    writeFileSync(file, '{"type":"header","version":2,"sessionId":"x","cwd":"/","createdAt":"t"}\n');
    await expect(loadTranscript(file)).rejects.toThrow(/newer cairn \(format version 2\)/);
  });

  test("unknown record types are skipped with a warning (forward compatible)", async () => {
    const { store, file } = await session();
    appendFileSync(file, '{"type":"future_thing","ts":"t"}\n');
    const loaded = await store.load("crashy");
    expect(loaded.warnings).toEqual([expect.objectContaining({ kind: "unknown" })]);
  });
});

describe("the store", () => {
  test("files are created 0600, directories 0700, under $CAIRN_HOME/sessions/<workspace-key>/", async () => {
    const { base, cwd, store } = setup();
    const writer = await store.create(cwd, "modes");
    writer.close();
    expect(statSync(writer.path).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(writer.path)).mode & 0o777).toBe(0o700);
    expect(statSync(store.root).mode & 0o777).toBe(0o700);
    expect(writer.path).toBe(path.join(base, "home", "sessions", workspaceKey(cwd), "modes.jsonl"));
    expect(workspaceKey("/work/app")).toMatch(/^work-app-[0-9a-f]{12}$/);
    expect(workspaceKey("/work/app")).not.toBe(workspaceKey("/work-app"));
  });

  test("the workspace key's hash is SHA-256 of the path, so existing transcript directories are found", () => {
    // Computed with node:crypto here, as cairn did before it stopped loading it at start-up.
    for (const dir of ["/work/app", "/home/ünïcode/проект", "/"]) {
      const hash = createHash("sha256").update(dir).digest("hex").slice(0, 12);
      expect(workspaceKey(dir).endsWith(`-${hash}`)).toBe(true);
    }
  });

  test("an existing session is never overwritten", async () => {
    const { cwd, store } = setup();
    (await store.create(cwd, "dup")).close();
    await expect(store.create(cwd, "dup")).rejects.toThrow(/session dup already exists/);
  });

  test("an unknown id is an error naming the id; ids are never paths", async () => {
    const { store } = setup();
    await expect(store.load("no-such-session")).rejects.toThrow(SessionNotFoundError);
    await expect(store.load("no-such-session")).rejects.toThrow(/^session no-such-session not found /);
    await expect(store.open("no-such-session")).rejects.toThrow(/session no-such-session not found/);
    await expect(store.open("../../etc/passwd")).rejects.toThrow(/not a valid session id/);
    await expect(store.create("/tmp", "../x")).rejects.toThrow(/not a valid session id/);
  });

  test("list and latest: newest first, with first prompt and counts; fork copies into a new id", async () => {
    const { cwd, store } = setup();
    const older = await store.create(cwd, "older");
    await runLoop([], "the older one", (event) => older.recordEvent(event));
    older.close();
    const newer = await store.create(cwd, "newer");
    await runLoop([], "the newer one", (event) => newer.recordEvent(event), [reply().text("hi")]);
    newer.close();
    utimesSync(older.path, new Date(2020, 0, 1), new Date(2020, 0, 1));
    const other = await store.create(path.join(cwd, "elsewhere"), "elsewhere");
    other.close();

    const list = await store.list(cwd);
    expect(list.map((s) => [s.sessionId, s.firstPrompt, s.prompts, s.turns])).toEqual([
      ["newer", "the newer one", 1, 1],
      ["older", "the older one", 1, 2],
    ]);
    expect((await store.latest(cwd))?.sessionId).toBe("newer");
    expect(await store.latest(path.join(cwd, "nothing-here"))).toBeUndefined();

    const before = readFileSync(older.path, "utf8");
    const forked = await store.fork("older");
    expect(forked.sessionId).not.toBe("older");
    const loaded = await store.load(forked.sessionId);
    expect(loaded.history).toEqual((await store.load("older")).history);
    expect(loaded.header.forkedFrom?.sessionId).toBe("older");
    expect(readFileSync(older.path, "utf8")).toBe(before);
    expect((await store.list(cwd)).find((s) => s.sessionId === forked.sessionId)?.forkedFrom).toBe("older");
  });

  test("resume with fork writes to the new id", async () => {
    const { cwd, store } = setup();
    const original = await store.create(cwd, "orig");
    await runLoop([], "one", (event) => original.recordEvent(event));
    original.close();
    const resumed = await resumeTranscript(store, "orig", { fork: true });
    expect(resumed.writer.sessionId).not.toBe("orig");
    expect(resumed.forkedFrom).toBe("orig");
    resumed.writer.appendMessage({ role: "user", content: "only in the fork" });
    resumed.writer.close();
    expect(JSON.stringify((await store.load("orig")).history)).not.toContain("only in the fork");
    expect(JSON.stringify((await store.load(resumed.writer.sessionId)).history)).toContain(
      "only in the fork",
    );
  });

  test("resuming a 10,000-message session is fast (one streaming pass)", async () => {
    const { cwd, store } = setup();
    const writer = await store.create(cwd, "big");
    for (let i = 0; i < 2_500; i += 1) {
      writer.appendMessage({ role: "user", content: `prompt ${i} ${"x".repeat(200)}` });
      writer.append({
        type: "assistant",
        ts: "t",
        message: {
          role: "assistant",
          content: [
            { type: "text", text: "ok" },
            { type: "tool_use", id: `t${i}`, name: "Read", input: { file_path: "a" } },
          ],
        },
      });
      writer.append({
        type: "tool_result",
        ts: "t",
        result: { type: "tool_result", tool_use_id: `t${i}`, content: "y".repeat(500) },
      });
      writer.append({
        type: "assistant",
        ts: "t",
        message: { role: "assistant", content: [{ type: "text", text: "done" }] },
      });
    }
    writer.close();
    const started = performance.now();
    const loaded = await store.load("big");
    const elapsed = performance.now() - started;
    expect(loaded.history).toHaveLength(10_000);
    expect(loaded.warnings).toEqual([]);
    expect(elapsed).toBeLessThan(2_000);
    const listed = await store.list(cwd);
    expect(listed[0]).toMatchObject({ prompts: 2_500, turns: 5_000 });
  });
});
