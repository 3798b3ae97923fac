import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, test } from "vitest";
import { addCost } from "../../src/engine/messages.js";
import { findModel, MODEL_CATALOG } from "../../src/providers/catalog.js";
import { costUSD } from "../../src/providers/cost.js";
import { listModels, listModelsText } from "../../src/providers/models-text.js";

describe("catalog", () => {
  test("ids are unique; every row has sane limits and non-negative prices", () => {
    const ids = MODEL_CATALOG.map((entry) => entry.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const entry of MODEL_CATALOG) {
      expect(entry.contextWindow).toBeGreaterThan(entry.maxOutput);
      for (const prices of [entry.prices, entry.longContext?.prices]) {
        if (!prices) continue;
        for (const value of Object.values(prices)) expect(value).toBeGreaterThanOrEqual(0);
        expect(prices.output).toBeGreaterThan(prices.input);
        expect(prices.cacheRead).toBeLessThan(prices.input);
      }
    }
  });

  test("the current Anthropic models of the pinned SDK are all known", () => {
    const dts = readFileSync(
      join(dirname(require.resolve("@anthropic-ai/sdk")), "resources/messages/messages.d.ts"),
      "utf8",
    );
    const union = /export type Model = ([^;]+);/.exec(dts)![1]!;
    const ids = [...union.matchAll(/'([^']+)'/g)].map((m) => m[1]!);
    expect(ids.length).toBeGreaterThan(10);
    for (const id of ids) expect(findModel(id)?.provider, id).toBe("anthropic");
  });

  test("dated ids find their row (both date styles); near misses do not", () => {
    expect(findModel("claude-sonnet-4-5-20250929")?.id).toBe("claude-sonnet-4-5");
    expect(findModel("gpt-5-2025-08-07")?.id).toBe("gpt-5");
    expect(findModel("gpt-5-mini")?.id).toBe("gpt-5-mini");
    expect(findModel("gpt-5-turbo")).toBeUndefined();
    expect(findModel("claude-sonnet-5-5", "openai")).toBeUndefined();
  });
});

describe("costUSD", () => {
  const million = {
    input_tokens: 1e6,
    output_tokens: 1e6,
    cache_read_input_tokens: 1e6,
    cache_creation_input_tokens: 1e6,
  };

  test("prices each token kind (USD per million)", () => {
    // Sonnet 5.5: $2 in, $10 out, $0.10 cache read, $2.50 cache write.
    expect(costUSD("anthropic/claude-sonnet-5-5", million)).toBeCloseTo(14.6, 10);
    expect(costUSD("claude-sonnet-5-5", { input_tokens: 1000, output_tokens: 500 })).toBeCloseTo(
      0.002 + 0.005,
      10,
    );
    // GPT-4.1: $2 in, $8 out, $0.50 cached input; writes billed as input.
    expect(costUSD("openai/gpt-4.1-2025-04-14", million)).toBeCloseTo(2 + 8 + 0.5 + 2, 10);
    expect(costUSD("openai/gpt-5", { input_tokens: 0, output_tokens: 0 })).toBe(0);
  });

  test("unknown models, unpriced models and other servers are unknown, never 0", () => {
    expect(costUSD("openai/some-future-model", million)).toBeUndefined();
    expect(costUSD("claude-mythos-preview", million)).toBeUndefined();
    expect(costUSD("ollama/gpt-5", million)).toBeUndefined();
    expect(costUSD("openai-compatible/claude-sonnet-5-5", million)).toBeUndefined();
    expect(costUSD("anthropic/gpt-5", million)).toBeUndefined();
    expect(costUSD("replay:demo.json", million)).toBeUndefined();
    expect(costUSD("local:model.gguf", million)).toBeUndefined();
  });

  test("long-context tiers apply per request by prompt size", () => {
    // Haiku 5.5: $0.10/$0.50 up to 100K prompt tokens, $0.50/$2.50 above.
    expect(costUSD("claude-haiku-5-5", { input_tokens: 100_000, output_tokens: 0 })).toBeCloseTo(0.01, 10);
    expect(
      costUSD("claude-haiku-5-5", {
        input_tokens: 50_000,
        cache_read_input_tokens: 60_000,
        output_tokens: 1000,
      }),
    ).toBeCloseTo((50_000 * 0.5 + 60_000 * 0.05 + 1000 * 2.5) / 1e6, 10);
  });

  test("addCost: unknown is contagious", () => {
    expect(addCost(addCost(0, 1.5), 2)).toBe(3.5);
    expect(addCost(addCost(0, 1.5), undefined)).toBeUndefined();
    expect(addCost(undefined, 2)).toBeUndefined();
  });
});

