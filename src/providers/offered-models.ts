import { groupDigits } from "../util/group-digits.js";
import { MODEL_CATALOG } from "./catalog.js";
import { DEFAULT_MODEL_NAMES, parseModelName } from "./model-names.js";

/**
 * A model as a door offers it for picking (the SDK's `supportedModels()`, the ACP model selector):
 * `value` is a name every door takes back as it is (`options.model`, `setModel()`, `--model`,
 * `session/set_config_option`).
 */
export type OfferedModel = { value: string; displayName: string; description: string };

/**
 * `default`: whatever the configuration picks (`CAIRN_MODEL`, the user config's `model`, else the
 * first provider with a key). First in the SDK's list, as Claude Code's `default` is first in its
 * own: programs that take the first entry (Zed's adapter calls `setModel()` with it on every new
 * session) keep the user's configured model rather than switching to the catalog's first row.
 */
export const DEFAULT_MODEL_CHOICE: OfferedModel = {
  value: "default",
  displayName: "Default",
  description:
    "The configured default model: CAIRN_MODEL, else the user config's model, else the default model of the first provider with a key",
};

/** cairn's catalog, one entry per model, named `provider/id`. */
export function catalogModels(): OfferedModel[] {
  return MODEL_CATALOG.map((entry) => ({
    value: `${entry.provider}/${entry.id}`,
    displayName: entry.displayName,
    description: `${entry.displayName}: ${groupDigits(entry.contextWindow)}-token context, up to ${groupDigits(entry.maxOutput)} output tokens`,
  }));
}

/**
 * The entry for a resolved model name: the catalog's own when the name is one of its models under
 * another spelling (`claude-sonnet-5-5`, `sonnet` → `anthropic/claude-sonnet-5-5`), else an entry
 * for the name as it is (`ollama/qwen3`, `local:model.gguf`), so a picker can show any model that runs.
 */
export function offeredModelFor(
  name: string,
  catalog: readonly OfferedModel[] = catalogModels(),
): OfferedModel {
  if (!DEFAULT_MODEL_NAMES.includes(name)) {
    try {
      const { provider, id } = parseModelName(name);
      const listed = catalog.find((model) => model.value === `${provider}/${id}`);
      if (listed) return listed;
    } catch {
      // Not a name cairn parses: shown as given.
    }
  }
  return { value: name, displayName: name, description: `${name} (not in cairn's catalog)` };
}
