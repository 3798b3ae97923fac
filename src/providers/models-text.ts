import { DEFAULT_ANTHROPIC_BASE_URL } from "./anthropic.js";
import { type CatalogEntry, MODEL_CATALOG, PRICES_CHECKED, type Prices } from "./catalog.js";
import {
  configuredDefaultModel,
  DEFAULT_MODEL_NAMES,
  familyAliases,
  listedModelId,
  parseModelName,
} from "./model-names.js";
import { COMPAT_SERVER_NAMES, COMPAT_SERVERS } from "./openai-compat.js";
import { DEFAULT_OPENAI_BASE_URL } from "./openai-responses.js";

/** How one provider is configured right now (never the key itself). */
export type ProviderStatus = {
  /** Model prefix: `anthropic`, `openai`, `ollama`, …, `local`, `replay`. */
  provider: string;
  wire: "anthropic-messages" | "openai-responses" | "openai-chat" | "llama" | "replay";
  /** Usable without further setup (key present, or none needed and a base URL known). */
  configured: boolean;
  /** Where requests go; undefined when none is configured or none applies. */
  baseURL?: string;
  /** Where the base URL came from: an env var name, or "default". */
  baseURLSource?: string;
  /** The env var holding the key when set; "not needed"; or undefined when missing. */
  key?: string;
  /** One line: what is missing, or what to do. */
  note: string;
};

/** A name that stands for another: a family alias, or `default` / `auto`. */
export type ModelAlias = {
  alias: string;
  /** What it resolves to now (`anthropic/claude-sonnet-5-5`); undefined: no default is configured. */
  model: string | undefined;
};

/** The data behind `cairn models --json`. */
export function listModels(env: NodeJS.ProcessEnv): {
  models: readonly CatalogEntry[];
  aliases: ModelAlias[];
  providers: ProviderStatus[];
  defaultModel: string | undefined;
  pricesChecked: string;
} {
  return {
    models: MODEL_CATALOG,
    aliases: modelAliases(env),
    providers: providerStatus(env),
    defaultModel: defaultModel(env)?.name,
    pricesChecked: PRICES_CHECKED,
  };
}

export function modelAliases(env: NodeJS.ProcessEnv): ModelAlias[] {
  const chosen = defaultModel(env)?.name;
  return [
    ...Object.entries(familyAliases()).map(([alias, id]) => ({ alias, model: `anthropic/${id}` })),
    ...DEFAULT_MODEL_NAMES.map((alias) => ({ alias, model: chosen })),
  ];
}

/**
 * The text of `cairn models` and `--list-models`, in the reference CLI's shape that its consumers
 * parse: `<id> - <display name>` per line, `auto` first and marked ` (default)`, the model a run
 * would use marked ` (current)`. Every id matches LISTED_ID and is accepted by `--model` as it is
 * (model-names.ts#listedModelId). `defaultModel` is the user config's `model`.
 */
export function modelLinesText(env: NodeJS.ProcessEnv, configModel?: string): string {
  const current = defaultModel(env, configModel);
  const currentId = current ? listedModelId(current.name) : undefined;
  const lines = ["Available models", "", "auto - Auto (default)"];
  const listed = new Set<string>();
  for (const entry of MODEL_CATALOG) {
    listed.add(entry.id);
    lines.push(`${entry.id} - ${entry.displayName}${entry.id === currentId ? " (current)" : ""}`);
  }
  if (current && currentId && !listed.has(currentId)) {
    const { provider, id } = parseModelName(current.name);
    const label =
      provider in COMPAT_SERVERS ? COMPAT_SERVERS[provider as keyof typeof COMPAT_SERVERS].label : provider;
    lines.push(`${currentId} - ${id} (${label}) (current)`);
  }
  lines.push(
    "",
    `Tip: auto is the configured default (${current ? current.name : "none configured; see cairn status"}). --model also takes provider/model names (cairn models --prices lists prices, aliases and providers).`,
  );
  return `${lines.join("\n")}\n`;
}

/** The configured default with its alias resolved (`CAIRN_MODEL=opus` → `claude-opus-5-5`). */
function defaultModel(
  env: NodeJS.ProcessEnv,
  configModel?: string,
): { name: string; source?: string } | undefined {
  const chosen = configuredDefaultModel({
    env,
    ...(configModel !== undefined ? { defaultModel: configModel } : {}),
  });
  if (!chosen) return undefined;
  try {
    return { ...chosen, name: parseModelName(chosen.name).name };
  } catch {
    return chosen; // a run would refuse it; listing it as given shows what is wrong
  }
}

