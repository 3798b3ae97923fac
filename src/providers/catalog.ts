import type { MediaInput } from "../engine/provider.js";
import { compareCodeUnits } from "../util/compare.js";

/**
 * Known models: display name (the CLI's `system/init.model`), context window, max output, and
 * list prices. Unknown ids still run; their cost is reported as unknown, never as zero.
 *
 * ## Updating prices
 * Prices are USD per million tokens, standard (non-batch) API rates:
 * - `input`: uncached input tokens; `output`: output tokens (reasoning/thinking included);
 * - `cacheRead`: cache hits (Anthropic "cache hits and refreshes", OpenAI "cached input");
 * - `cacheWrite`: cache writes (Anthropic 5-minute writes; OpenAI bills writes as plain input on
 *   older models, so there it equals `input`).
 * `longContext` prices a whole request whose prompt (input + cache reads + cache writes) exceeds
 * `aboveInputTokens`. Edit a row, set `PRICES_CHECKED` and run `npx vitest run test/providers`.
 * Sources: platform.claude.com/docs (models overview and pricing pages) and
 * developers.openai.com/api/docs/models; rows marked `verify` came from secondary sources.
 */
export type Prices = { input: number; output: number; cacheRead: number; cacheWrite: number };

export type CatalogEntry = {
  id: string;
  provider: "anthropic" | "openai";
  displayName: string;
  contextWindow: number;
  maxOutput: number;
  /** Undefined: not published (cost is unknown). */
  prices?: Prices;
  longContext?: { aboveInputTokens: number; prices: Prices };
  /** OpenAI reasoning model: reasoning summaries are requested. */
  reasoning?: boolean;
  /** Where the price needs a second look (promotional, secondary source). */
  priceNote?: string;
  /** Images and PDFs the model takes; omitted: both (every row so far). A row without vision says `{ image: false, pdf: false }`. */
  media?: MediaInput;
};

/** When the price rows were last checked against the sources above. */
export const PRICES_CHECKED = "2026-11-30";

const M = 1_000_000;
const K = 1_000;

/** Anthropic rows: cache writes at 1.25× input (5-minute writes). */
function claude(input: number, output: number, cacheRead: number): Prices {
  return { input, output, cacheRead, cacheWrite: input * 1.25 };
}
/** OpenAI GPT-5.6 rows: cache writes at 1.25× input. */
function gpt56(input: number, output: number, cacheRead: number): Prices {
  return { input, output, cacheRead, cacheWrite: input * 1.25 };
}
/** Older OpenAI rows: writes are billed as plain input. */
function gpt(input: number, output: number, cacheRead: number): Prices {
  return { input, output, cacheRead, cacheWrite: input };
}
/** OpenAI long-context tier (prompts over 272K tokens): 2× input, 1.5× output. */
function gptLong(p: Prices): { aboveInputTokens: number; prices: Prices } {
  return {
    aboveInputTokens: 272 * K,
    prices: {
      input: p.input * 2,
      output: p.output * 1.5,
      cacheRead: p.cacheRead * 2,
      cacheWrite: p.cacheWrite * 2,
    },
  };
}

const SOL = gpt56(4, 20, 0.4);
const TERRA = gpt56(2, 12, 0.2);
const LUNA = gpt56(0.2, 1.2, 0.02);
const GPT54 = gpt(2.5, 15, 0.25);

