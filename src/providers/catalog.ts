/**
 * Known models: display name (used in the CLI's `system/init.model`), context window, max output.
 * Prices and more providers join this table with the "any model" work; unknown ids still run.
 */
export type CatalogEntry = {
  id: string;
  provider: string;
  displayName: string;
  contextWindow: number;
  maxOutput: number;
};

export const MODEL_CATALOG: readonly CatalogEntry[] = [
  {
    id: "claude-opus-5-5",
    provider: "anthropic",
    displayName: "Claude Opus 5.5",
    contextWindow: 200_000,
    maxOutput: 64_000,
  },
  {
    id: "claude-sonnet-5-5",
    provider: "anthropic",
    displayName: "Claude Sonnet 5.5",
    contextWindow: 200_000,
    maxOutput: 64_000,
  },
  {
    id: "claude-haiku-5-5",
    provider: "anthropic",
    displayName: "Claude Haiku 5.5",
    contextWindow: 200_000,
    maxOutput: 64_000,
  },
  {
    id: "claude-opus-5",
    provider: "anthropic",
    displayName: "Claude Opus 5",
    contextWindow: 200_000,
    maxOutput: 64_000,
  },
  {
    id: "claude-sonnet-5",
    provider: "anthropic",
    displayName: "Claude Sonnet 5",
    contextWindow: 200_000,
    maxOutput: 64_000,
  },
  {
    id: "claude-opus-4-8",
    provider: "anthropic",
    displayName: "Claude Opus 4.8",
    contextWindow: 200_000,
    maxOutput: 64_000,
  },
  {
    id: "claude-opus-4-7",
    provider: "anthropic",
    displayName: "Claude Opus 4.7",
    contextWindow: 200_000,
    maxOutput: 64_000,
  },
  {
    id: "claude-opus-4-6",
    provider: "anthropic",
    displayName: "Claude Opus 4.6",
    contextWindow: 200_000,
    maxOutput: 64_000,
  },
  {
    id: "claude-sonnet-4-6",
    provider: "anthropic",
    displayName: "Claude Sonnet 4.6",
    contextWindow: 200_000,
    maxOutput: 64_000,
  },
  {
    id: "claude-opus-4-5",
    provider: "anthropic",
    displayName: "Claude Opus 4.5",
    contextWindow: 200_000,
    maxOutput: 64_000,
  },
  {
    id: "claude-sonnet-4-5",
    provider: "anthropic",
    displayName: "Claude Sonnet 4.5",
    contextWindow: 200_000,
    maxOutput: 64_000,
  },
  {
    id: "claude-haiku-4-5",
    provider: "anthropic",
    displayName: "Claude Haiku 4.5",
    contextWindow: 200_000,
    maxOutput: 64_000,
  },
  {
    id: "claude-opus-4-1",
    provider: "anthropic",
    displayName: "Claude Opus 4.1",
    contextWindow: 200_000,
    maxOutput: 32_000,
  },
  {
    id: "claude-sonnet-4-0",
    provider: "anthropic",
    displayName: "Claude Sonnet 4",
    contextWindow: 200_000,
    maxOutput: 64_000,
  },
  {
    id: "claude-3-7-sonnet-latest",
    provider: "anthropic",
    displayName: "Claude Sonnet 3.7",
    contextWindow: 200_000,
    maxOutput: 64_000,
  },
];

/** The default Anthropic model when only ANTHROPIC_API_KEY is set. */
export const DEFAULT_ANTHROPIC_MODEL = "claude-sonnet-5-5";

/** Finds an entry by exact id or by a dated id (`claude-sonnet-4-5-20250929`). */
export function findModel(id: string): CatalogEntry | undefined {
  return MODEL_CATALOG.find(
    (entry) => id === entry.id || (/^-\d{8}$/.test(id.slice(entry.id.length)) && id.startsWith(entry.id)),
  );
}

export function displayNameFor(id: string): string {
  return findModel(id)?.displayName ?? id;
}
