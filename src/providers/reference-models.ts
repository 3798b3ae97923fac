import type { EffortLevel, ThinkingSetting } from "../engine/provider.js";
import { findModel } from "./catalog.js";

/**
 * The reference CLI's model ids — what its `models` lists and what the programs written for it pass
 * by default — read as the model of a provider cairn has (docs/cli.md#reference-model-ids). The ids
 * seen in its lists and its consumers' code:
 *
 * - its own models: `composer-2`, `composer-2.5-fast`, `composer-1.5`, …;
 * - Claude in its spellings: `sonnet-4.6`, `opus-4.6-thinking`, `claude-4.6-sonnet-medium-thinking`,
 *   `claude-opus-4-7-thinking-high`, `claude-opus-4-8[context=1m,effort=high]`;
 * - OpenAI's ids, some with an effort or `-fast`: `gpt-5.2`, `gpt-5.2-high`, `gpt-5.3-codex-xhigh-fast`;
 * - other vendors' models: `gemini-3.1-pro`, `grok`, `grok-4.3`, `kimi-k2.5`, `deepseek-…`.
 */
export type ReferenceModel = {
  /** The id as given. */
  id: string;
  /**
   * The matching model of a cairn provider (`anthropic/claude-sonnet-4-6`, `openai/gpt-5.2`);
   * undefined for the reference's own models and vendors cairn has no provider for.
   */
  model?: string;
  /** The provider `model` needs (its key decides whether it can run). */
  provider?: "anthropic" | "openai";
  /** Whose model it is, for the note when it cannot run: `the reference CLI's own`, `Google's`. */
  owner: string;
  /** The thinking its `-thinking` variant turns on. */
  thinking?: ThinkingSetting;
  effort?: EffortLevel;
  /** Parts of the id cairn has no equivalent for (`-fast`: the reference's faster serving). */
  unapplied: string[];
};

/** The budget a `-thinking` id turns on for Claude models before 4.6 (they take no adaptive thinking). */
export const REFERENCE_THINKING_BUDGET = 10_000;

const EFFORTS: readonly EffortLevel[] = ["low", "medium", "high", "xhigh", "max"];
const EFFORT = "low|medium|high|xhigh|max";
const CLAUDE_FAMILY = "sonnet|opus|haiku|fable|mythos";
const VERSION = String.raw`(\d+)(?:\.(\d+))?`;

/** `sonnet-4.6`, `opus-4.5-thinking`, `sonnet-4`. */
const SHORT_CLAUDE = new RegExp(`^(${CLAUDE_FAMILY})-${VERSION}(-thinking)?$`);
/** `claude-4.6-sonnet-medium-thinking`, `claude-4.6-opus-high-thinking`, `claude-4-sonnet`. */
const VERSION_FIRST_CLAUDE = new RegExp(
  `^claude-${VERSION}-(${CLAUDE_FAMILY})(?:-(${EFFORT}))?(-thinking)?(?:-(${EFFORT}))?(-fast)?$`,
);
/** `claude-opus-4-7-high`, `claude-opus-4-7-thinking-high`, `claude-fable-5-thinking-medium`. */
const FAMILY_FIRST_CLAUDE = new RegExp(
  `^claude-(${CLAUDE_FAMILY})-(\\d+)(?:-(\\d))?(?:-(${EFFORT}))?(-thinking)?(?:-(${EFFORT}))?(-fast)?$`,
);
/** An OpenAI id (`gpt-…`, `o3…`), then an optional effort and `-fast`. */
const OPENAI = new RegExp(`^((?:gpt-|o\\d)[a-z0-9.-]*?)(?:-(${EFFORT}))?(-fast)?$`);
/** `<base>[key=value,…]`: the parameter form of newer lists. */
const PARAMETERS = /^([a-z0-9.-]+)\[([^\]]*)\]$/;

/** Families the reference lists that no cairn provider serves, with whose they are. */
const OTHER_VENDORS: readonly [RegExp, string][] = [
  [/^composer(?:-[a-z0-9.-]+)?$/, "the reference CLI's own"],
  [/^cursor-[a-z0-9.-]+$/, "the reference CLI's own"],
  [/^gemini-[a-z0-9.-]+$/, "Google's"],
  [/^grok(?:-[a-z0-9.-]+)?$/, "xAI's"],
  [/^kimi-[a-z0-9.-]+$/, "Moonshot AI's"],
  [/^deepseek-[a-z0-9.-]+$/, "DeepSeek's"],
];

