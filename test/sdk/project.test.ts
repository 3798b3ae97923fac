/** The SDK projection as a pure function of engine events (no model, no tools). */
import { describe, expect, test } from "vitest";
import type { EngineEvent, RunEndEvent, RunStartEvent, UUID } from "../../src/index.js";
import { findModel } from "../../src/providers/catalog.js";
import { createSdkProjection } from "../../src/sdk/project.js";
import { toolResultUuid } from "../../src/sessions/derived-uuids.js";

function projection(includePartialMessages = false) {
  let n = 0;
  return createSdkProjection({
    includePartialMessages,
    version: "9.9.9",
    uuid: () => `00000000-0000-4000-8000-${String(++n).padStart(12, "0")}` as UUID,
  });
}

const start: RunStartEvent = {
  type: "run_start",
  sessionId: "s-1",
  cwd: "/work/project",
  model: "anthropic/claude-sonnet-5-5",
  modelDisplayName: "Claude Sonnet 5.5",
  apiKeySource: "env",
  permissionMode: "default",
  tools: ["Read", "Bash"],
  prompt: "hi",
  startedAt: 0,
};

const end = (overrides: Partial<RunEndEvent> = {}): RunEndEvent => ({
  type: "run_end",
  sessionId: "s-1",
  subtype: "success",
  isError: false,
  aborted: false,
  result: "First.Second.",
  finalText: "Second.",
  durationMs: 120,
  durationApiMs: 100,
  numTurns: 2,
  usage: {
    input_tokens: 10,
    output_tokens: 5,
    cache_read_input_tokens: 3,
    cache_creation_input_tokens: null,
  },
  modelUsage: {
    "claude-sonnet-5-5": { input_tokens: 10, output_tokens: 5 },
    "local-thing": { input_tokens: 1, output_tokens: 1 },
  },
  totalCostUsd: null,
  modelCostUsd: { "claude-sonnet-5-5": 0.25, "local-thing": null },
  errors: [],
  permissionDenials: [],
  ...overrides,
});

