import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import * as z from "zod";
import type { RunEndEvent } from "../../src/engine/events.js";
import type { PermissionRequest, SessionEvent } from "../../src/session/events.js";
import { BusyError, Session, type SessionSetup } from "../../src/session/session.js";
import { defaultTranscriptStore, JsonlTranscriptStore } from "../../src/sessions/index.js";
import { reply, type ScriptedServer } from "../../src/testing/index.js";
import { builtinTools, defineTool } from "../../src/tools/index.js";
import { tempDir } from "../helpers/temp.js";
import { cleanUp, envFor, startServer, workspace } from "../sdk/helpers.js";

/**
 * The session controller's conformance suite: what every door (print mode, the SDK's query(), ACP,
 * the interactive mode) gets from it, driven directly against the scripted model server. The doors'
 * own suites test only how they map it.
 */
afterEach(cleanUp);

/** A tool that waits until the test lets it finish: a turn that is running for as long as needed. */
function gateTool() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  const started: string[] = [];
  const tool = defineTool({
    name: "Wait",
    description: "Waits.",
    input: z.object({ label: z.string() }),
    effects: { kind: "other", readOnly: true, network: false },
    async run(input, ctx) {
      started.push(input.label);
      const aborted = new Promise<void>((resolve) => ctx.signal.addEventListener("abort", () => resolve()));
      await Promise.race([opened, aborted]);
      return { content: `waited ${input.label}` };
    },
  });
  return { tool, open, started };
}

function setup(server: ScriptedServer, cwd: string, overrides: Partial<SessionSetup> = {}): SessionSetup {
  const env = envFor(server);
  return {
    cwd,
    env,
    assembly: () => ({ cwd, env, tools: builtinTools() }),
    permissions: { answered: false, forceHint: "use --force", source: "test" },
    opening: {},
    ...overrides,
  };
}

async function drain(
  turn: AsyncGenerator<SessionEvent, RunEndEvent | undefined>,
  onEvent: (event: SessionEvent) => void = () => {},
): Promise<{ events: SessionEvent[]; end: RunEndEvent | undefined }> {
  const events: SessionEvent[] = [];
  while (true) {
    const step = await turn.next();
    if (step.done) return { events, end: step.value };
    events.push(step.value);
    onEvent(step.value);
  }
}

