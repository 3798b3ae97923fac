import { describe, expect, test } from "vitest";
import { MODEL_CATALOG } from "../../src/providers/catalog.js";
import { closeMatches, editDistance } from "../../src/providers/close-matches.js";
import { checkModelName, familyAliases, resolveModelName } from "../../src/providers/model-names.js";
import { ConfigError } from "../../src/providers/types.js";

const resolved = (model: string | undefined, env: Record<string, string> = {}, defaultModel?: string) => {
  const { name, provider, id } = resolveModelName(model, {
    env,
    ...(defaultModel !== undefined ? { defaultModel } : {}),
  });
  return [name, provider, id];
};

const refusal = (model: string, env: Record<string, string> = {}): string => {
  try {
    resolveModelName(model, { env });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).not.toContain("\n");
    return (error as Error).message;
  }
  throw new Error(`${model} was accepted`);
};

describe("aliases", () => {
  test("one per Claude family, each the family's highest version in the catalog", () => {
    const version = (id: string) => {
      const [, major, minor] = /-(\d+)(?:-(\d+))?$/.exec(id)!;
      return Number(major) * 100 + Number(minor ?? 0);
    };
    for (const [alias, id] of Object.entries(familyAliases())) {
      const family = MODEL_CATALOG.filter((row) => new RegExp(`^claude-${alias}-\\d+(-\\d+)?$`).test(row.id));
      expect(family.length, alias).toBeGreaterThan(0);
      expect(Math.max(...family.map((row) => version(row.id))), alias).toBe(version(id));
    }
    expect(Object.keys(familyAliases())).toEqual(
      expect.arrayContaining(["fable", "haiku", "opus", "sonnet"]),
    );
  });

  test("bare aliases become the bare id; with the anthropic/ prefix the prefixed id", () => {
    expect(resolved("sonnet")).toEqual(["claude-sonnet-5-5", "anthropic", "claude-sonnet-5-5"]);
    expect(resolved("opus")).toEqual(["claude-opus-5-5", "anthropic", "claude-opus-5-5"]);
    expect(resolved("haiku")).toEqual(["claude-haiku-5-5", "anthropic", "claude-haiku-5-5"]);
    expect(resolved("anthropic/haiku")).toEqual([
      "anthropic/claude-haiku-5-5",
      "anthropic",
      "claude-haiku-5-5",
    ]);
    // Servers with open model lists get the name as it is: it may be theirs.
    expect(resolved("ollama/sonnet")).toEqual(["ollama/sonnet", "ollama", "sonnet"]);
  });
});

describe("default and auto", () => {
  test("the defaultModel setting, then CAIRN_MODEL, then the keys; aliases in them resolve too", () => {
    const keys = { ANTHROPIC_API_KEY: "a", OPENAI_API_KEY: "o" };
    for (const name of [undefined, "default", "auto"]) {
      expect(resolved(name, { ...keys, CAIRN_MODEL: "ollama/qwen3" }, "opus")[0]).toBe("claude-opus-5-5");
      expect(resolved(name, { ...keys, CAIRN_MODEL: "haiku" })[0]).toBe("claude-haiku-5-5");
      expect(resolved(name, keys)[0]).toBe("anthropic/claude-sonnet-5-5");
      expect(resolved(name, { OPENAI_API_KEY: "o" })[0]).toBe("openai/gpt-5.6-terra");
    }
  });

  test("a source set to default or auto expresses no choice", () => {
    expect(resolved("auto", { CAIRN_MODEL: "auto", ANTHROPIC_API_KEY: "a" }, "default")[0]).toBe(
      "anthropic/claude-sonnet-5-5",
    );
  });

  test("an unknown configured default names where it came from", () => {
    expect(() =>
      resolveModelName("default", {
        defaultModel: "sonet",
        defaultModelSource: 'config.json "model"',
        env: process.env,
      }),
    ).toThrow(/^config\.json "model": Unknown model "sonet".*Did you mean sonnet/);
  });

  test("checkModelName passes default and auto (resolved later) and refuses unknown names", () => {
    expect(() => checkModelName("auto")).not.toThrow();
    expect(() => checkModelName("default")).not.toThrow();
    expect(() => checkModelName("sonet")).toThrow(ConfigError);
  });
});

describe("names as given", () => {
  test("catalog ids (dated too) and shaped ids find their provider; open prefixes pass anything", () => {
    expect(resolved("gpt-4.1-mini")).toEqual(["gpt-4.1-mini", "openai", "gpt-4.1-mini"]);
    expect(resolved("claude-sonnet-4-5-20250929")[1]).toBe("anthropic");
    expect(resolved("claude-next-9")).toEqual(["claude-next-9", "anthropic", "claude-next-9"]);
    expect(resolved("gpt-9-turbo")[1]).toBe("openai");
    expect(resolved("o5-mini")[1]).toBe("openai");
    expect(resolved("anthropic/anything-new")[2]).toBe("anything-new");
    expect(resolved("openai/brand-new")[2]).toBe("brand-new");
    expect(resolved("vllm/Qwen/Qwen3-8B")).toEqual(["vllm/Qwen/Qwen3-8B", "vllm", "Qwen/Qwen3-8B"]);
    expect(resolved("local:m.gguf")).toEqual(["local:m.gguf", "local", "m.gguf"]);
    expect(resolved("replay:s.json")).toEqual(["replay:s.json", "replay", "s.json"]);
  });

  test("an unknown bare name is refused with its close matches", () => {
    expect(refusal("sonet")).toMatch(/^Unknown model "sonet": .* Did you mean sonnet\?/);
    expect(refusal("gpt5")).toContain("Did you mean gpt-5?");
    expect(refusal("opus-5")).toMatch(/Did you mean .*claude-opus-5\b/);
    expect(refusal("Haiku")).toContain("Did you mean haiku");
    const none = refusal("qwen3:8b");
    expect(none).not.toContain("Did you mean");
    expect(none).toContain("provider/model");
    expect(none).toContain("cairn models");
  });

  test("an empty name is refused as empty; object keys are not aliases", () => {
    expect(refusal(" ")).toBe("The model name is empty (see `cairn models`).");
    expect(refusal("constructor")).toMatch(/^Unknown model "constructor"/);
    expect(resolved("anthropic/toString")).toEqual(["anthropic/toString", "anthropic", "toString"]);
  });

  test("a mistyped provider prefix suggests the known provider", () => {
    expect(refusal("olama/qwen3")).toMatch(/^Unknown provider "olama" .*Did you mean ollama\/qwen3\?/);
  });
});

describe("closeMatches", () => {
  test("edit distance, then containment; closest first; at most the limit", () => {
    expect(editDistance("kitten", "sitting")).toBe(3);
    expect(editDistance("", "abc")).toBe(3);
    expect(closeMatches("sonet", ["sonnet", "haiku", "opus"])).toEqual(["sonnet"]);
    expect(closeMatches("opus", ["claude-opus-5", "opus", "opal", "claude-opus-5-5"])).toEqual([
      "opus",
      "opal",
      "claude-opus-5",
      "claude-opus-5-5",
    ]);
    expect(closeMatches("zzzzzz", ["sonnet", "haiku"])).toEqual([]);
    expect(closeMatches("a", ["b", "c", "d"], 2)).toEqual(["b", "c"]);
  });
});
