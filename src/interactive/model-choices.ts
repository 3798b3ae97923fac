import { providerStatus } from "../providers/models-text.js";
import { catalogModels, DEFAULT_MODEL_CHOICE, offeredModelFor } from "../providers/offered-models.js";
import type { PickerItem } from "./list-picker.js";

/**
 * `/model`'s picker: `default`, then the catalog's models (the SDK's `supportedModels()` list) of
 * the providers configured in this environment (a key, or a local server's address) and of the
 * current model's provider (its key may come from `--api-key`), then the current model when the
 * catalog does not have it (a local server's). The current one is marked and picked first.
 */
export function modelChoices(
  current: string,
  env: NodeJS.ProcessEnv,
): { items: PickerItem<string>[]; start: number } {
  const catalog = catalogModels();
  const now = offeredModelFor(current, catalog);
  const configured = new Set(
    providerStatus(env)
      .filter((provider) => provider.configured)
      .map((provider) => provider.provider),
  );
  configured.add(now.value.split("/")[0]!);
  const offered = [
    DEFAULT_MODEL_CHOICE,
    ...catalog.filter((model) => configured.has(model.value.split("/")[0]!)),
  ];
  if (!offered.some((model) => model.value === now.value)) offered.push(now);
  const items = offered.map((model) => ({
    label: `${model.value === now.value ? "● " : "  "}${model.value}`,
    detail: model.value === now.value ? `${model.displayName} (current)` : model.displayName,
    value: model.value,
  }));
  return {
    items,
    start: Math.max(
      0,
      items.findIndex((item) => item.value === now.value),
    ),
  };
}
