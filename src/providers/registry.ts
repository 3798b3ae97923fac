import { resolve } from "node:path";
import { DEFAULT_ANTHROPIC_MODEL, displayNameFor } from "./catalog.js";
import { ConfigError, type ModelProvider } from "./types.js";

export type ModelSettings = {
  /** `provider/model`, a bare `claude-…` id, or `replay:<scenario.json>`; default from env. */
  model?: string;
  /** Overrides the provider's key from the environment (`--api-key`). */
  apiKey?: string;
  /** Overrides the provider's base URL from the environment. */
  baseURL?: string;
  /** Where relative `replay:` paths resolve (default: process.cwd()). */
  baseDir?: string;
  env?: NodeJS.ProcessEnv;
};

export type ResolvedModel = {
  provider: ModelProvider;
  /** The model as named by the user (or the default that was picked). */
  model: string;
  /** The id sent to the provider. */
  providerModel: string;
};

export const KNOWN_PROVIDERS = ["anthropic", "replay"] as const;

/**
 * Turns a model name into a provider. Provider modules are imported lazily by the caller's first
 * model call, so resolving costs nothing at start-up.
 */
export async function resolveModel(settings: ModelSettings): Promise<ResolvedModel> {
  const env = settings.env ?? process.env;
  const name = settings.model ?? env.CAIRN_MODEL ?? defaultModelFromKeys(settings, env);
  if (name.startsWith("replay:")) return resolveReplay(name, settings);

  const slash = name.indexOf("/");
  const [prefix, id] =
    slash === -1 ? [inferPrefix(name), name] : [name.slice(0, slash), name.slice(slash + 1)];
  if (!id) throw new ConfigError(`Model "${name}" names no model after the provider prefix.`);
  switch (prefix) {
    case "anthropic": {
      const fromFlag = settings.apiKey;
      const apiKey = fromFlag ?? env.ANTHROPIC_API_KEY;
      if (!apiKey) {
        throw new ConfigError(
          `Model ${name} needs an Anthropic API key: set ANTHROPIC_API_KEY or pass --api-key.`,
        );
      }
      const { AnthropicProvider } = await import("./anthropic.js");
      const baseURL = settings.baseURL ?? env.ANTHROPIC_BASE_URL;
      return {
        model: name,
        providerModel: id,
        provider: new AnthropicProvider({
          model: id,
          displayName: displayNameFor(id),
          apiKey,
          apiKeySource: fromFlag ? "flag" : "env",
          ...(baseURL ? { baseURL } : {}),
        }),
      };
    }
    default:
      throw new ConfigError(
        `Unknown provider "${prefix}" in model "${name}". Known providers: ${KNOWN_PROVIDERS.join(", ")} (e.g. anthropic/${DEFAULT_ANTHROPIC_MODEL}, replay:path/to/scenario.json).`,
      );
  }
}

function inferPrefix(name: string): string {
  if (name.startsWith("claude-")) return "anthropic";
  throw new ConfigError(
    `Model "${name}" has no provider prefix. Use provider/model, e.g. anthropic/${DEFAULT_ANTHROPIC_MODEL}. Known providers: ${KNOWN_PROVIDERS.join(", ")}.`,
  );
}

function defaultModelFromKeys(settings: ModelSettings, env: NodeJS.ProcessEnv): string {
  if (settings.apiKey || env.ANTHROPIC_API_KEY) return `anthropic/${DEFAULT_ANTHROPIC_MODEL}`;
  throw new ConfigError(
    "No model configured. Set ANTHROPIC_API_KEY (or pass --api-key), set CAIRN_MODEL, or pass --model (e.g. --model replay:examples/demo/scenario.json for the offline replay).",
  );
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
