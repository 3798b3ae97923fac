/**
 * The reference CLI's model ids, as the programs written for it pass them by default: each runs its
 * matching model where that model's provider has a key (a `-thinking` id with thinking on, an
 * effort suffix as the effort), and the reference's own models, vendors cairn has no provider for,
 * and models without a key run the configured default, said in one stderr line. Never exit 2 for an
 * id the reference accepts.
 */
import { describe, expect, test } from "vitest";
import { parseArgs } from "../../src/cli/args.js";
import { routeReferenceModel } from "../../src/cli/reference-model.js";
import { REFERENCE_THINKING_BUDGET, referenceModel } from "../../src/providers/reference-models.js";
import { reply } from "../../src/testing/index.js";
import { cleanEnv, runCli, startServer, workspace } from "../conformance/pm/helpers.js";

/**
 * Ids of the reference CLI's `models` listings and of its consumers' defaults: a captured listing
 * (`cursor-agent --list-models`, early 2026) and ids of later listings seen in consumers' code.
 */
const REFERENCE_IDS = [
  "auto",
  "composer-1.5",
  "composer-1",
  "gpt-5.3-codex",
  "gpt-5.3-codex-low",
  "gpt-5.3-codex-high",
  "gpt-5.3-codex-xhigh",
  "gpt-5.3-codex-fast",
  "gpt-5.3-codex-low-fast",
  "gpt-5.3-codex-high-fast",
  "gpt-5.3-codex-xhigh-fast",
  "gpt-5.2",
  "gpt-5.2-codex",
  "gpt-5.2-codex-high",
  "gpt-5.2-codex-xhigh-fast",
  "gpt-5.1-codex-max",
  "gpt-5.1-codex-max-high",
  "opus-4.6-thinking",
  "gpt-5.2-high",
  "opus-4.6",
  "opus-4.5",
  "opus-4.5-thinking",
  "sonnet-4.6",
  "sonnet-4.6-thinking",
  "sonnet-4.5",
  "sonnet-4.5-thinking",
  "gpt-5.1-high",
  "gemini-3.1-pro",
  "gemini-3-pro",
  "gemini-3-flash",
  "gpt-5.1-codex-mini",
  "grok",
  // later listings
  "composer-2",
  "composer-2-fast",
  "composer-2.5",
  "composer-2.5-fast",
  "gpt-5",
  "gpt-5.4",
  "gpt-5.4-xhigh",
  "gpt-5.5-high",
  "gpt-5.5-medium",
  "gpt-5.6-sol-medium",
  "sonnet-4",
  "claude-4.6-sonnet-medium",
  "claude-4.6-sonnet-medium-thinking",
  "claude-4.6-opus-high-thinking",
  "claude-opus-4-7-high",
  "claude-opus-4-7-thinking-high",
  "claude-opus-4-8-thinking-medium",
  "claude-fable-5-thinking-medium",
  "claude-opus-4-8[context=1m,effort=high]",
  "grok-4.3",
  "kimi-k2.5",
];

const modelArgs = (model: string) => ["-p", "Say hi", "--model", model, "--output-format", "stream-json"];
type Body = { model: string; thinking?: unknown; output_config?: unknown; reasoning?: unknown };
const body = (request: { body: unknown }) => request.body as Body;

describe("the reference CLI's model ids run their matching model", () => {
  test("sonnet-4.6-thinking: claude-sonnet-4-6 with adaptive thinking; sonnet-4.5-thinking: a thinking budget", async () => {
    const adaptive = await runCli({ steps: [reply().text("hi")], rawArgs: modelArgs("sonnet-4.6-thinking") });
    expect(adaptive.code).toBe(0);
    expect(adaptive.stderr).toBe("");
    expect(body(adaptive.server.requests[0]!)).toMatchObject({
      model: "claude-sonnet-4-6",
      thinking: { type: "adaptive" },
    });
    expect(adaptive.events[0]).toMatchObject({ type: "system", subtype: "init", model: "Claude Sonnet 4.6" });

    const budget = await runCli({ steps: [reply().text("hi")], rawArgs: modelArgs("sonnet-4.5-thinking") });
    expect(budget.code).toBe(0);
    expect(body(budget.server.requests[0]!)).toMatchObject({
      model: "claude-sonnet-4-5",
      thinking: { type: "enabled", budget_tokens: REFERENCE_THINKING_BUDGET },
    });
    // Without -thinking, nothing is turned on.
    const plain = await runCli({ steps: [reply().text("hi")], rawArgs: modelArgs("opus-4.6") });
    expect(body(plain.server.requests[0]!).model).toBe("claude-opus-4-6");
    expect(body(plain.server.requests[0]!)).not.toHaveProperty("thinking");
  });

  test("claude-4.6-sonnet-medium-thinking: the effort of the id; --effort and --thinking say otherwise", async () => {
    const named = await runCli({
      steps: [reply().text("hi")],
      rawArgs: modelArgs("claude-4.6-sonnet-medium-thinking"),
    });
    expect(named.code).toBe(0);
    expect(body(named.server.requests[0]!)).toMatchObject({
      model: "claude-sonnet-4-6",
      thinking: { type: "adaptive" },
      output_config: { effort: "medium" },
    });
    const flags = await runCli({
      steps: [reply().text("hi")],
      rawArgs: [
        ...modelArgs("claude-4.6-sonnet-medium-thinking"),
        "--effort",
        "low",
        "--thinking",
        "disabled",
      ],
    });
    expect(body(flags.server.requests[0]!)).toMatchObject({
      thinking: { type: "disabled" },
      output_config: { effort: "low" },
    });
  });

  test("gpt-5.2-high runs gpt-5.2 on OpenAI at high effort; -fast is said not to apply", async () => {
    const server = await startServer([reply().text("From OpenAI.")]);
    const env = { OPENAI_API_KEY: "test", OPENAI_BASE_URL: `${server.url}/v1` };
    const high = await runCli({ steps: [reply().text("unused")], rawArgs: modelArgs("gpt-5.2-high"), env });
    expect(high.code).toBe(0);
    expect(high.stderr).toBe("");
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]!.path).toBe("/v1/responses");
    expect(body(server.requests[0]!)).toMatchObject({ model: "gpt-5.2", reasoning: { effort: "high" } });

    const fastServer = await startServer([reply().text("Fast.")]);
    const fast = await runCli({
      rawArgs: modelArgs("gpt-5.3-codex-fast"),
      env: { OPENAI_API_KEY: "test", OPENAI_BASE_URL: `${fastServer.url}/v1` },
    });
    expect(fast.code).toBe(0);
    expect(body(fastServer.requests[0]!).model).toBe("gpt-5.3-codex");
    expect(fast.stderr).toBe(
      "cairn: --model gpt-5.3-codex-fast runs openai/gpt-5.3-codex; not applied: -fast (the reference's faster serving has no counterpart here).\n",
    );
  });
});

