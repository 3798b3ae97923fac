import { afterEach, describe, expect, test } from "vitest";
import { query, type SDKUserMessage } from "../../src/index.js";
import { httpError, reply } from "../../src/testing/index.js";
import { runCli } from "../conformance/pm/helpers.js";
import { cleanUp, collect, envFor, result, runQuery, startServer, workspace } from "../sdk/helpers.js";

afterEach(cleanUp);

type Body = Record<string, unknown>;

/** One million input tokens of claude-sonnet-5-5 cost more than a dollar. */
const EXPENSIVE = { input_tokens: 1_000_000, output_tokens: 10 };

describe("maxBudgetUsd / --max-budget-usd", () => {
  test("SDK: the turn ends with error_max_budget_usd once the cost passes the budget; no further model call", async () => {
    const { server, messages } = await runQuery(
      [reply().tool("LS", { path: "." }).usage(EXPENSIVE), reply().text("never sent")],
      { maxBudgetUsd: 0.5 },
    );
    const end = result(messages);
    expect(end.subtype).toBe("error_max_budget_usd");
    expect(end.is_error).toBe(true);
    expect(end.total_cost_usd).toBeGreaterThan(0.5);
    expect(end.subtype !== "success" && end.errors.join(" ")).toContain("maximum budget of $0.5");
    expect(server.requests).toHaveLength(1);
  });

  test("CLI: exit 1 with the reason on stderr, nothing half-written on stdout", async () => {
    const run = await runCli({
      steps: [reply().tool("LS", { path: "." }).usage(EXPENSIVE), reply().text("never sent")],
      args: ["--max-budget-usd", "0.5", "--output-format", "json"],
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/maximum budget of \$0\.5 \(the run cost \$\d/);
    expect(run.stdout).toBe("");
    expect(run.server.requests).toHaveLength(1);
  });

  test("CLI: a bad value is a usage error (exit 2)", async () => {
    const run = await runCli({ args: ["--max-budget-usd", "lots"] });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--max-budget-usd must be a number of at least 0, got "lots"');
  });
});

describe("fallbackModel / --fallback-model", () => {
  test("SDK: an overloaded primary hands over to the fallback, noted in the stream and in modelUsage", async () => {
    const server = await startServer([httpError(529), reply().text("from the fallback")]);
    const messages = await collect(
      query({
        prompt: "Go",
        options: {
          cwd: workspace(),
          env: { ...envFor(server), CAIRN_MAX_RETRIES: "0" },
          model: "anthropic/claude-sonnet-5-5",
          fallbackModel: "anthropic/claude-haiku-5-5",
        },
      }),
    );
    expect(server.requests.map((request) => (request.body as Body).model)).toEqual([
      "claude-sonnet-5-5",
      "claude-haiku-5-5",
    ]);
    // Found by its tag: without bubblewrap a note about the sandbox comes first.
    const note = messages.find(
      (m) => m.type === "system" && m.subtype === "informational" && m.tag === "model_fallback",
    );
    expect(note?.type === "system" && note.subtype === "informational" && note.content).toContain(
      "continuing with anthropic/claude-haiku-5-5",
    );
    const end = result(messages);
    expect(end.subtype).toBe("success");
    expect(Object.keys(end.modelUsage)).toEqual(["claude-haiku-5-5"]);
  });

  test("CLI: the fallback answers and stderr says so", async () => {
    const run = await runCli({
      steps: [httpError(503), reply().text("fallback answer")],
      args: ["--fallback-model", "haiku"],
      env: { CAIRN_MAX_RETRIES: "0" },
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("fallback answer\n");
    expect(run.stderr).toContain("is unavailable");
    expect((run.server.requests[1]!.body as Body).model).toBe("claude-haiku-5-5");
  });

  test("a client error (400) is not a reason to fall back", async () => {
    const server = await startServer([httpError(400), reply().text("unused")]);
    const messages = await collect(
      query({
        prompt: "Go",
        options: { cwd: workspace(), env: envFor(server), fallbackModel: "anthropic/claude-haiku-5-5" },
      }),
    );
    expect(result(messages).subtype).toBe("error_during_execution");
    expect(server.requests).toHaveLength(1);
  });
});

describe("thinking, maxThinkingTokens, effort on the wire", () => {
  test("SDK, Anthropic: thinking with a budget and effort become thinking.budget_tokens and output_config.effort", async () => {
    const { server } = await runQuery([reply().text("ok")], {
      thinking: { type: "enabled", budgetTokens: 2048 },
      effort: "high",
    });
    const body = server.requests[0]!.body as Body;
    expect(body.thinking).toEqual({ type: "enabled", budget_tokens: 2048 });
    expect(body.output_config).toEqual({ effort: "high" });
  });

  test("SDK, Anthropic: a budget above max_tokens raises max_tokens; adaptive and disabled pass through", async () => {
    const big = await runQuery([reply().text("ok")], { maxThinkingTokens: 20_000 });
    const body = big.server.requests[0]!.body as Body;
    expect(body.thinking).toEqual({ type: "enabled", budget_tokens: 20_000 });
    expect(body.max_tokens).toBeGreaterThan(20_000);
    const off = await runQuery([reply().text("ok")], { maxThinkingTokens: 0 });
    expect((off.server.requests[0]!.body as Body).thinking).toEqual({ type: "disabled" });
    const adaptive = await runQuery([reply().text("ok")], { thinking: { type: "adaptive" } });
    expect((adaptive.server.requests[0]!.body as Body).thinking).toEqual({ type: "adaptive" });
  });

  test("SDK: setMaxThinkingTokens() changes the next turn's request", async () => {
    const server = await startServer([reply().text("one"), reply().text("two")]);
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    async function* prompts(): AsyncGenerator<SDKUserMessage> {
      yield userMessage("first");
      await gate;
      yield userMessage("second");
    }
    const q = query({ prompt: prompts(), options: { cwd: workspace(), env: envFor(server) } });
    for await (const message of q) {
      if (message.type !== "result") continue;
      if (server.requests.length === 1) {
        await q.setMaxThinkingTokens(4096);
        release();
      } else break;
    }
    expect((server.requests[0]!.body as Body).thinking).toBeUndefined();
    expect((server.requests[1]!.body as Body).thinking).toEqual({ type: "enabled", budget_tokens: 4096 });
  });

  test("SDK, OpenAI Responses: effort becomes reasoning.effort (max asks for xhigh); thinking is reported as ignored", async () => {
    const server = await startServer([reply().text("ok")]);
    const messages = await collect(
      query({
        prompt: "Go",
        options: {
          cwd: workspace(),
          env: { ...envFor(server), OPENAI_API_KEY: "test", OPENAI_BASE_URL: `${server.url}/v1` },
          model: "openai/gpt-5.6-terra",
          effort: "max",
          thinking: { type: "adaptive" },
        },
      }),
    );
    expect(server.requests[0]!.path).toBe("/v1/responses");
    expect((server.requests[0]!.body as { reasoning?: { effort?: string } }).reasoning?.effort).toBe("xhigh");
    // Without bubblewrap a note about the sandbox comes too: every note is looked at.
    const notes = messages.flatMap((m) =>
      m.type === "system" && m.subtype === "informational" ? [m.content] : [],
    );
    expect(notes.join("\n")).toContain("thinking is ignored");
  });

  test("CLI: --thinking adaptive --effort low on the Anthropic wire", async () => {
    const run = await runCli({
      steps: [reply().text("ok")],
      args: ["--thinking", "adaptive", "--effort", "low"],
    });
    expect(run.code).toBe(0);
    const body = run.server.requests[0]!.body as Body;
    expect(body.thinking).toEqual({ type: "adaptive" });
    expect(body.output_config).toEqual({ effort: "low" });
  });

  test("CLI: --max-thinking-tokens with --thinking disabled is a usage error", async () => {
    const run = await runCli({ args: ["--thinking", "disabled", "--max-thinking-tokens", "100"] });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--max-thinking-tokens cannot be combined with --thinking disabled");
  });
});

function userMessage(text: string): SDKUserMessage {
  return { type: "user", message: { role: "user", content: text }, parent_tool_use_id: null, session_id: "" };
}
