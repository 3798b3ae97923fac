import { basename, resolve } from "node:path";
import { displayNameFor, findModel, mediaInputFor } from "./catalog.js";
import { type ModelNameSettings, nonEmpty, resolveModelName } from "./model-names.js";
import { COMPAT_SERVERS } from "./openai-compat.js";
import { ConfigError, type ModelProvider } from "./types.js";

export { KNOWN_PROVIDERS, NO_MODEL_MESSAGE } from "./model-names.js";

export type ModelSettings = ModelNameSettings & {
  /**
   * `provider/model` (`anthropic/claude-sonnet-5-5`, `openai/gpt-5.6-terra`, `ollama/qwen3`, …),
   * a bare catalog id (`claude-…`, `gpt-…`), an alias (`sonnet`, `opus`, `haiku`, …),
   * `default` / `auto`, `local:<model.gguf>` or `replay:<scenario.json>` (src/providers/model-names.ts).
   * Default: `defaultModel`, else CAIRN_MODEL, else the default model of the first provider with a key.
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
  /** Anthropic beta features (the `anthropic-beta` header); other providers do not take them. */
  betas?: readonly string[];
  /** Where relative `replay:` / `local:` paths resolve (default: process.cwd()). */
  baseDir?: string;
  /**
   * Extra HTTP headers sent with every model request (`-H "Name: Value"`), for the providers that
   * make HTTP requests; `local:` and `replay:` make none.
   */
  headers?: Readonly<Record<string, string>>;
};

export type ResolvedModel = {
  provider: ModelProvider;
  /**
   * The model as named by the user, an alias or `default` replaced by what it stands for
   * (`haiku` → `claude-haiku-5-5`), or the default that was picked. Price it with `costUSD(model, …)`.
   */
  model: string;
  /** The id sent to the provider. */
  providerModel: string;
};

/**
 * Turns a model name into a provider. Provider modules (and their client libraries) are imported
 * only for the provider that is used, and the client itself only on the first model call.
 */
export async function resolveModel(settings: ModelSettings): Promise<ResolvedModel> {
  const { env } = settings;
  const { name, provider, id } = resolveModelName(settings.model, { ...settings, env });
  switch (provider) {
    case "replay":
      return resolveReplay(name, id, settings);
    case "local":
      return resolveLocal(name, id, settings);
    case "anthropic":
      return resolveAnthropic(name, id, settings, env);
    case "openai":
      return resolveOpenAI(name, id, settings, env);
    default:
      return resolveCompat(name, provider, id, settings, env);
  }
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
      ...(settings.headers ? { headers: settings.headers } : {}),
      mediaInput: mediaInputFor(id, "anthropic"),
      ...(settings.betas?.length ? { betas: settings.betas } : {}),
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
      ...(settings.headers ? { headers: settings.headers } : {}),
      mediaInput: mediaInputFor(id, "openai"),
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
      ...(settings.headers ? { headers: settings.headers } : {}),
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

/** `local:<model.gguf>`: in-process inference through node-llama-cpp (src/providers/llama.ts). */
async function resolveLocal(name: string, file: string, settings: ModelSettings): Promise<ResolvedModel> {
  const path = resolve(settings.baseDir ?? process.cwd(), file);
  const { createLlamaProvider, llamaOptionsFromEnv } = await import("./llama.js");
  const provider = await createLlamaProvider({
    modelPath: path,
    ...llamaOptionsFromEnv(settings.env),
  });
  return { model: name, providerModel: basename(path), provider };
}

async function resolveReplay(name: string, file: string, settings: ModelSettings): Promise<ResolvedModel> {
  const path = resolve(settings.baseDir ?? process.cwd(), file);
  const [{ loadScenarioFile }, { ReplayProvider }] = await Promise.all([
    import("./scenario-file.js"),
    import("./replay.js"),
  ]);
  return { model: name, providerModel: "replay", provider: new ReplayProvider(loadScenarioFile(path), path) };
}