describe("session controller", () => {
  test("a prompt yields the engine's events and returns run_end; the next prompt continues the conversation", async () => {
    const server = await startServer([reply().text("First answer."), reply().text("Second answer.")]);
    const session = new Session(setup(server, workspace()));
    const first = await drain(session.prompt({ text: "one" }));
    expect(first.events[0]?.type).toBe("run_start");
    expect(first.events.some((event) => event.type === ("run_end" as never))).toBe(false);
    expect(first.end).toMatchObject({ subtype: "success", result: "First answer." });
    const second = await drain(session.prompt({ text: "two" }));
    expect(second.end?.result).toBe("Second answer.");
    // The second request carries the first exchange.
    const body = JSON.stringify(server.requests[1]?.body);
    expect(body).toContain("First answer.");
    expect(body).toContain('"two"');
    expect(session.spend.costUsd).toBeGreaterThanOrEqual(0);
    await session.close();
  });

  test("one turn at a time: a queued prompt waits for the running one; a reject prompt is refused", async () => {
    const gate = gateTool();
    const server = await startServer([
      reply().tool("Wait", { label: "a" }, "toolu_a"),
      reply().text("A done."),
      reply().text("B done."),
    ]);
    const cwd = workspace();
    const session = new Session(
      setup(server, cwd, { assembly: () => ({ cwd, env: envFor(server), tools: [gate.tool] }) }),
    );
    const order: string[] = [];
    const a = drain(session.prompt({ text: "a" }), (event) => {
      if (event.type === "tool_start") order.push("a running");
    });
    const b = drain(session.prompt({ text: "b" }, { whenBusy: "queue" }), (event) => {
      if (event.type === "run_start") order.push("b started");
    });
    while (gate.started.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(session.busy).toBe(true);
    await expect(drain(session.prompt({ text: "c" }, { whenBusy: "reject" }))).rejects.toBeInstanceOf(
      BusyError,
    );
    gate.open();
    expect((await a).end?.result).toBe("A done.");
    expect((await b).end?.result).toBe("B done.");
    expect(order).toEqual(["a running", "b started"]);
    await session.close();
  });

  test("steer: a prompt sent while a turn runs joins it at its next model call; its own generator ends with nothing", async () => {
    const gate = gateTool();
    const server = await startServer([
      reply().tool("Wait", { label: "a" }, "toolu_a"),
      reply().text("A done, and the note seen."),
    ]);
    const cwd = workspace();
    const session = new Session(
      setup(server, cwd, { assembly: () => ({ cwd, env: envFor(server), tools: [gate.tool] }) }),
    );
    const a = drain(session.prompt({ text: "a" }));
    while (gate.started.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    const b = drain(session.prompt({ text: "also mind the tests" }, { whenBusy: "steer" }));
    // The steering prompt is held until the turn's next step: let the tool finish only now.
    gate.open();
    const [first, steered] = await Promise.all([a, b]);
    expect(steered).toEqual({ events: [], end: undefined });
    expect(first.end?.result).toBe("A done, and the note seen.");
    expect(server.requests).toHaveLength(2);
    // One user message: the tool's result, then the steering text.
    const messages = (server.requests[1]!.body as { messages: { role: string; content: unknown }[] })
      .messages;
    const last = messages.at(-1);
    expect(last?.role).toBe("user");
    expect(JSON.stringify(last?.content)).toMatch(/waited a.*also mind the tests/);
    const joined = first.events.find((event) => event.type === "user_turn");
    expect(joined).toMatchObject({ source: "steer" });
    await session.close();
  });

  test("steer: a prompt the turn ends before taking (interrupted) runs as a turn of its own", async () => {
    const gate = gateTool();
    const server = await startServer([
      reply().tool("Wait", { label: "a" }, "toolu_a"),
      reply().text("B done."),
    ]);
    const cwd = workspace();
    const session = new Session(
      setup(server, cwd, { assembly: () => ({ cwd, env: envFor(server), tools: [gate.tool] }) }),
    );
    const a = drain(session.prompt({ text: "a" }));
    while (gate.started.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    const b = drain(session.prompt({ text: "b instead" }, { whenBusy: "steer" }));
    session.interrupt();
    const [first, second] = await Promise.all([a, b]);
    expect(first.end?.subtype).not.toBe("success");
    expect(second.events[0]?.type).toBe("run_start");
    expect(second.end?.result).toBe("B done.");
    expect(JSON.stringify(server.requests[1]?.body)).toContain("b instead");
    await session.close();
  });

  test("steer: a steering prompt goes through the UserPromptSubmit hooks; one they block never reaches the model", async () => {
    const gate = gateTool();
    const server = await startServer([
      reply().tool("Wait", { label: "a" }, "toolu_a"),
      reply().text("Done."),
    ]);
    const cwd = workspace();
    const seen: string[] = [];
    const session = new Session(
      setup(server, cwd, {
        assembly: () => ({
          cwd,
          env: envFor(server),
          tools: [gate.tool],
          hooks: {
            callbacks: {
              UserPromptSubmit: [
                {
                  hooks: [
                    async (input) => {
                      const prompt = String((input as { prompt?: unknown }).prompt);
                      seen.push(prompt);
                      return prompt.includes("secret")
                        ? { decision: "block" as const, reason: "no secrets in prompts" }
                        : {};
                    },
                  ],
                },
              ],
            },
          },
        }),
      }),
    );
    const a = drain(session.prompt({ text: "a" }));
    while (gate.started.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    const b = drain(session.prompt({ text: "the secret is 42" }, { whenBusy: "steer" }));
    gate.open();
    const [first] = await Promise.all([a, b]);
    expect(seen).toEqual(["a", "the secret is 42"]);
    expect(first.end?.result).toBe("Done.");
    expect(JSON.stringify(server.requests[1]?.body)).not.toContain("secret is 42");
    expect(first.events.some((event) => event.type === "user_turn")).toBe(false);
    await session.close();
  });

  test("interrupt() ends the running turn with an aborted run_end; the session takes the next prompt", async () => {
    const gate = gateTool();
    const server = await startServer([
      reply().tool("Wait", { label: "x" }, "toolu_x"),
      reply().text("Next."),
    ]);
    const cwd = workspace();
    const session = new Session(
      setup(server, cwd, { assembly: () => ({ cwd, env: envFor(server), tools: [gate.tool] }) }),
    );
    const turn = drain(session.prompt({ text: "x" }));
    while (gate.started.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    session.interrupt();
    const { end } = await turn;
    expect(end).toMatchObject({ aborted: true, subtype: "error_during_execution" });
    expect((await drain(session.prompt({ text: "again" }))).end?.result).toBe("Next.");
    await session.close();
  });

  test("interrupt() keeps the turn in the history: the call, its result, the reference's note; turn_interrupted says so", async () => {
    const gate = gateTool();
    const server = await startServer([reply().tool("Wait", { label: "x" }, "toolu_x")]);
    const cwd = workspace();
    const session = new Session(
      setup(server, cwd, { assembly: () => ({ cwd, env: envFor(server), tools: [gate.tool] }) }),
    );
    const turn = drain(session.prompt({ text: "x" }));
    while (gate.started.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    session.interrupt();
    const { events } = await turn;
    const note = "[Request interrupted by user for tool use]";
    expect(events.at(-1)).toEqual({ type: "turn_interrupted", turn: 1, note });
    expect(session.history).toEqual([
      { role: "user", content: "x" },
      {
        role: "assistant",
        content: [{ type: "tool_use", id: "toolu_x", name: "Wait", input: { label: "x" } }],
      },
      {
        role: "user",
        content: [
          {
            type: "tool_result",
            tool_use_id: "toolu_x",
            content: "The tool call was interrupted by the user.",
            is_error: true,
          },
          { type: "text", text: note },
        ],
      },
    ]);
    await session.close();
  });

  test("a permission question is an event with an id and the call's display; the answer is input", async () => {
    const server = await startServer([
      reply().tool("Write", { file_path: "new.txt", content: "hello" }, "toolu_w"),
      reply().tool("Write", { file_path: "other.txt", content: "no" }, "toolu_w2"),
      reply().text("Done."),
    ]);
    const cwd = workspace();
    const session = new Session(
      setup(server, cwd, {
        permissions: { mode: "default", answered: true, forceHint: "use --force", source: "test" },
      }),
    );
    const requests: PermissionRequest[] = [];
    const { events, end } = await drain(session.prompt({ text: "write" }), (event) => {
      if (event.type !== "permission_request") return;
      requests.push(event.request);
      const allow = event.request.input.file_path === "new.txt";
      expect(
        session.answer(
          event.request.id,
          allow ? { behavior: "allow" } : { behavior: "deny", message: "Not that one." },
        ),
      ).toBe(true);
    });
    expect(end?.subtype).toBe("success");
    expect(requests).toHaveLength(2);
    expect(requests[0]).toMatchObject({
      toolName: "Write",
      toolUseId: "toolu_w",
      display: {
        title: "Write new.txt",
        kind: "edit",
        locations: [{ path: join(cwd, "new.txt") }],
        diff: { path: join(cwd, "new.txt"), oldText: null, newText: "hello" },
      },
    });
    expect(readFileSync(join(cwd, "new.txt"), "utf8")).toBe("hello");
    expect(existsSync(join(cwd, "other.txt"))).toBe(false);
    const denied = events.find((event) => event.type === "tool_end" && event.toolUseId === "toolu_w2");
    expect(denied).toMatchObject({ outcome: { isError: true } });
    expect(JSON.stringify(server.requests[2]?.body)).toContain("Not that one.");
    // An id nobody asked about is not an answer.
    expect(session.answer("no-such-request", { behavior: "allow" })).toBe(false);
    await session.close();
  });

  test("an interrupt withdraws an open question: its signal aborts and the call does not run", async () => {
    const server = await startServer([
      reply().tool("Write", { file_path: "x.txt", content: "x" }, "toolu_w"),
    ]);
    const cwd = workspace();
    const session = new Session(
      setup(server, cwd, {
        permissions: { mode: "default", answered: true, forceHint: "use --force", source: "test" },
      }),
    );
    let withdrawn: AbortSignal | undefined;
    const { end } = await drain(session.prompt({ text: "write" }), (event) => {
      if (event.type !== "permission_request") return;
      withdrawn = session.requestSignal(event.request.id);
      session.interrupt();
    });
    expect(withdrawn?.aborted).toBe(true);
    expect(end?.aborted).toBe(true);
    expect(existsSync(join(cwd, "x.txt"))).toBe(false);
    await session.close();
  });

  test("the transcript is created by the first turn, not before; a resumed session continues its history", async () => {
    const server = await startServer([reply().text("Remember 7."), reply().text("It was 7.")]);
    const cwd = workspace();
    const first = new Session(setup(server, cwd));
    const transcript = first.transcriptPath(first.id);
    await first.commands();
    expect(existsSync(transcript)).toBe(false);
    await drain(first.prompt({ text: "remember" }));
    await first.close();
    expect(existsSync(transcript)).toBe(true);

    const resumed = new Session(setup(server, cwd, { opening: { resume: first.id } }));
    const { events } = await drain(resumed.prompt({ text: "what was it?" }));
    expect(resumed.id).toBe(first.id);
    expect(events[0]).toMatchObject({ type: "run_start", sessionId: first.id });
    expect(JSON.stringify(server.requests[1]?.body)).toContain("Remember 7.");
    await resumed.close();
  });

  test("the store the door gives keeps the session: written there, resumed from it, titled there; $CAIRN_HOME's has none", async () => {
    const server = await startServer([reply().text("Remember 8."), reply().text("It was 8.")]);
    const cwd = workspace();
    const store = new JsonlTranscriptStore({ cairnHome: tempDir("cairn-own-store-") });
    const first = new Session(setup(server, cwd, { store, opening: { title: "Numbers" } }));
    await drain(first.prompt({ text: "remember" }));
    await first.close();
    expect(first.transcriptPath(first.id)).toBe(store.locate(first.id, cwd));
    expect((await store.list(cwd)).map((s) => [s.sessionId, s.meta.title])).toEqual([[first.id, "Numbers"]]);
    expect(await defaultTranscriptStore(envFor(server)).exists(first.id, cwd)).toBe(false);

    const resumed = new Session(setup(server, cwd, { store, opening: { resume: first.id } }));
    await drain(resumed.prompt({ text: "what was it?" }));
    await resumed.close();
    expect(JSON.stringify(server.requests[1]?.body)).toContain("Remember 8.");
    expect((await store.load(first.id, cwd)).history).toHaveLength(4);
  });

  test("a mode change during a turn is an event; the next call is checked in the new mode", async () => {
    const gate = gateTool();
    const server = await startServer([
      reply().tool("Wait", { label: "m" }, "toolu_m"),
      reply().tool("Write", { file_path: "later.txt", content: "x" }, "toolu_later"),
      reply().text("Done."),
    ]);
    const cwd = workspace();
    const session = new Session(
      setup(server, cwd, {
        assembly: () => ({ cwd, env: envFor(server), tools: [gate.tool, ...builtinTools()] }),
        permissions: { mode: "acceptEdits", answered: false, forceHint: "use --force", source: "test" },
      }),
    );
    const turn = drain(session.prompt({ text: "go" }));
    while (gate.started.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    session.setMode("plan");
    gate.open();
    const { events } = await turn;
    expect(events).toContainEqual({ type: "permission_mode_changed", mode: "plan" });
    expect(session.mode).toBe("plan");
    // Plan mode is read-only: the Write after the change is refused.
    expect(existsSync(join(cwd, "later.txt"))).toBe(false);
    await session.close();
  });

  test("describe(): a tool that declares no display is titled by its name, its kind from its effects", async () => {
    const server = await startServer([reply().text("ok")]);
    const cwd = workspace();
    const fetcher = defineTool({
      name: "mcp__web__fetch",
      description: "Fetches.",
      input: z.object({ url: z.string() }),
      effects: { kind: "other", readOnly: true, network: true },
      async run() {
        return { content: "" };
      },
    });
    const session = new Session(
      setup(server, cwd, { assembly: () => ({ cwd, env: envFor(server), tools: [fetcher] }) }),
    );
    await session.assembly();
    expect(session.describe("mcp__web__fetch", { url: "https://example.com" }, { live: true })).toEqual({
      title: "mcp__web__fetch",
      kind: "fetch",
      locations: [],
    });
    expect(session.describe("Unknown", {}, { live: true })).toEqual({
      title: "Unknown",
      kind: "other",
      locations: [],
    });
    await session.close();
  });

  test("watch(): every event numbered in order, run_end included; a late watcher replays what is kept", async () => {
    const server = await startServer([reply().text("One."), reply().text("Two.")]);
    const session = new Session({ ...setup(server, workspace()), keep: 5 });
    const seen: [number, string][] = [];
    const watching = session.watch((seq, event) => seen.push([seq, event.type]));
    expect(watching.complete).toBe(true);
    const { events } = await drain(session.prompt({ text: "one" }));
    // What the driver got, in the same order, numbered 1…n, then the run's end.
    expect(seen.map(([, type]) => type)).toEqual([...events.map((event) => event.type), "run_end"]);
    expect(seen.map(([seq]) => seq)).toEqual(seen.map((_, index) => index + 1));
    expect(session.lastSeq).toBe(seen.length);
    watching.stop();
    await drain(session.prompt({ text: "two" }));
    expect(seen).toHaveLength(events.length + 1); // stopped: nothing more

    // Caught up from the last number it saw: only the last five events are kept.
    const late: number[] = [];
    const caughtUp = session.watch((seq) => late.push(seq), { after: seen.length });
    expect(caughtUp.complete).toBe(false);
    expect(late).toEqual([1, 2, 3, 4, 5].map((k) => session.lastSeq - 5 + k));
    const recent: number[] = [];
    expect(session.watch((seq) => recent.push(seq), { after: session.lastSeq - 2 }).complete).toBe(true);
    expect(recent).toEqual([session.lastSeq - 1, session.lastSeq]);
    await session.close();
  });
});