export const MODEL_CATALOG: readonly CatalogEntry[] = [
  // ── Anthropic ──────────────────────────────────────────────────────────────────────────────
  {
    id: "claude-fable-5-2",
    provider: "anthropic",
    displayName: "Claude Fable 5.2",
    contextWindow: M,
    maxOutput: 128 * K,
    prices: claude(8, 40, 0.2),
    priceNote: "verify",
  },
  {
    id: "claude-mythos-5-2",
    provider: "anthropic",
    displayName: "Claude Mythos 5.2",
    contextWindow: M,
    maxOutput: 128 * K,
    prices: claude(8, 40, 0.2),
    priceNote: "verify (priced like Fable 5.2)",
  },
  {
    id: "claude-opus-5-5",
    provider: "anthropic",
    displayName: "Claude Opus 5.5",
    contextWindow: M,
    maxOutput: 128 * K,
    prices: claude(4, 20, 0.2),
  },
  {
    id: "claude-sonnet-5-5",
    provider: "anthropic",
    displayName: "Claude Sonnet 5.5",
    contextWindow: M,
    maxOutput: 128 * K,
    // Cache reads cut from $0.20 to $0.10 on 2026-10-07.
    prices: claude(2, 10, 0.1),
  },
  {
    id: "claude-haiku-5-5",
    provider: "anthropic",
    displayName: "Claude Haiku 5.5",
    contextWindow: M,
    maxOutput: 128 * K,
    prices: claude(0.1, 0.5, 0.01),
    longContext: { aboveInputTokens: 100 * K, prices: claude(0.5, 2.5, 0.05) },
  },
  {
    id: "claude-fable-5-1",
    provider: "anthropic",
    displayName: "Claude Fable 5.1",
    contextWindow: M,
    maxOutput: 128 * K,
    prices: claude(10, 50, 0.25),
  },
  {
    id: "claude-mythos-5-1",
    provider: "anthropic",
    displayName: "Claude Mythos 5.1",
    contextWindow: M,
    maxOutput: 128 * K,
    prices: claude(10, 50, 0.25),
  },
  {
    id: "claude-fable-5",
    provider: "anthropic",
    displayName: "Claude Fable 5",
    contextWindow: M,
    maxOutput: 128 * K,
    prices: claude(10, 50, 1),
  },
  {
    id: "claude-mythos-5",
    provider: "anthropic",
    displayName: "Claude Mythos 5",
    contextWindow: M,
    maxOutput: 128 * K,
    prices: claude(10, 50, 1),
  },
  {
    id: "claude-opus-5",
    provider: "anthropic",
    displayName: "Claude Opus 5",
    contextWindow: M,
    maxOutput: 128 * K,
    prices: claude(5, 25, 0.5),
  },
  {
    id: "claude-sonnet-5",
    provider: "anthropic",
    displayName: "Claude Sonnet 5",
    contextWindow: M,
    maxOutput: 128 * K,
    prices: claude(2, 10, 0.2),
  },
  {
    id: "claude-mythos-preview",
    provider: "anthropic",
    displayName: "Claude Mythos Preview",
    contextWindow: M,
    maxOutput: 128 * K,
    // Invitation-only; no public price.
  },
  {
    id: "claude-opus-4-8",
    provider: "anthropic",
    displayName: "Claude Opus 4.8",
    contextWindow: M,
    maxOutput: 128 * K,
    prices: claude(5, 25, 0.5),
  },
  {
    id: "claude-opus-4-7",
    provider: "anthropic",
    displayName: "Claude Opus 4.7",
    contextWindow: M,
    maxOutput: 128 * K,
    prices: claude(5, 25, 0.5),
  },
  {
    id: "claude-opus-4-6",
    provider: "anthropic",
    displayName: "Claude Opus 4.6",
    contextWindow: 200 * K,
    maxOutput: 128 * K,
    prices: claude(5, 25, 0.5),
  },
  {
    id: "claude-sonnet-4-6",
    provider: "anthropic",
    displayName: "Claude Sonnet 4.6",
    contextWindow: 200 * K,
    maxOutput: 64 * K,
    prices: claude(3, 15, 0.3),
  },
  {
    id: "claude-opus-4-5",
    provider: "anthropic",
    displayName: "Claude Opus 4.5",
    contextWindow: 200 * K,
    maxOutput: 64 * K,
    prices: claude(5, 25, 0.5),
  },
  {
    id: "claude-sonnet-4-5",
    provider: "anthropic",
    displayName: "Claude Sonnet 4.5",
    contextWindow: 200 * K,
    maxOutput: 64 * K,
    prices: claude(3, 15, 0.3),
  },
  {
    id: "claude-haiku-4-5",
    provider: "anthropic",
    displayName: "Claude Haiku 4.5",
    contextWindow: 200 * K,
    maxOutput: 64 * K,
    prices: claude(1, 5, 0.1),
  },
  {
    id: "claude-opus-4-1",
    provider: "anthropic",
    displayName: "Claude Opus 4.1",
    contextWindow: 200 * K,
    maxOutput: 32 * K,
    prices: claude(15, 75, 1.5),
  },
  {
    id: "claude-sonnet-4-0",
    provider: "anthropic",
    displayName: "Claude Sonnet 4",
    contextWindow: 200 * K,
    maxOutput: 64 * K,
    prices: claude(3, 15, 0.3),
  },
  {
    id: "claude-3-7-sonnet-latest",
    provider: "anthropic",
    displayName: "Claude Sonnet 3.7",
    contextWindow: 200 * K,
    maxOutput: 64 * K,
    prices: claude(3, 15, 0.3),
  },
  // ── OpenAI ─────────────────────────────────────────────────────────────────────────────────
  {
    id: "gpt-5.6-sol",
    provider: "openai",
    displayName: "GPT-5.6 Sol",
    contextWindow: 1_050_000,
    maxOutput: 128 * K,
    prices: SOL,
    longContext: gptLong(SOL),
    reasoning: true,
    priceNote: "promotional rate (at least until 2026-11-21; list $5/$30) — verify",
  },
  {
    id: "gpt-5.6-terra",
    provider: "openai",
    displayName: "GPT-5.6 Terra",
    contextWindow: 1_050_000,
    maxOutput: 128 * K,
    prices: TERRA,
    longContext: gptLong(TERRA),
    reasoning: true,
    priceNote: "verify (cut on 2026-07-30)",
  },
  {
    id: "gpt-5.6-luna",
    provider: "openai",
    displayName: "GPT-5.6 Luna",
    contextWindow: 1_050_000,
    maxOutput: 128 * K,
    prices: LUNA,
    longContext: gptLong(LUNA),
    reasoning: true,
    priceNote: "verify (cut on 2026-07-30)",
  },
  {
    id: "gpt-5.4",
    provider: "openai",
    displayName: "GPT-5.4",
    contextWindow: 1_050_000,
    maxOutput: 128 * K,
    prices: GPT54,
    longContext: gptLong(GPT54),
    reasoning: true,
  },
  {
    id: "gpt-5.4-mini",
    provider: "openai",
    displayName: "GPT-5.4 mini",
    contextWindow: 400 * K,
    maxOutput: 128 * K,
    prices: gpt(0.75, 4.5, 0.075),
    reasoning: true,
  },
  {
    id: "gpt-5.4-nano",
    provider: "openai",
    displayName: "GPT-5.4 nano",
    contextWindow: 400 * K,
    maxOutput: 128 * K,
    prices: gpt(0.2, 1.25, 0.02),
    reasoning: true,
    priceNote: "verify",
  },
  {
    id: "gpt-5.2",
    provider: "openai",
    displayName: "GPT-5.2",
    contextWindow: 400 * K,
    maxOutput: 128 * K,
    prices: gpt(1.75, 14, 0.175),
    reasoning: true,
  },
  {
    id: "gpt-5.1",
    provider: "openai",
    displayName: "GPT-5.1",
    contextWindow: 400 * K,
    maxOutput: 128 * K,
    prices: gpt(1.25, 10, 0.125),
    reasoning: true,
  },
  {
    id: "gpt-5",
    provider: "openai",
    displayName: "GPT-5",
    contextWindow: 400 * K,
    maxOutput: 128 * K,
    prices: gpt(1.25, 10, 0.125),
    reasoning: true,
  },
  {
    id: "gpt-5-mini",
    provider: "openai",
    displayName: "GPT-5 mini",
    contextWindow: 400 * K,
    maxOutput: 128 * K,
    prices: gpt(0.25, 2, 0.025),
    reasoning: true,
  },
  {
    id: "gpt-5-nano",
    provider: "openai",
    displayName: "GPT-5 nano",
    contextWindow: 400 * K,
    maxOutput: 128 * K,
    prices: gpt(0.05, 0.4, 0.005),
    reasoning: true,
  },
  {
    id: "gpt-4.1",
    provider: "openai",
    displayName: "GPT-4.1",
    contextWindow: 1_047_576,
    maxOutput: 32_768,
    prices: gpt(2, 8, 0.5),
  },
  {
    id: "gpt-4.1-mini",
    provider: "openai",
    displayName: "GPT-4.1 mini",
    contextWindow: 1_047_576,
    maxOutput: 32_768,
    prices: gpt(0.4, 1.6, 0.1),
  },
  {
    id: "gpt-4.1-nano",
    provider: "openai",
    displayName: "GPT-4.1 nano",
    contextWindow: 1_047_576,
    maxOutput: 32_768,
    prices: gpt(0.1, 0.4, 0.025),
  },
  {
    id: "gpt-4o",
    provider: "openai",
    displayName: "GPT-4o",
    contextWindow: 128 * K,
    maxOutput: 16_384,
    prices: gpt(2.5, 10, 1.25),
  },
  {
    id: "gpt-4o-mini",
    provider: "openai",
    displayName: "GPT-4o mini",
    contextWindow: 128 * K,
    maxOutput: 16_384,
    prices: gpt(0.15, 0.6, 0.075),
  },
  {
    id: "o3",
    provider: "openai",
    displayName: "o3",
    contextWindow: 200 * K,
    maxOutput: 100 * K,
    prices: gpt(2, 8, 0.5),
    reasoning: true,
  },
  {
    id: "o4-mini",
    provider: "openai",
    displayName: "o4-mini",
    contextWindow: 200 * K,
    maxOutput: 100 * K,
    prices: gpt(1.1, 4.4, 0.275),
    reasoning: true,
  },
];