describe("createSdkProjection", () => {
  test("run_start → system/init with the convention's fields", () => {
    expect(projection().project(start)).toEqual([
      {
        type: "system",
        subtype: "init",
        cwd: "/work/project",
        session_id: "s-1",
        tools: ["Read", "Bash"],
        mcp_servers: [],
        model: "anthropic/claude-sonnet-5-5",
        permissionMode: "default",
        slash_commands: [],
        apiKeySource: "ANTHROPIC_API_KEY",
        claude_code_version: "9.9.9",
        output_style: "default",
        agents: [],
        skills: [],
        plugins: [],
        uuid: "00000000-0000-4000-8000-000000000001",
      },
    ]);
    const [flag] = projection().project({ ...start, apiKeySource: "flag" });
    const [none] = projection().project({ ...start, apiKeySource: "none" });
    expect(flag?.type === "system" && flag.subtype === "init" && flag.apiKeySource).toBe("option");
    expect(none?.type === "system" && none.subtype === "init" && none.apiKeySource).toBe("none");
    const source = (model: string) => {
      const [message] = projection().project({ ...start, model });
      return message?.type === "system" && message.subtype === "init" ? message.apiKeySource : undefined;
    };
    expect(source("claude-haiku-5-5")).toBe("ANTHROPIC_API_KEY");
    expect(source("openai/gpt-5.6-terra")).toBe("OPENAI_API_KEY");
    expect(source("gpt-5.6-terra")).toBe("OPENAI_API_KEY");
    expect(source("openrouter/some-model")).toBe("OPENROUTER_API_KEY");
  });

  test("stream → stream_event only with includePartialMessages, a copy of the raw event", () => {
    const raw = { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hi" } } as const;
    const event: EngineEvent = { type: "stream", turn: 1, event: raw, receivedAt: 0 };
    expect(projection(false).project(event)).toEqual([]);
    const p = projection(true);
    p.project(start);
    const [message] = p.project(event);
    expect(message).toEqual({
      type: "stream_event",
      event: raw,
      parent_tool_use_id: null,
      uuid: "00000000-0000-4000-8000-000000000002",
      session_id: "s-1",
    });
    expect(message?.type === "stream_event" && message.event).not.toBe(raw);
  });

  test("assistant_block → one assistant message with an Anthropic-shaped message", () => {
    const p = projection();
    p.project(start);
    const block = { type: "tool_use" as const, id: "toolu_1", name: "Read", input: { file_path: "a" } };
    const [message] = p.project({
      type: "assistant_block",
      turn: 1,
      block,
      messageId: "msg_1",
      model: "claude-sonnet-5-5-20260101",
      usage: { input_tokens: 4, output_tokens: 1 },
      index: 0,
      uuid: "11111111-1111-4111-8111-111111111111",
    });
    expect(message).toEqual({
      type: "assistant",
      message: {
        id: "msg_1",
        type: "message",
        role: "assistant",
        model: "claude-sonnet-5-5-20260101",
        content: [block],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: 4,
          output_tokens: 1,
          cache_creation_input_tokens: null,
          cache_read_input_tokens: null,
        },
      },
      parent_tool_use_id: null,
      // The block's own uuid, which the transcript keeps beside it (resumeSessionAt takes it).
      uuid: "11111111-1111-4111-8111-111111111111",
      session_id: "s-1",
    });
    expect(message?.type === "assistant" && message.message.content[0]).not.toBe(block);
  });

  test("tool_end → user with the tool_result; tool_use_result is the structured data, or the error text", () => {
    const p = projection();
    p.project(start);
    const ok = p.project({
      type: "tool_end",
      turn: 1,
      toolUseId: "toolu_1",
      name: "Read",
      input: { file_path: "a" },
      outcome: { content: "     1\tA", data: { content: "A", totalLines: 1 }, isError: false, durationMs: 1 },
      endedAt: 0,
    });
    expect(ok).toEqual([
      {
        type: "user",
        message: {
          role: "user",
          content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "     1\tA" }],
        },
        parent_tool_use_id: null,
        tool_use_result: { content: "A", totalLines: 1 },
        // Derived from the tool call's id, which the transcript keeps.
        uuid: toolResultUuid("toolu_1"),
        session_id: "s-1",
      },
    ]);
    const failed = p.project({
      type: "tool_end",
      turn: 1,
      toolUseId: "toolu_2",
      name: "Nope",
      input: {},
      outcome: {
        content: "No such tool available: Nope.",
        isError: true,
        errorKind: "unknown_tool",
        durationMs: 0,
      },
      endedAt: 0,
    });
    expect(failed[0]).toMatchObject({
      message: { content: [{ type: "tool_result", tool_use_id: "toolu_2", is_error: true }] },
      tool_use_result: "No such tool available: Nope.",
    });
    const plain = p.project({
      type: "tool_end",
      turn: 1,
      toolUseId: "toolu_3",
      name: "Custom",
      input: {},
      outcome: { content: "text only", isError: false, durationMs: 0 },
      endedAt: 0,
    });
    expect(plain[0]).toMatchObject({ tool_use_result: "text only" });
  });

  test("run_end success → result with the final text, usage, modelUsage and the last stop reason", () => {
    const p = projection();
    p.project(start);
    p.project({ type: "turn_end", turn: 1, stopReason: "tool_use" });
    p.project({ type: "turn_end", turn: 2, stopReason: "end_turn" });
    const [message] = p.project(end());
    expect(message).toEqual({
      type: "result",
      subtype: "success",
      is_error: false,
      duration_ms: 120,
      duration_api_ms: 100,
      num_turns: 2,
      result: "Second.",
      stop_reason: "end_turn",
      session_id: "s-1",
      total_cost_usd: Number.NaN,
      usage: {
        input_tokens: 10,
        output_tokens: 5,
        cache_read_input_tokens: 3,
        cache_creation_input_tokens: 0,
      },
      modelUsage: {
        "claude-sonnet-5-5": {
          inputTokens: 10,
          outputTokens: 5,
          cacheReadInputTokens: 0,
          cacheCreationInputTokens: 0,
          webSearchRequests: 0,
          costUSD: 0.25,
          contextWindow: findModel("claude-sonnet-5-5")!.contextWindow,
          maxOutputTokens: findModel("claude-sonnet-5-5")!.maxOutput,
        },
        "local-thing": expect.objectContaining({ contextWindow: 0, maxOutputTokens: 0, costUSD: Number.NaN }),
      },
      permission_denials: [],
      uuid: "00000000-0000-4000-8000-000000000002",
    });
  });

  test("run_end error → result with errors and no result text; stop_reason null when no call completed", () => {
    const p = projection();
    p.project(start);
    const denial = { tool_name: "Write", tool_use_id: "toolu_9", tool_input: { file_path: "x" } };
    const [message] = p.project(
      end({
        subtype: "error_during_execution",
        isError: true,
        errors: ["Anthropic API error 529: overloaded"],
        permissionDenials: [denial],
        numTurns: 1,
      }),
    );
    expect(message).toMatchObject({
      type: "result",
      subtype: "error_during_execution",
      is_error: true,
      errors: ["Anthropic API error 529: overloaded"],
      stop_reason: null,
      permission_denials: [denial],
    });
    expect(message && "result" in message).toBe(false);
  });

  test("model_call_retry → system/api_retry with the convention's retry count and error category", () => {
    const p = projection();
    p.project(start);
    const retry = (errorStatus: number | null, attempt = 2) =>
      p.project({
        type: "model_call_retry",
        turn: 1,
        attempt,
        maxRetries: 4,
        delayMs: 750,
        errorStatus,
        error: "Anthropic API error 529: overloaded",
      })[0];
    expect(retry(529)).toEqual({
      type: "system",
      subtype: "api_retry",
      attempt: 1,
      max_retries: 4,
      retry_delay_ms: 750,
      error_status: 529,
      error: "overloaded",
      error_message: "Anthropic API error 529: overloaded",
      uuid: "00000000-0000-4000-8000-000000000002",
      session_id: "s-1",
    });
    expect(retry(429, 3)).toMatchObject({ attempt: 2, error: "rate_limit" });
    expect(retry(500)).toMatchObject({ error: "server_error" });
    expect(retry(408)).toMatchObject({ error: "invalid_request" });
    expect(retry(null)).toMatchObject({ error_status: null, error: "unknown" });
  });

  test("events with no SDK message project to nothing", () => {
    const p = projection(true);
    expect(p.project({ type: "model_call_start", turn: 1, startedAt: 0 })).toEqual([]);
    expect(
      p.project({ type: "tool_start", turn: 1, toolUseId: "t", name: "Read", input: {}, startedAt: 0 }),
    ).toEqual([]);
    expect(p.project({ type: "turn_end", turn: 1, stopReason: "end_turn" })).toEqual([]);
  });
});
