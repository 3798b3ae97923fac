import { describe, expect, test } from "vitest";
import { KNOWN_PROVIDERS, resolveModel } from "../../src/providers/registry.js";
import { ConfigError } from "../../src/providers/types.js";

const env = (vars: Record<string, string> = {}): NodeJS.ProcessEnv => vars;

async function configError(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConfigError);
  return (error as Error).message;
}

describe("resolveModel", () => {
  test("provider prefixes map to wires", async () => {
    const cases: [string, Record<string, string>, string, string][] = [
      ["anthropic/claude-opus-5-5", { ANTHROPIC_API_KEY: "k" }, "anthropic-messages", "claude-opus-5-5"],
      ["claude-haiku-5-5", { ANTHROPIC_API_KEY: "k" }, "anthropic-messages", "claude-haiku-5-5"],
      ["openai/gpt-5.6-sol", { OPENAI_API_KEY: "k" }, "openai-responses", "gpt-5.6-sol"],
      ["gpt-4.1-mini", { OPENAI_API_KEY: "k" }, "openai-responses", "gpt-4.1-mini"],
      ["ollama/qwen3:8b", {}, "openai-chat", "qwen3:8b"],
      ["lmstudio/openai/gpt-oss-20b", {}, "openai-chat", "openai/gpt-oss-20b"],
      ["vllm/Qwen/Qwen3-8B", {}, "openai-chat", "Qwen/Qwen3-8B"],
      ["llamacpp/any", {}, "openai-chat", "any"],
      ["openai-compatible/m", { OPENAI_COMPATIBLE_BASE_URL: "http://127.0.0.1:9/v1" }, "openai-chat", "m"],
    ];
    for (const [model, vars, wire, providerModel] of cases) {
      const resolved = await resolveModel({ model, env: env(vars) });
      expect([model, resolved.provider.wire, resolved.providerModel, resolved.model]).toEqual([
        model,
        wire,
        providerModel,
        model,
      ]);
    }
  });

  test("an alias is resolved, reported and displayed as the model it stands for", async () => {
    const resolved = await resolveModel({ model: "opus", env: env({ ANTHROPIC_API_KEY: "k" }) });
    expect([resolved.model, resolved.providerModel, resolved.provider.displayName]).toEqual([
      "claude-opus-5-5",
      "claude-opus-5-5",
      "Claude Opus 5.5",
    ]);
    const configured = await resolveModel({ model: "auto", defaultModel: "ollama/qwen3", env: env() });
    expect([configured.model, configured.provider.wire]).toEqual(["ollama/qwen3", "openai-chat"]);
  });

  test("display names and key sources", async () => {
    const openai = await resolveModel({ model: "openai/gpt-5.6-terra", env: env({ OPENAI_API_KEY: "k" }) });
    expect(openai.provider.displayName).toBe("GPT-5.6 Terra");
    expect(openai.provider.apiKeySource).toBe("env");
    const flagged = await resolveModel({ model: "openai/gpt-new", apiKey: "k", env: env() });
    expect(flagged.provider.displayName).toBe("gpt-new");
    expect(flagged.provider.apiKeySource).toBe("flag");
    const local = await resolveModel({ model: "ollama/qwen3", env: env() });
    expect(local.provider.displayName).toBe("qwen3 (Ollama)");
    expect(local.provider.apiKeySource).toBe("none");
    const keyed = await resolveModel({ model: "vllm/m", env: env({ VLLM_API_KEY: "k" }) });
    expect(keyed.provider.apiKeySource).toBe("env");
  });

  test("defaults: CAIRN_MODEL, else Anthropic's key, else OpenAI's key", async () => {
    expect((await resolveModel({ env: env({ CAIRN_MODEL: "ollama/llama3.2" }) })).model).toBe(
      "ollama/llama3.2",
    );
    expect((await resolveModel({ env: env({ ANTHROPIC_API_KEY: "a", OPENAI_API_KEY: "o" }) })).model).toBe(
      "anthropic/claude-sonnet-5-5",
    );
    expect((await resolveModel({ env: env({ OPENAI_API_KEY: "o" }) })).model).toBe("openai/gpt-5.6-terra");
  });

  test("no model and no key: the message lists every way to configure one", async () => {
    const message = await configError(resolveModel({ env: env() }));
    for (const part of [
      "ANTHROPIC_API_KEY",
      "OPENAI_API_KEY",
      "CAIRN_MODEL",
      "--model anthropic/",
      "--model openai/",
      "ollama/<model>",
      "openai-compatible/<model> --base-url",
      "local:",
      "replay:",
      "--api-key",
    ]) {
      expect(message).toContain(part);
    }
  });

  test("a missing key names the env var and --api-key", async () => {
    expect(await configError(resolveModel({ model: "openai/gpt-5", env: env() }))).toBe(
      "Model openai/gpt-5 needs an OpenAI API key: set OPENAI_API_KEY or pass --api-key.",
    );
    expect(
      await configError(
        resolveModel({ model: "anthropic/claude-opus-5-5", env: env({ OPENAI_API_KEY: "k" }) }),
      ),
    ).toContain("set ANTHROPIC_API_KEY or pass --api-key");
  });

  test("openai-compatible without a base URL names --base-url and the env var; a bad URL is refused", async () => {
    const message = await configError(resolveModel({ model: "openai-compatible/m", env: env() }));
    expect(message).toContain("--base-url");
    expect(message).toContain("OPENAI_COMPATIBLE_BASE_URL");
    expect(
      await configError(resolveModel({ model: "ollama/m", baseURL: "localhost:11434", env: env() })),
    ).toContain("must start with http");
  });

  test("unknown provider lists the known providers", async () => {
    const message = await configError(resolveModel({ model: "nope/model", env: env() }));
    expect(message).toContain('Unknown provider "nope"');
    for (const name of KNOWN_PROVIDERS) expect(message).toContain(name);
    expect(KNOWN_PROVIDERS).toEqual([
      "anthropic",
      "openai",
      "llamacpp",
      "lmstudio",
      "ollama",
      "openai-compatible",
      "vllm",
      "local",
      "replay",
    ]);
  });

  test("a bare unknown id asks for a prefix; an empty id after the prefix is refused", async () => {
    expect(await configError(resolveModel({ model: "mystery-model", env: env() }))).toContain(
      "Name other models with their provider, as provider/model",
    );
    expect(await configError(resolveModel({ model: "ollama/", env: env() }))).toContain("names no model");
  });

  test("local: names the missing model file and what the form needs", async () => {
    expect(await configError(resolveModel({ model: "local:models/tiny.gguf", env: env() }))).toMatch(
      /models\/tiny\.gguf/,
    );
    expect(await configError(resolveModel({ model: "local:", env: env() }))).toContain(
      "local:path/to/model.gguf",
    );
    expect(await configError(resolveModel({ model: "local/x.gguf", env: env() }))).toContain("local:<path>");
  });

  test("--base-url overrides the environment; the default local address otherwise", async () => {
    // Observed through the request the provider makes: point it at a port nobody listens on.
    const { provider } = await resolveModel({
      model: "lmstudio/m",
      baseURL: "http://127.0.0.1:9/v1",
      env: env({ LMSTUDIO_BASE_URL: "http://127.0.0.1:8/v1" }),
    });
    const error = await provider
      .stream(
        { model: "m", system: "", messages: [{ role: "user", content: "x" }], tools: [], maxTokens: 1 },
        new AbortController().signal,
      )
      .catch((e: unknown) => e);
    expect((error as Error).message).toContain("http://127.0.0.1:9/v1");
  });
});