/** The default Anthropic model when only ANTHROPIC_API_KEY is set. */
export const DEFAULT_ANTHROPIC_MODEL = "claude-sonnet-5-5";
/** The default OpenAI model when only OPENAI_API_KEY is set. */
export const DEFAULT_OPENAI_MODEL = "gpt-5.6-terra";

/**
 * A Claude family row: `claude-<family>-<major>[-<minor>]` (`claude-opus-5-5`, `claude-sonnet-4-0`,
 * `claude-opus-5`). Older (`claude-3-7-sonnet-latest`) and unversioned (`claude-mythos-preview`)
 * ids are not part of a family's line-up.
 */
const CLAUDE_FAMILY_ID = /^claude-([a-z]+)-(\d+)(?:-(\d+))?$/;

/**
 * The aliases `sonnet`, `opus`, `haiku`, … : one per Claude family in the catalog, naming the
 * family's current model — the row with the highest version (`claude-sonnet-5-5` over
 * `claude-sonnet-5` over `claude-sonnet-4-6`). Derived from the rows above, so adding a newer row
 * moves the alias with no other edit. Sorted by alias.
 */
export function claudeFamilyAliases(): Record<string, string> {
  const newest = new Map<string, { id: string; version: number }>();
  for (const entry of MODEL_CATALOG) {
    const match = CLAUDE_FAMILY_ID.exec(entry.id);
    if (!match) continue;
    const family = match[1]!;
    const version = Number(match[2]) * 1000 + Number(match[3] ?? 0);
    if (version > (newest.get(family)?.version ?? -1)) newest.set(family, { id: entry.id, version });
  }
  return Object.fromEntries(
    [...newest].sort(([a], [b]) => compareCodeUnits(a, b)).map(([family, { id }]) => [family, id]),
  );
}

