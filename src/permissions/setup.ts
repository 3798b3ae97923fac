import { loadConfig, rulesFromToolLists } from "./config.js";
import { type AskCallback, createPermissionGate, type PermissionGate } from "./gate.js";
import { splitRuleList, unknownToolWarnings } from "./rules.js";
import type { PermissionMode } from "./types.js";

/** What a front end knows about permissions before a run: flags or SDK options. */
export type PermissionSetup = {
  cwd: string;
  /** The mode from a flag or option; default: the user config's `defaultMode`, else `fallbackMode`. */
  mode?: PermissionMode;
  fallbackMode: PermissionMode;
  /** Rule lists in either spelling; an entry may hold several rules separated by commas/spaces. */
  allowedTools?: readonly string[];
  disallowedTools?: readonly string[];
  /** Extra directories the agent may use (`--add-dir`, `additionalDirectories`). */
  addDirs?: readonly string[];
  onAsk?: AskCallback;
  /** The environment tool children get (its PATH matters to the shell check). */
  env?: NodeJS.ProcessEnv;
  forceHint?: string;
  /** Names the rules' origin in denial messages ("--allowedTools", "options"). */
  source: string;
  /** Tools of the run beyond cairn's built-in ones (custom, MCP): rules may name them. */
  toolNames?: readonly string[];
};

/**
 * Loads the user and project config and builds the gate the engine asks before every tool call.
 * Config warnings (ignored project keys, ...) are returned for the front end to show.
 */
export async function preparePermissionGate(
  setup: PermissionSetup,
): Promise<{ gate: PermissionGate; warnings: string[] }> {
  const config = await loadConfig({ cwd: setup.cwd, ...(setup.env ? { env: setup.env } : {}) });
  const split = (list: readonly string[] | undefined) => list?.flatMap((entry) => splitRuleList(entry));
  const allowedTools = split(setup.allowedTools);
  const disallowedTools = split(setup.disallowedTools);
  const rules = [
    ...config.rules,
    ...rulesFromToolLists(
      { ...(allowedTools ? { allowedTools } : {}), ...(disallowedTools ? { disallowedTools } : {}) },
      setup.source,
    ),
  ];
  const gate = createPermissionGate({
    mode: setup.mode ?? config.defaultMode ?? setup.fallbackMode,
    rules,
    workspace: setup.cwd,
    additionalDirs: [...(setup.addDirs ?? []), ...config.additionalDirectories],
    ...(setup.onAsk ? { onAsk: setup.onAsk } : {}),
    ...(setup.env ? { env: setup.env } : {}),
    ...(setup.forceHint ? { forceHint: setup.forceHint } : {}),
  });
  return { gate, warnings: [...config.warnings, ...unknownToolWarnings(rules, setup.toolNames)] };
}
