import { referenceModel } from "../providers/reference-models.js";
import type { LongSessionFlags } from "./args.js";

/**
 * `--model` given as one of the reference CLI's ids (`sonnet-4.6-thinking`, `gpt-5.2-high`,
 * `composer-2`: src/providers/reference-models.ts), which its consumers pass by default. The id runs
 * as its matching model when that model's provider has a key (`--api-key`, or the provider's key
 * variable), with the thinking and effort the id names unless `--thinking`/`--effort` say otherwise.
 * The reference's own models, vendors cairn has no provider for, and models whose provider has no
 * key run the configured default instead. Either way at most one stderr line says what was not
 * applied (docs/cli.md#reference-model-ids). Any other name is returned as it is.
 */
export async function routeReferenceModel(
  options: {
    model?: string;
    apiKey?: string;
    settingSources?: readonly string[];
    longSession: LongSessionFlags;
  },
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<{ model?: string; longSession: LongSessionFlags; note?: string }> {
  const unchanged = {
    ...(options.model !== undefined ? { model: options.model } : {}),
    longSession: options.longSession,
  };
  if (options.model === undefined) return unchanged;
  const reference = referenceModel(options.model);
  if (!reference) return unchanged;
  const given = `--model ${reference.id}`;
  const keyed = (variable: string) =>
    [options.apiKey, env[variable]].some((key) => key !== undefined && key.trim() !== "");
  const runnable =
    reference.model !== undefined &&
    keyed(reference.provider === "openai" ? "OPENAI_API_KEY" : "ANTHROPIC_API_KEY");

  if (runnable) {
    const longSession = { ...options.longSession };
    if (reference.thinking && longSession.thinking === undefined) longSession.thinking = reference.thinking;
    if (reference.effort && longSession.effort === undefined) longSession.effort = reference.effort;
    return {
      // `gpt-5.2` stays as given (reported and priced as before); `sonnet-4.6` becomes the model it names.
      model: reference.model!.endsWith(`/${reference.id}`) ? reference.id : reference.model!,
      longSession,
      ...(reference.unapplied.length > 0
        ? {
            note: `${given} runs ${reference.model}; not applied: ${reference.unapplied.map(describeUnapplied).join(", ")}.`,
          }
        : {}),
    };
  }

  const why =
    reference.model === undefined
      ? reference.owner === "the reference CLI's own"
        ? `is the reference CLI's own model, which cairn cannot run`
        : `is ${reference.owner} model, which no cairn provider serves`
      : `is ${reference.owner} model and ${reference.provider === "openai" ? "OpenAI" : "Anthropic"} is not configured (set ${reference.provider === "openai" ? "OPENAI_API_KEY" : "ANTHROPIC_API_KEY"} or pass --api-key)`;
  const fallback = await defaultModelName(options, cwd, env);
  if (fallback === undefined) {
    // Nothing to run instead: the matching model's own error names the key it needs.
    if (reference.model !== undefined) return { model: reference.model, longSession: options.longSession };
    const { ConfigError } = await import("../providers/types.js");
    const { NO_MODEL_MESSAGE } = await import("../providers/model-names.js");
    throw new ConfigError(`${given} ${why}, and no default model is configured. ${NO_MODEL_MESSAGE}`);
  }
  return {
    longSession: options.longSession,
    note: `${given} ${why}: running the default model ${fallback} instead.`,
  };
}

function describeUnapplied(part: string): string {
  return part === "-fast" ? "-fast (the reference's faster serving has no counterpart here)" : part;
}

/**
 * The model a run without `--model` uses, as src/run/model.ts picks it (CAIRN_MODEL, else the user
 * config's `model`, else the first provider with a key), its alias resolved; undefined when none.
 */
async function defaultModelName(
  options: { apiKey?: string; settingSources?: readonly string[] },
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<string | undefined> {
  const { configuredDefaultModel, parseModelName } = await import("../providers/model-names.js");
  let configModel: string | undefined;
  if (!env.CAIRN_MODEL?.trim() && (options.settingSources?.includes("user") ?? true)) {
    const { loadConfig } = await import("../config/load.js");
    configModel = (await loadConfig({ cwd, env, sources: ["user"] })).model;
  }
  const chosen = configuredDefaultModel({
    env,
    ...(options.apiKey !== undefined ? { apiKey: options.apiKey } : {}),
    ...(configModel !== undefined ? { defaultModel: configModel } : {}),
  });
  if (!chosen) return undefined;
  try {
    return parseModelName(chosen.name).name;
  } catch {
    return chosen.name; // the run refuses it, naming where it came from
  }
}