/** A dated snapshot id: Anthropic `-20250929`, OpenAI `-2025-08-07`. */
const DATE_SUFFIX = /^-(\d{8}|\d{4}-\d{2}-\d{2})$/;

/**
 * Finds an entry by exact id or by a dated id (`claude-sonnet-4-5-20250929`, `gpt-5-2025-08-07`).
 * `provider` restricts the search to one provider's rows.
 */
export function findModel(id: string, provider?: CatalogEntry["provider"]): CatalogEntry | undefined {
  let dated: CatalogEntry | undefined;
  for (const entry of MODEL_CATALOG) {
    if (provider !== undefined && entry.provider !== provider) continue;
    if (entry.id === id) return entry;
    if (!dated && id.startsWith(entry.id) && DATE_SUFFIX.test(id.slice(entry.id.length))) dated = entry;
  }
  return dated;
}

/**
 * Which media a model takes, where cairn knows: a catalog row's `media` (both by default). Undefined
 * for ids outside the catalog: the request is sent and the server answers (docs/multimodal.md).
 */
export function mediaInputFor(id: string, provider: CatalogEntry["provider"]): MediaInput | undefined {
  const entry = findModel(id, provider);
  if (!entry) return undefined;
  return entry.media ?? { image: true, pdf: true };
}

export function displayNameFor(id: string): string {
  return findModel(id)?.displayName ?? id;
}
