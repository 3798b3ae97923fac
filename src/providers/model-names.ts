import {
  claudeFamilyAliases,
  DEFAULT_ANTHROPIC_MODEL,
  DEFAULT_OPENAI_MODEL,
  findModel,
  MODEL_CATALOG,
} from "./catalog.js";
import { closeMatches } from "./close-matches.js";
import { COMPAT_SERVER_NAMES, isCompatServer } from "./openai-compat.js";
import { ConfigError } from "./types.js";

/**
 * Model names as people type them → a provider and the id it is sent. One resolver for every door
 * (`--model`, `options.model`, `Query.setModel()`, CAIRN_MODEL, the configured default); pure and
 * synchronous, so a front door can check a name before anything runs (docs/providers.md#model-names).
 */

/** Every provider prefix, in the order listed to users. */
export const KNOWN_PROVIDERS = [
  "anthropic",
  "openai",
  ...COMPAT_SERVER_NAMES.toSorted(),
  "local",
  "replay",
] as const;

export const MODEL_NAME_EXAMPLES = [
  `anthropic/${DEFAULT_ANTHROPIC_MODEL}`,
  "sonnet",
  `openai/${DEFAULT_OPENAI_MODEL}`,
  "ollama/qwen3",
  "openai-compatible/<model> (with --base-url)",
  "local:path/to/model.gguf",
  "replay:path/to/scenario.json",
];

/** Names that stand for the configured default model (`auto` is the reference CLI's default name). */
export const DEFAULT_MODEL_NAMES: readonly string[] = ["default", "auto"];

export type ModelNameSettings = {
  /**
   * The configured default model (e.g. the config file's `"model"`), used for no model, `default`
   * and `auto`; before CAIRN_MODEL and the keys in the environment.
   */
  defaultModel?: string;
  /** Where `defaultModel` came from, for error messages (e.g. `~/.cairn/config.json "model"`). */
  defaultModelSource?: string;
  /** A key given directly (`--api-key`) counts as an Anthropic key for the default. */
  apiKey?: string;
  env: NodeJS.ProcessEnv;
};

/** A model name with its alias or default resolved and its provider known. */
export type ModelName = {
  /**
   * The name reported (SDK `system/init.model`, transcripts) and priced: the name as given, with an
   * alias or `default`/`auto` replaced by what it stands for (`haiku` → `claude-haiku-5-5`,
   * `anthropic/opus` → `anthropic/claude-opus-5-5`), so it can be passed back as it is.
   */
  name: string;
  /** A prefix of KNOWN_PROVIDERS. */
  provider: (typeof KNOWN_PROVIDERS)[number];
  /** The id sent to the provider; for `local:` and `replay:`, the file. */
  id: string;
};

/** Family alias (`sonnet`) → the family's current catalog id (worked out from the catalog once). */
let aliases: Readonly<Record<string, string>> | undefined;
export function familyAliases(): Readonly<Record<string, string>> {
  aliases ??= claudeFamilyAliases();
  return aliases;
}

/**
 * Resolves a model name; `undefined`, `default` and `auto` are the configured default
 * (`defaultModel`, else CAIRN_MODEL, else the default model of the first provider with a key).
 * Throws a one-line ConfigError naming close matches for a name it does not know.
 */
export function resolveModelName(model: string | undefined, settings: ModelNameSettings): ModelName {
  if (model !== undefined && !DEFAULT_MODEL_NAMES.includes(model)) return parseModelName(model);
  const chosen = configuredDefaultModel(settings);
  if (!chosen) throw new ConfigError(NO_MODEL_MESSAGE);
  try {
    return parseModelName(chosen.name);
  } catch (error) {
    if (error instanceof ConfigError && chosen.source)
      throw new ConfigError(`${chosen.source}: ${error.message}`);
    throw error;
  }
}

/**
 * The configured default model and where it came from, or undefined when nothing picks one. A
 * source set to `default` or `auto` expresses no choice and is passed over.
 */
export function configuredDefaultModel(
  settings: ModelNameSettings,
): { name: string; source?: string } | undefined {
  const { env } = settings;
  const choices: [string | undefined, string][] = [
    [settings.defaultModel, settings.defaultModelSource ?? "the default model setting"],
    [env.CAIRN_MODEL, "CAIRN_MODEL"],
  ];
  for (const [value, source] of choices) {
    const name = nonEmpty(value);
    if (name && !DEFAULT_MODEL_NAMES.includes(name)) return { name, source };
  }
  if (nonEmpty(settings.apiKey) || nonEmpty(env.ANTHROPIC_API_KEY)) {
    return { name: `anthropic/${DEFAULT_ANTHROPIC_MODEL}` };
  }
  if (nonEmpty(env.OPENAI_API_KEY)) return { name: `openai/${DEFAULT_OPENAI_MODEL}` };
  return undefined;
}

/**
 * Checks a name before anything runs (`--model` at parse time): throws what resolveModelName would
 * for a name it does not know. `default` and `auto` pass: what they stand for is known later.
 */
export function checkModelName(name: string): void {
  if (!DEFAULT_MODEL_NAMES.includes(name)) parseModelName(name);
}

