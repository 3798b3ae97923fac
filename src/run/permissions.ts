import type { LoadedConfig } from "../config/load.js";
import { type AskCallback, createPermissionGate, type PermissionGate } from "../permissions/gate.js";
import { splitRuleList, unknownToolWarnings } from "../permissions/rules.js";
import { rulesFromToolLists } from "../permissions/tool-lists.js";
import type { PermissionMode, PermissionRule } from "../permissions/types.js";
import type { ToolDeclaration } from "../tools/types.js";

/** What a front door knows about permissions before a run: flags or SDK options. */
export type PermissionSetup = {
  /** The mode from a flag or option; default: the user config's `defaultMode`, else `fallbackMode`. */
  mode?: PermissionMode;
  fallbackMode: PermissionMode;
  /**
   * The name reported (system/init, transcript) when `fallbackMode` is what runs. Print mode runs
   * `acceptEdits` semantics when nothing was chosen and calls it `default`, as the reference CLI does.
   */
  fallbackReportedAs?: string;
  /** Rule lists in either spelling; an entry may hold several rules separated by commas/spaces. */
  allowedTools?: readonly string[];
  disallowedTools?: readonly string[];
  /** Extra directories the agent may use (`--add-dir`, `additionalDirectories`). */
  addDirs?: readonly string[];
  onAsk?: AskCallback;
  forceHint?: string;
  /** Names the rules' origin in denial messages ("--allowedTools", "options"). */
  source: string;
  /** Rules besides the lists, each naming its own source (the SDK's `settings` and sandbox deny lists). */
  rules?: readonly PermissionRule[];
};

export type BuiltGate = {
  gate: PermissionGate;
  /** Rules that name no tool of this run, one line each (reported once, never silently dropped). */
  warnings: string[];
  /** The mode to report: read from what the gate enforces, never recomputed elsewhere. */
  reportedMode: string;
};

/**
 * The gate the engine asks before every tool call, from the loaded config and a front door's setup.
 * `env` is the tool children's environment (its PATH matters to the shell check); `tools` the run's
 * tools, whose declared effects the rules apply to (see `PermissionGateOptions.tools`).
 */
export function buildPermissionGate(
  config: LoadedConfig,
  setup: PermissionSetup,
  cwd: string,
  env: NodeJS.ProcessEnv,
  tools: readonly ToolDeclaration[],
): BuiltGate {
  const split = (list: readonly string[] | undefined) => list?.flatMap((entry) => splitRuleList(entry));
  const allowedTools = split(setup.allowedTools);
  const disallowedTools = split(setup.disallowedTools);
  const chosen = setup.mode ?? config.defaultMode;
  const rules = [
    ...config.rules,
    ...rulesFromToolLists(
      { ...(allowedTools ? { allowedTools } : {}), ...(disallowedTools ? { disallowedTools } : {}) },
      setup.source,
    ),
    ...(setup.rules ?? []),
  ];
  const gate = createPermissionGate({
    mode: chosen ?? setup.fallbackMode,
    rules,
    workspace: cwd,
    additionalDirs: [...(setup.addDirs ?? []), ...config.additionalDirectories],
    ...(setup.onAsk ? { onAsk: setup.onAsk } : {}),
    env,
    ...(setup.forceHint ? { forceHint: setup.forceHint } : {}),
    tools,
  });
  const reportedMode = chosen ?? setup.fallbackReportedAs ?? setup.fallbackMode;
  const warnings = unknownToolWarnings(
    rules,
    tools.map((tool) => tool.name),
  );
  return { gate, reportedMode, warnings };
}
