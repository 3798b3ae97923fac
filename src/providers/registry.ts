import { basename, resolve } from "node:path";
import { DEFAULT_ANTHROPIC_MODEL, DEFAULT_OPENAI_MODEL, displayNameFor, findModel } from "./catalog.js";
import { COMPAT_SERVER_NAMES, COMPAT_SERVERS, isCompatServer } from "./openai-compat.js";
import { ConfigError, type ModelProvider } from "./types.js";

export type ModelSettings = {
  /**
   * `provider/model` (`anthropic/claude-sonnet-5-5`, `openai/gpt-5.6-terra`, `ollama/qwen3`, …),
   * a bare catalog id (`claude-…`, `gpt-…`), `local:<model.gguf>` or `replay:<scenario.json>`.
   * Default: CAIRN_MODEL, else the default model of the first provider with a key.
   */
  model?: string;
  /** Overrides the provider's key from the environment (`--api-key`). */
  apiKey?: string;
  /** Overrides the provider's base URL from the environment (`--base-url`). */
  baseURL?: string;
  /**
   * Anthropic prompt caching (cache breakpoints on the system prompt and the conversation so far).
   * cairn turns it on for every run unless told otherwise (AgentRunOptions.promptCaching: false).
   */
  promptCaching?: boolean;
  /** Where relative `replay:` / `local:` paths resolve (default: process.cwd()). */
  baseDir?: string;
  env?: NodeJS.ProcessEnv;
};

export type ResolvedModel = {
  provider: ModelProvider;
  /** The model as named by the user (or the default that was picked). Price it with `costUSD(model, …)`. */
  model: string;
  /** The id sent to the provider. */
  providerModel: string;
};

/** Every provider prefix, in the order listed to users. */
export const KNOWN_PROVIDERS = [
  "anthropic",
  "openai",
  ...COMPAT_SERVER_NAMES.toSorted(),
  "local",
  "replay",
] as const;

const EXAMPLES = [
  `anthropic/${DEFAULT_ANTHROPIC_MODEL}`,
  `openai/${DEFAULT_OPENAI_MODEL}`,
  "ollama/qwen3",
  "openai-compatible/<model> (with --base-url)",
  "local:path/to/model.gguf",
  "replay:path/to/scenario.json",
];

/**
 * Turns a model name into a provider. Provider modules (and their client libraries) are imported
 * only for the provider that is used, and the client itself only on the first model call.
 */
export async function resolveModel(settings: ModelSettings): Promise<ResolvedModel> {
  const env = settings.env ?? process.env;
  const name = settings.model ?? nonEmpty(env.CAIRN_MODEL) ?? defaultModelFromKeys(settings, env);
  if (name.startsWith("replay:")) return resolveReplay(name, settings);
  if (name.startsWith("local:")) return resolveLocal(name, settings);

  const slash = name.indexOf("/");
  const [prefix, id] =
    slash === -1 ? [inferPrefix(name), name] : [name.slice(0, slash), name.slice(slash + 1)];
  if (!id) throw new ConfigError(`Model "${name}" names no model after the provider prefix "${prefix}/".`);

  if (prefix === "anthropic") return resolveAnthropic(name, id, settings, env);
  if (prefix === "openai") return resolveOpenAI(name, id, settings, env);
  if (isCompatServer(prefix)) return resolveCompat(name, prefix, id, settings, env);
  if (prefix === "local" || prefix === "replay") {
    throw new ConfigError(`Model "${name}": write ${prefix}:<path>, not ${prefix}/<path>.`);
  }
  throw new ConfigError(
    `Unknown provider "${prefix}" in model "${name}". Known providers: ${KNOWN_PROVIDERS.join(", ")}. Examples: ${EXAMPLES.join(", ")}.`,
  );
}