describe("ids no configured provider runs: the default model, with one stderr line", () => {
  for (const [id, why] of [
    ["composer-2", "is the reference CLI's own model, which cairn cannot run"],
    ["gemini-3.1-pro", "is Google's model, which no cairn provider serves"],
    ["grok", "is xAI's model, which no cairn provider serves"],
    ["gpt-5.2", "is OpenAI's model and OpenAI is not configured (set OPENAI_API_KEY or pass --api-key)"],
  ] as const) {
    test(`${id} ${why}`, async () => {
      const run = await runCli({ steps: [reply().text("Default.")], rawArgs: modelArgs(id) });
      expect(run.code).toBe(0);
      expect(run.events.at(-1)).toMatchObject({ type: "result", result: "Default." });
      expect(body(run.server.requests[0]!).model).toBe("claude-sonnet-5-5");
      expect(run.stderr).toBe(
        `cairn: --model ${id} ${why}: running the default model anthropic/claude-sonnet-5-5 instead.\n`,
      );
    });
  }

  test("the default is the configured one (CAIRN_MODEL), named in the note", async () => {
    const run = await runCli({
      steps: [reply().text("Haiku.")],
      rawArgs: modelArgs("composer-2.5-fast"),
      env: { CAIRN_MODEL: "haiku" },
    });
    expect(run.code).toBe(0);
    expect(body(run.server.requests[0]!).model).toBe("claude-haiku-5-5");
    expect(run.stderr).toMatch(/running the default model claude-haiku-5-5 instead\.\n$/);
  });

  test("with nothing configured at all: one line, exit 2, the reference's own id named", async () => {
    const run = await runCli({ rawArgs: modelArgs("composer-2"), env: { ANTHROPIC_API_KEY: "" } });
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(
      /^cairn: --model composer-2 is the reference CLI's own model, which cairn cannot run, and no default model is configured\. No model configured\./,
    );
    expect(run.stderr.split("\n")).toHaveLength(2);
  });
});

describe("every id of the reference's listings is accepted", () => {
  test("none fails argument parsing, and each either has a matching model or runs the default", async () => {
    const cwd = workspace();
    const env = cleanEnv({ ANTHROPIC_API_KEY: "test" });
    for (const id of REFERENCE_IDS) {
      expect(() => parseArgs(["-p", "hi", "--model", id], "1"), id).not.toThrow();
      if (id === "auto") continue;
      const reference = referenceModel(id);
      expect(reference, id).toBeDefined();
      const routed = await routeReferenceModel({ model: id, longSession: {} }, cwd, env);
      if (reference!.provider === "anthropic") expect(routed.model, id).toBe(reference!.model);
      else {
        expect(routed.model, id).toBeUndefined();
        expect(routed.note, id).toMatch(/running the default model anthropic\/claude-sonnet-5-5 instead\.$/);
      }
    }
  });

  test("cairn's own names are not the reference's: aliases, catalog ids, typos keep their meaning", () => {
    for (const name of ["sonnet", "claude-opus-4-7", "claude-sonnet-5-5", "ollama-qwen3", "auto", "sonet"])
      expect(referenceModel(name), name).toBeUndefined();
    expect(() => parseArgs(["-p", "hi", "--model", "sonet"], "1")).toThrow(/Unknown model "sonet"/);
  });

  test("a mixed id: the parameter form keeps what it can apply and names the rest", () => {
    expect(referenceModel("claude-opus-4-8[context=1m,effort=high]")).toMatchObject({
      model: "anthropic/claude-opus-4-8",
      effort: "high",
      unapplied: [],
    });
    expect(referenceModel("claude-4.6-sonnet-medium[context=2m]")).toMatchObject({
      model: "anthropic/claude-sonnet-4-6",
      unapplied: ["[context=2m]"],
    });
  });
});
