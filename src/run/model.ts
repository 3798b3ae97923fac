import type { LoadedConfig } from "../config/load.js";
import type { Usage } from "../engine/messages.js";
import type { ModelProvider } from "../engine/provider.js";
import { findModel } from "../providers/catalog.js";
import { costUSD } from "../providers/cost.js";
import { type ModelSettings, resolveModel } from "../providers/registry.js";

/** A model ready for a run: the provider, the names, and how to price a call's usage. */
export type RunModel = {
  provider: ModelProvider;
  /** The model as resolved from the user's name (reported in events, priced). */
  model: string;
  /** The id sent to the provider. */
  providerModel: string;
  priceUsage(usage: Partial<Usage>): number | undefined;
  /** From the catalog (or the provider: a local model's context size); undefined when unknown. */
  contextWindow?: number;
};

/**
 * Resolves the model of a run. Precedence (docs/config.md): the flag or option, then `CAIRN_MODEL`,
 * then the user config's `model`, then the default of the first provider with a key.
 */
export async function resolveRunModel(config: LoadedConfig, settings: ModelSettings): Promise<RunModel> {
  const { env } = settings;
  const fromEnv = env.CAIRN_MODEL?.trim() ? env.CAIRN_MODEL : undefined;
  // "default"/"auto" and an unnamed model mean the configured default: the environment's, else the file's.
  const defaults =
    fromEnv !== undefined || config.model === undefined
      ? {}
      : {
          defaultModel: config.model,
          defaultModelSource: `${config.userFile} "model"`,
        };
  // Prompt caching is on unless the caller turns it off: the system prompt and conversation prefix
  // are re-sent every turn, and cache reads cost a tenth of fresh input on Anthropic.
  const resolved = await resolveModel({
    ...settings,
    ...defaults,
    promptCaching: settings.promptCaching ?? true,
  });
  const contextWindow = findModel(resolved.providerModel)?.contextWindow ?? resolved.provider.contextWindow;
  return {
    ...resolved,
    priceUsage: (usage) => costUSD(resolved.model, usage),
    ...(contextWindow !== undefined ? { contextWindow } : {}),
  };
}