/** The provider's key from `--api-key` (source "flag") or its env variable ("env"); else a ConfigError. */
function requireKey(
  name: string,
  settings: ModelSettings,
  env: NodeJS.ProcessEnv,
  vendor: string,
  variable: string,
): { apiKey: string; apiKeySource: "flag" | "env" } {
  const fromFlag = nonEmpty(settings.apiKey);
  const apiKey = fromFlag ?? nonEmpty(env[variable]);
  if (!apiKey) {
    throw new ConfigError(`Model ${name} needs an ${vendor} API key: set ${variable} or pass --api-key.`);
  }
  return { apiKey, apiKeySource: fromFlag ? "flag" : "env" };
}

async function resolveAnthropic(
  name: string,
  id: string,
  settings: ModelSettings,
  env: NodeJS.ProcessEnv,
): Promise<ResolvedModel> {
  const { apiKey, apiKeySource } = requireKey(name, settings, env, "Anthropic", "ANTHROPIC_API_KEY");
  const { AnthropicProvider } = await import("./anthropic.js");
  const baseURL = nonEmpty(settings.baseURL) ?? nonEmpty(env.ANTHROPIC_BASE_URL);
  return {
    model: name,
    providerModel: id,
    provider: new AnthropicProvider({
      model: id,
      displayName: displayNameFor(id),
      apiKey,
      apiKeySource,
      ...(baseURL ? { baseURL } : {}),
      ...(settings.promptCaching ? { promptCaching: true } : {}),
    }),
  };
}

async function resolveOpenAI(
  name: string,
  id: string,
  settings: ModelSettings,
  env: NodeJS.ProcessEnv,
): Promise<ResolvedModel> {
  const { apiKey, apiKeySource } = requireKey(name, settings, env, "OpenAI", "OPENAI_API_KEY");
  const { OpenAIResponsesProvider, DEFAULT_OPENAI_BASE_URL } = await import("./openai-responses.js");
  const organization = nonEmpty(env.OPENAI_ORG_ID);
  const project = nonEmpty(env.OPENAI_PROJECT_ID);
  const entry = findModel(id, "openai");
  return {
    model: name,
    providerModel: id,
    provider: new OpenAIResponsesProvider({
      displayName: entry?.displayName ?? id,
      apiKey,
      apiKeySource,
      baseURL: nonEmpty(settings.baseURL) ?? nonEmpty(env.OPENAI_BASE_URL) ?? DEFAULT_OPENAI_BASE_URL,
      ...(organization ? { organization } : {}),
      ...(project ? { project } : {}),
      reasoningSummaries: entry?.reasoning ?? false,
    }),
  };
}

async function resolveCompat(
  name: string,
  server: keyof typeof COMPAT_SERVERS,
  id: string,
  settings: ModelSettings,
  env: NodeJS.ProcessEnv,
): Promise<ResolvedModel> {
  const quirks = COMPAT_SERVERS[server];
  const baseURL = nonEmpty(settings.baseURL) ?? nonEmpty(env[quirks.baseURLEnv]) ?? quirks.defaultBaseURL;
  if (!baseURL) {
    throw new ConfigError(
      `Model ${name} needs the server's base URL: pass --base-url (e.g. --base-url http://127.0.0.1:8000/v1) or set ${quirks.baseURLEnv}.`,
    );
  }
  checkURL(baseURL, name);
  const fromFlag = nonEmpty(settings.apiKey);
  const apiKey = fromFlag ?? nonEmpty(env[quirks.apiKeyEnv]);
  if (quirks.requiresKey && !apiKey) {
    throw new ConfigError(`Model ${name} needs an API key: set ${quirks.apiKeyEnv} or pass --api-key.`);
  }
  const { OpenAIChatProvider } = await import("./openai-chat.js");
  return {
    model: name,
    providerModel: id,
    provider: new OpenAIChatProvider({
      quirks,
      displayName: `${id} (${quirks.label})`,
      baseURL,
      ...(apiKey ? { apiKey } : {}),
      apiKeySource: fromFlag ? "flag" : apiKey ? "env" : "none",
    }),
  };
}

