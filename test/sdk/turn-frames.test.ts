import { afterEach, describe, expect, test } from "vitest";
import { query, type SDKMessage, type SDKUserMessage } from "../../src/index.js";
import { reply } from "../../src/testing/index.js";
import { cleanUp, collect, envFor, startServer, workspace } from "./helpers.js";

afterEach(cleanUp);

/** Each message as `type/subtype` (a state change as its state, an echo as `replay:<uuid>`). */
function flow(messages: SDKMessage[]): string[] {
  return messages.flatMap((message) => {
    if (message.type === "system" && message.subtype === "informational") return []; // machine notes
    if (message.type === "system" && message.subtype === "session_state_changed") return [message.state];
    if (message.type === "user" && "isReplay" in message) return [`replay:${message.uuid}`];
    return [`${message.type}/${"subtype" in message ? message.subtype : ""}`];
  });
}

const prompt = (content: string, uuid?: string): SDKUserMessage => ({
  type: "user",
  message: { role: "user", content },
  parent_tool_use_id: null,
  ...(uuid ? { uuid: uuid as SDKUserMessage["uuid"] & string } : {}),
});

describe("what a program asks the convention's CLI for, in-process", () => {
  test("CLAUDE_CODE_EMIT_SESSION_STATE_EVENTS=1 in env: each turn is framed by running and idle", async () => {
    const server = await startServer([reply().text("One."), reply().text("Two.")]);
    async function* prompts() {
      yield prompt("first");
      yield prompt("second");
    }
    const messages = await collect(
      query({
        prompt: prompts(),
        options: { cwd: workspace(), env: { ...envFor(server), CLAUDE_CODE_EMIT_SESSION_STATE_EVENTS: "1" } },
      }),
    );
    expect(flow(messages)).toEqual([
      "running",
      "system/init",
      "assistant/",
      "result/success",
      "idle",
      "running",
      "system/init",
      "assistant/",
      "result/success",
      "idle",
    ]);
    const sessionId = messages.find((message) => message.type === "result")!.session_id;
    for (const message of messages) expect(message.session_id).toBe(sessionId);
  });

  test("without it, no state changes: the result ends a turn", async () => {
    const server = await startServer([reply().text("One.")]);
    const messages = await collect(
      query({ prompt: "Go", options: { cwd: workspace(), env: envFor(server) } }),
    );
    expect(flow(messages)).toEqual(["system/init", "assistant/", "result/success"]);
  });

  test("extraArgs replay-user-messages: each prompt is echoed after its turn's init, with its uuid (made up when it had none)", async () => {
    const server = await startServer([reply().text("One."), reply().text("Two.")]);
    const given = "11111111-2222-4333-8444-555555555555";
    async function* prompts() {
      yield prompt("first");
      yield prompt("second", given);
    }
    const messages = await collect(
      query({
        prompt: prompts(),
        options: { cwd: workspace(), env: envFor(server), extraArgs: { "replay-user-messages": null } },
      }),
    );
    const echoes = messages.filter((message) => message.type === "user" && "isReplay" in message);
    expect(echoes).toHaveLength(2);
    expect(echoes.map((echo) => (echo as SDKUserMessage).message.content)).toEqual(["first", "second"]);
    const made = echoes[0]!.uuid!;
    expect(made).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(flow(messages)).toEqual([
      "system/init",
      `replay:${made}`,
      "assistant/",
      "result/success",
      "system/init",
      `replay:${given}`,
      "assistant/",
      "result/success",
    ]);
  });
});