/** What the reference CLI means by `id`; undefined when it is not one of its ids (a cairn name). */
export function referenceModel(id: string): ReferenceModel | undefined {
  const parameters = PARAMETERS.exec(id);
  if (parameters) return withParameters(id, parameters[1]!, parameters[2]!);
  for (const [pattern, owner] of OTHER_VENDORS) if (pattern.test(id)) return { id, owner, unapplied: [] };

  let match = SHORT_CLAUDE.exec(id);
  if (match) return claude(id, match[1]!, match[2]!, match[3], { thinking: match[4] !== undefined });
  match = VERSION_FIRST_CLAUDE.exec(id);
  if (match) {
    const [, major, minor, family, effortBefore, thinking, effortAfter, fast] = match;
    return claude(id, family!, major!, minor, {
      thinking: thinking !== undefined,
      effort: (effortBefore ?? effortAfter) as EffortLevel | undefined,
      fast: fast !== undefined,
    });
  }
  match = FAMILY_FIRST_CLAUDE.exec(id);
  // Without a suffix it is Anthropic's own id (`claude-opus-4-7`): a cairn name, not the reference's.
  if (match && (match[4] ?? match[5] ?? match[6] ?? match[7]) !== undefined) {
    const [, family, major, minor, effortBefore, thinking, effortAfter, fast] = match;
    return claude(id, family!, major!, minor, {
      thinking: thinking !== undefined,
      effort: (effortBefore ?? effortAfter) as EffortLevel | undefined,
      fast: fast !== undefined,
    });
  }
  match = OPENAI.exec(id);
  if (match) {
    const [, base, effort, fast] = match;
    return {
      id,
      model: `openai/${base}`,
      provider: "openai",
      owner: "OpenAI's",
      ...(effort ? { effort: effort as EffortLevel } : {}),
      unapplied: fast ? ["-fast"] : [],
    };
  }
  return undefined;
}

/**
 * A Claude model by family and version: the catalog's id for it (`sonnet` 4.6 → `claude-sonnet-4-6`,
 * `sonnet` 4 → `claude-sonnet-4-0`), else Anthropic's spelling of it, sent as it is.
 */
function claude(
  id: string,
  family: string,
  major: string,
  minor: string | undefined,
  options: { thinking: boolean; effort?: EffortLevel | undefined; fast?: boolean },
): ReferenceModel {
  const candidates =
    Number(major) < 4
      ? [`claude-${major}-${minor ?? 0}-${family}-latest`, `claude-${major}-${minor ?? 0}-${family}`]
      : minor !== undefined
        ? [`claude-${family}-${major}-${minor}`]
        : [`claude-${family}-${major}`, `claude-${family}-${major}-0`];
  const target = candidates.find((candidate) => findModel(candidate, "anthropic")) ?? candidates[0]!;
  return {
    id,
    model: `anthropic/${target}`,
    provider: "anthropic",
    owner: "Anthropic's",
    ...(options.thinking ? { thinking: thinkingOn(Number(major), Number(minor ?? 0)) } : {}),
    ...(options.effort ? { effort: options.effort } : {}),
    unapplied: options.fast ? ["-fast"] : [],
  };
}

/** Thinking on, as the Claude version takes it: 4.6 and later think adaptively, earlier ones need a budget. */
function thinkingOn(major: number, minor: number): ThinkingSetting {
  return major * 100 + minor >= 406
    ? { type: "adaptive" }
    : { type: "enabled", budgetTokens: REFERENCE_THINKING_BUDGET };
}

/** The version of a Claude id (`claude-opus-4-8` → 4.8, `claude-3-7-sonnet-latest` → 3.7). */
function claudeVersion(id: string): [number, number] {
  const match = /^claude-(?:[a-z]+-)?(\d+)(?:-(\d)(?!\d))?/.exec(id);
  return match ? [Number(match[1]), Number(match[2] ?? 0)] : [0, 0];
}

/** `<base>[effort=high,thinking=true,context=1m]`: the base's reading, with what its parameters say. */
function withParameters(id: string, base: string, list: string): ReferenceModel | undefined {
  const reading = referenceModel(base) ?? plainModel(base);
  if (!reading) return undefined;
  const model: ReferenceModel = { ...reading, id, unapplied: [...reading.unapplied] };
  for (const pair of list.split(",")) {
    const [key = "", value = ""] = pair.split("=").map((part) => part.trim());
    if (key === "effort" && (EFFORTS as readonly string[]).includes(value) && model.provider)
      model.effort = value as EffortLevel;
    else if (key === "thinking" && ["true", "false"].includes(value) && model.provider === "anthropic") {
      if (value === "false") delete model.thinking;
      else model.thinking ??= thinkingOn(...claudeVersion(model.model!.slice("anthropic/".length)));
    } else if (key === "context" && fitsContext(model, value)) {
      // The model's own window is at least that large: nothing to change.
    } else if (pair.trim() !== "") model.unapplied.push(`[${pair.trim()}]`);
  }
  return model;
}

/** `context=1m` (or `200k`) that the target model's catalog window already holds. */
function fitsContext(model: ReferenceModel, value: string): boolean {
  const size = /^(\d+(?:\.\d+)?)([km])$/i.exec(value);
  if (!size || !model.model) return false;
  const tokens = Number(size[1]) * (size[2]!.toLowerCase() === "m" ? 1_000_000 : 1_000);
  const entry = findModel(model.model.slice(model.model.indexOf("/") + 1));
  return entry !== undefined && entry.contextWindow >= tokens;
}

/** Anthropic's own id of a catalog model (`claude-opus-4-8`), as a base of the parameter form. */
function plainModel(base: string): ReferenceModel | undefined {
  const entry = findModel(base, "anthropic");
  if (!entry) return undefined;
  return { id: base, model: `anthropic/${base}`, provider: "anthropic", owner: "Anthropic's", unapplied: [] };
}