function checkURL(url: string, name: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError(
      `Model ${name}: base URL "${url}" is not a URL (expected e.g. http://127.0.0.1:11434/v1).`,
    );
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new ConfigError(`Model ${name}: base URL "${url}" must start with http:// or https://.`);
  }
}

/**
 * `local:<model.gguf>` is reserved for in-process inference through node-llama-cpp (the llama
 * provider, src/providers/llama.ts, replaces this function's body when it lands).
 */
/** `local:<model.gguf>`: in-process inference through node-llama-cpp (src/providers/llama.ts). */
async function resolveLocal(name: string, settings: ModelSettings): Promise<ResolvedModel> {
  const file = name.slice("local:".length);
  if (!file) throw new ConfigError('Model "local:" needs a model file: local:path/to/model.gguf');
  const path = resolve(settings.baseDir ?? process.cwd(), file);
  const { createLlamaProvider, llamaOptionsFromEnv } = await import("./llama.js");
  const provider = await createLlamaProvider({
    modelPath: path,
    ...llamaOptionsFromEnv(settings.env ?? process.env),
  });
  return { model: name, providerModel: basename(path), provider };
}

function inferPrefix(name: string): string {
  if (name.startsWith("claude-")) return "anthropic";
  const entry = findModel(name);
  if (entry) return entry.provider;
  throw new ConfigError(
    `Model "${name}" has no provider prefix. Use provider/model — known providers: ${KNOWN_PROVIDERS.join(", ")}. Examples: ${EXAMPLES.join(", ")}.`,
  );
}

/** The error a user sees with no model and no key: every way to configure one. */
export const NO_MODEL_MESSAGE = [
  "No model configured. Any one of these works:",
  `  • Anthropic: set ANTHROPIC_API_KEY (default model anthropic/${DEFAULT_ANTHROPIC_MODEL}), or --model anthropic/<model> --api-key <key>`,
  `  • OpenAI: set OPENAI_API_KEY (default model openai/${DEFAULT_OPENAI_MODEL}), or --model openai/<model> --api-key <key>`,
  "  • A local server: --model ollama/<model>, lmstudio/<model>, vllm/<model> or llamacpp/<model> (no key needed)",
  "  • Any OpenAI-compatible server: --model openai-compatible/<model> --base-url <url>",
  "  • A local GGUF file: --model local:path/to/model.gguf",
  "  • The offline replay: --model replay:examples/demo/scenario.json",
  "  • Or set CAIRN_MODEL to any of these model names. `cairn models` lists known models and providers.",
].join("\n");

function defaultModelFromKeys(settings: ModelSettings, env: NodeJS.ProcessEnv): string {
  if (nonEmpty(settings.apiKey) || nonEmpty(env.ANTHROPIC_API_KEY))
    return `anthropic/${DEFAULT_ANTHROPIC_MODEL}`;
  if (nonEmpty(env.OPENAI_API_KEY)) return `openai/${DEFAULT_OPENAI_MODEL}`;
  throw new ConfigError(NO_MODEL_MESSAGE);
}

function nonEmpty(value: string | undefined): string | undefined {
  return value !== undefined && value.trim() !== "" ? value : undefined;
}

async function resolveReplay(name: string, settings: ModelSettings): Promise<ResolvedModel> {
  const file = name.slice("replay:".length);
  if (!file) throw new ConfigError('Model "replay:" needs a scenario file: replay:path/to/scenario.json');
  const path = resolve(settings.baseDir ?? process.cwd(), file);
  const [{ loadScenarioFile }, { ReplayProvider }] = await Promise.all([
    import("../testing/scenario-file.js"),
    import("./replay.js"),
  ]);
  return { model: name, providerModel: "replay", provider: new ReplayProvider(loadScenarioFile(path), path) };
}