describe("listModelsText", () => {
  test("lists every model with prices and each provider's state, never a key", () => {
    const text = listModelsText({
      ANTHROPIC_API_KEY: "sk-ant-secret-value",
      OLLAMA_BASE_URL: "http://10.0.0.5:11434/v1",
    });
    for (const entry of MODEL_CATALOG) expect(text).toContain(`${entry.provider}/${entry.id}`);
    expect(text).not.toContain("sk-ant-secret-value");
    expect(text).toMatch(
      /anthropic\s+anthropic-messages\s+configured\s+https:\/\/api\.anthropic\.com\s+ANTHROPIC_API_KEY/,
    );
    expect(text).toMatch(/openai\s+openai-responses\s+not configured/);
    expect(text).toContain("http://10.0.0.5:11434/v1 (OLLAMA_BASE_URL)");
    expect(text).toMatch(/lmstudio\s+openai-chat\s+configured\s+http:\/\/127\.0\.0\.1:1234\/v1/);
    expect(text).toMatch(
      /openai-compatible\s+openai-chat\s+not configured\s+-\s+not needed\s+pass --base-url/,
    );
    expect(text).toContain("$2.00 / $10.00 / $0.10 / $2.50");
    expect(text).toContain("price unknown");
    expect(text).toContain("Default model: anthropic/claude-sonnet-5-5");
  });

  test("lists the aliases and what they stand for; --json adds them as `aliases`", () => {
    const text = listModelsText({ CAIRN_MODEL: "haiku" });
    expect(text).toMatch(/^sonnet\s+anthropic\/claude-sonnet-5-5$/m);
    expect(text).toMatch(/^auto\s+claude-haiku-5-5$/m);
    expect(text).toContain("Default model: claude-haiku-5-5 (CAIRN_MODEL)");
    const json = listModels({});
    expect(json.aliases).toEqual(
      expect.arrayContaining([
        { alias: "opus", model: "anthropic/claude-opus-5-5" },
        { alias: "default", model: undefined },
      ]),
    );
    expect(Object.keys(json)).toEqual(["models", "aliases", "providers", "defaultModel", "pricesChecked"]);
  });

  test("with nothing configured it says how to pick a model", () => {
    expect(listModelsText({})).toContain("Default model: none");
    expect(listModels({ CAIRN_MODEL: "ollama/qwen3" }).defaultModel).toBe("ollama/qwen3");
  });
});

describe("start-up cost", () => {
  /** Static (non-type) imports reachable from a module, following relative imports. */
  function staticImports(file: string, seen = new Set<string>()): Set<string> {
    if (seen.has(file)) return seen;
    seen.add(file);
    const source = readFileSync(file, "utf8");
    for (const match of source.matchAll(/^import\s+(?!type\b)[^;]*?from\s+"([^"]+)";/gms)) {
      const spec = match[1]!;
      if (spec.startsWith(".")) staticImports(join(dirname(file), spec.replace(/\.js$/, ".ts")), seen);
      else seen.add(spec);
    }
    return seen;
  }

  test("resolving a model, pricing and `cairn models` load no client library", () => {
    for (const entry of ["registry.ts", "model-names.ts", "cost.ts", "models-text.ts"]) {
      const reached = [...staticImports(join(__dirname, "../../src/providers", entry))];
      expect(
        reached.filter((spec) => spec === "openai" || spec.startsWith("@anthropic-ai/")),
        entry,
      ).toEqual([]);
    }
  });
});

describe("docs/providers.md", () => {
  test("documents every compatible server's row of the quirks table", async () => {
    const { COMPAT_SERVERS } = await import("../../src/providers/openai-compat.js");
    const doc = readFileSync(join(__dirname, "../../docs/providers.md"), "utf8");
    for (const quirks of Object.values(COMPAT_SERVERS)) {
      const row = doc.split("\n").find((line) => line.startsWith(`| \`${quirks.name}\``));
      expect(row, quirks.name).toBeDefined();
      for (const part of [
        quirks.baseURLEnv,
        quirks.apiKeyEnv,
        quirks.maxTokensField,
        ...quirks.reasoningFields,
      ]) {
        expect(row, `${quirks.name}: ${part}`).toContain(part);
      }
      if (quirks.defaultBaseURL) expect(row).toContain(quirks.defaultBaseURL);
      expect(row).toContain(quirks.requiresKey ? "| yes" : "| no");
    }
  });
});