/** Parses an explicit name (not `default`/`auto`): see resolveModelName. */
export function parseModelName(name: string): ModelName {
  if (name.trim() === "") throw new ConfigError("The model name is empty (see `cairn models`).");
  if (name.startsWith("local:") || name.startsWith("replay:")) return parseFileName(name);
  const slash = name.indexOf("/");
  if (slash === -1) return parseBareName(name);

  const prefix = name.slice(0, slash);
  const id = name.slice(slash + 1);
  if (!id) throw new ConfigError(`Model "${name}" names no model after the provider prefix "${prefix}/".`);
  if (prefix === "anthropic") {
    // An alias keeps its prefix; any other id is sent as it is (new models precede the catalog).
    const aliased = aliasFor(id);
    return aliased
      ? { name: `anthropic/${aliased}`, provider: "anthropic", id: aliased }
      : { name, provider: "anthropic", id };
  }
  if (prefix === "openai" || isCompatServer(prefix)) return { name, provider: prefix, id };
  if (prefix === "local" || prefix === "replay") {
    throw new ConfigError(`Model "${name}": write ${prefix}:<path>, not ${prefix}/<path>.`);
  }
  const guesses = closeMatches(prefix, KNOWN_PROVIDERS).map((provider) => `${provider}/${id}`);
  throw new ConfigError(
    `Unknown provider "${prefix}" in model "${name}".${didYouMean(guesses)} Known providers: ${KNOWN_PROVIDERS.join(", ")}. Examples: ${MODEL_NAME_EXAMPLES.join(", ")}.`,
  );
}

/**
 * A name without a prefix: a catalog id (dated ids too), an alias, or shaped like an Anthropic
 * (`claude-…`) or OpenAI (`gpt-…`, `o3…`) id, which are sent as they are. Anything else would be a
 * guess at the provider, so it is refused with the names it is closest to.
 */
function parseBareName(name: string): ModelName {
  const entry = findModel(name);
  if (entry) return { name, provider: entry.provider, id: name };
  const aliased = aliasFor(name);
  if (aliased) return { name: aliased, provider: "anthropic", id: aliased };
  if (name.startsWith("claude-")) return { name, provider: "anthropic", id: name };
  if (name.startsWith("gpt-") || /^o\d/.test(name)) return { name, provider: "openai", id: name };
  const server = COMPAT_SERVER_NAMES.find((prefix) => name.startsWith(`${prefix}-`));
  if (server && name.length > server.length + 1) {
    const id = name.slice(server.length + 1);
    return { name: `${server}/${id}`, provider: server, id };
  }
  const known = [
    ...MODEL_CATALOG.map((row) => row.id),
    ...Object.keys(familyAliases()),
    ...DEFAULT_MODEL_NAMES,
  ];
  throw new ConfigError(
    `Unknown model "${name}": not in cairn's catalog and not an alias.${didYouMean(closeMatches(name, known))} Name other models with their provider, as provider/model (${KNOWN_PROVIDERS.filter((p) => p !== "local" && p !== "replay").join(", ")}), or local:<file.gguf>; \`cairn models\` lists the catalog and the aliases.`,
  );
}

/** What a listed model id may contain (the reference CLI's consumers match ids with this). */
export const LISTED_ID = /^[A-Za-z0-9._-]+$/;

/**
 * The spelling of a resolved model name without a `/` that `--model` resolves to the very same
 * provider and id (`anthropic/claude-opus-5-5` → `claude-opus-5-5`, `ollama/qwen3` → `ollama-qwen3`),
 * for `cairn models`; undefined when there is none (`local:` files, ids with `/` or `:`).
 */
export function listedModelId(name: string): string | undefined {
  let resolved: ModelName;
  try {
    resolved = parseModelName(name);
  } catch {
    return undefined;
  }
  const candidates = [resolved.id, `${resolved.provider}-${resolved.id}`];
  return candidates.find((candidate) => {
    if (!LISTED_ID.test(candidate)) return false;
    try {
      const back = parseModelName(candidate);
      return back.provider === resolved.provider && back.id === resolved.id;
    } catch {
      return false;
    }
  });
}

/** `local:<model.gguf>` or `replay:<scenario.json>`: the file is checked when the provider loads it. */
function parseFileName(name: string): ModelName {
  const local = name.startsWith("local:");
  const id = name.slice(name.indexOf(":") + 1);
  if (!id) {
    throw new ConfigError(
      local
        ? 'Model "local:" needs a model file: local:path/to/model.gguf'
        : 'Model "replay:" needs a scenario file: replay:path/to/scenario.json',
    );
  }
  return { name, provider: local ? "local" : "replay", id };
}

/** Own keys only: `constructor` is not an alias. */
function aliasFor(name: string): string | undefined {
  const table = familyAliases();
  return Object.hasOwn(table, name) ? table[name] : undefined;
}

function didYouMean(guesses: string[]): string {
  return guesses.length > 0 ? ` Did you mean ${guesses.join(", ")}?` : "";
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

export function nonEmpty(value: string | undefined): string | undefined {
  return value !== undefined && value.trim() !== "" ? value : undefined;
}