export function providerStatus(env: NodeJS.ProcessEnv): ProviderStatus[] {
  const set = (name: string) => env[name] !== undefined && env[name]!.trim() !== "";
  const rows: ProviderStatus[] = [];
  rows.push({
    provider: "anthropic",
    wire: "anthropic-messages",
    configured: set("ANTHROPIC_API_KEY"),
    baseURL: set("ANTHROPIC_BASE_URL") ? env.ANTHROPIC_BASE_URL! : DEFAULT_ANTHROPIC_BASE_URL,
    baseURLSource: set("ANTHROPIC_BASE_URL") ? "ANTHROPIC_BASE_URL" : "default",
    ...(set("ANTHROPIC_API_KEY") ? { key: "ANTHROPIC_API_KEY" } : {}),
    note: set("ANTHROPIC_API_KEY") ? "ready" : "set ANTHROPIC_API_KEY or pass --api-key",
  });
  rows.push({
    provider: "openai",
    wire: "openai-responses",
    configured: set("OPENAI_API_KEY"),
    baseURL: set("OPENAI_BASE_URL") ? env.OPENAI_BASE_URL! : DEFAULT_OPENAI_BASE_URL,
    baseURLSource: set("OPENAI_BASE_URL") ? "OPENAI_BASE_URL" : "default",
    ...(set("OPENAI_API_KEY") ? { key: "OPENAI_API_KEY" } : {}),
    note: set("OPENAI_API_KEY") ? "ready" : "set OPENAI_API_KEY or pass --api-key",
  });
  for (const name of COMPAT_SERVER_NAMES) {
    const quirks = COMPAT_SERVERS[name];
    const fromEnv = set(quirks.baseURLEnv) ? env[quirks.baseURLEnv] : undefined;
    const baseURL = fromEnv ?? quirks.defaultBaseURL;
    const hasKey = set(quirks.apiKeyEnv);
    const configured = baseURL !== undefined && (hasKey || !quirks.requiresKey);
    rows.push({
      provider: name,
      wire: "openai-chat",
      configured,
      ...(baseURL ? { baseURL, baseURLSource: fromEnv ? quirks.baseURLEnv : "default" } : {}),
      key: hasKey ? quirks.apiKeyEnv : quirks.requiresKey ? undefined : "not needed",
      note: !baseURL
        ? `pass --base-url or set ${quirks.baseURLEnv}`
        : fromEnv
          ? "base URL from the environment (the server is not contacted here)"
          : "default local address (the server is not contacted here)",
    });
  }
  rows.push({
    provider: "local",
    wire: "llama",
    configured: false,
    key: "not needed",
    note: "--model local:path/to/model.gguf (in-process; needs the optional node-llama-cpp)",
  });
  rows.push({
    provider: "replay",
    wire: "replay",
    configured: true,
    key: "not needed",
    note: "--model replay:path/to/scenario.json (offline scripted replay)",
  });
  return rows;
}

/**
 * The text of `cairn models`: the catalog (id, name, context, max output, prices) and which
 * providers are configured. Reads only the environment; contacts no server; prints no key.
 */
export function listModelsText(env: NodeJS.ProcessEnv): string {
  const lines: string[] = [];
  lines.push(
    `Known models — prices in USD per million tokens (input / output / cache read / cache write), checked ${PRICES_CHECKED}`,
  );
  const rows = MODEL_CATALOG.map((entry) => [
    `${entry.provider}/${entry.id}`,
    entry.displayName,
    tokens(entry.contextWindow),
    tokens(entry.maxOutput),
    entry.prices ? priceText(entry.prices) : "price unknown",
    [
      entry.longContext
        ? `over ${tokens(entry.longContext.aboveInputTokens)} prompt: ${priceText(entry.longContext.prices)}`
        : "",
      entry.priceNote ?? "",
    ]
      .filter(Boolean)
      .join("; "),
  ]);
  lines.push(...table([["MODEL", "NAME", "CONTEXT", "MAX OUT", "PRICES", "NOTES"], ...rows]));
  lines.push("");
  lines.push("Aliases (the current model of each family; default and auto: the default model below)");
  lines.push(
    ...table([
      ["ALIAS", "MODEL"],
      ...modelAliases(env).map((row) => [row.alias, row.model ?? "none configured"]),
    ]),
  );
  lines.push("");
  lines.push("Providers");
  const status = providerStatus(env);
  lines.push(
    ...table([
      ["PROVIDER", "WIRE", "STATUS", "BASE URL", "KEY", "NOTE"],
      ...status.map((row) => [
        row.provider,
        row.wire,
        row.configured ? "configured" : "not configured",
        row.baseURL
          ? `${row.baseURL}${row.baseURLSource && row.baseURLSource !== "default" ? ` (${row.baseURLSource})` : ""}`
          : "-",
        row.key ?? "missing",
        row.note,
      ]),
    ]),
  );
  lines.push("");
  const chosen = defaultModel(env);
  lines.push(
    chosen
      ? `Default model: ${chosen.name}${chosen.source ? ` (${chosen.source})` : ""}`
      : "Default model: none — set ANTHROPIC_API_KEY or OPENAI_API_KEY, set CAIRN_MODEL, or pass --model.",
  );
  lines.push(
    "Models not listed still run (e.g. openai/<new-model>, ollama/<any-model>); their cost is reported as unknown.",
  );
  return `${lines.join("\n")}\n`;
}

function priceText(p: Prices): string {
  return [p.input, p.output, p.cacheRead, p.cacheWrite].map(money).join(" / ");
}

/** $2.00, $0.125, $0.005: at least cents, up to four decimals, no float noise. */
function money(value: number): string {
  const [whole, decimals = ""] = value.toFixed(4).split(".");
  return `$${whole}.${decimals.replace(/0+$/, "").padEnd(2, "0")}`;
}

function tokens(count: number): string {
  if (count >= 1_000_000 && count % 1_000_000 === 0) return `${count / 1_000_000}M`;
  if (count >= 1_000_000) return `${(count / 1_000_000).toFixed(2)}M`;
  return count % 1000 === 0 ? `${count / 1000}K` : `${(count / 1000).toFixed(1)}K`;
}

function table(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? "").length)));
  return rows.map((row) =>
    row
      .map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!)))
      .join("  ")
      .trimEnd(),
  );
}
