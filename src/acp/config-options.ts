import { RequestError, type SessionConfigOption, type SessionModeState } from "@agentclientprotocol/sdk";
import type { SessionPermissionMode as PermissionMode } from "../permissions/types.js";
import { catalogModels, offeredModelFor } from "../providers/offered-models.js";
import { SESSION_MODES } from "./modes.js";

/** The config option ids cairn offers (ACP `configOptions`): the permission mode and the model. */
export const MODE_OPTION = "mode";
export const MODEL_OPTION = "model";

/**
 * ACP's legacy model selector: `models` on `session/new` / `session/load` and the request
 * `session/set_model`. The pinned ACP SDK (2.4.0) no longer has them — config options replaced
 * them — but clients still read them: acpx falls back to `models` when an agent has no model config
 * option, Zed's own Claude adapter still answers both, opencode-style clients only send
 * `session/set_model`.
 */
export const SET_MODEL_METHOD = "session/set_model";

export type SessionModelState = {
  currentModelId: string;
  availableModels: { modelId: string; name: string; description?: string | null }[];
};

export type SetSessionModelRequest = { sessionId: string; modelId: string };

/** What a session answers besides its id: modes, config options and the legacy model state. */
export type SessionSelectors = {
  modes: SessionModeState;
  configOptions: SessionConfigOption[];
  models: SessionModelState;
};

/**
 * The selectors of a session whose permission mode is `mode` and whose model is `model` (a resolved
 * name). The models are cairn's catalog (the SDK's `supportedModels()` lists the same), plus the
 * session's own model when the catalog does not have it (a local server's, a GGUF file), so the
 * selected value is always one of the options.
 */
export function sessionSelectors(mode: PermissionMode, model: string): SessionSelectors {
  const catalog = catalogModels();
  const current = offeredModelFor(model, catalog);
  const models = catalog.some((entry) => entry.value === current.value) ? catalog : [...catalog, current];
  return {
    modes: { currentModeId: mode, availableModes: SESSION_MODES },
    configOptions: [
      {
        id: MODE_OPTION,
        name: "Mode",
        description: "Which tool calls run without asking (the session's permission mode)",
        category: "mode",
        type: "select",
        currentValue: mode,
        options: SESSION_MODES.map((entry) => ({
          value: entry.id,
          name: entry.name,
          description: entry.description ?? null,
        })),
      },
      {
        id: MODEL_OPTION,
        name: "Model",
        description: "The model of the session's next turns",
        category: "model",
        type: "select",
        currentValue: current.value,
        options: models.map((entry) => ({
          value: entry.value,
          name: entry.displayName,
          description: entry.description,
        })),
      },
    ],
    models: {
      currentModelId: current.value,
      availableModels: models.map((entry) => ({
        modelId: entry.value,
        name: entry.displayName,
        description: entry.description,
      })),
    },
  };
}

/** `session/set_model`'s parameters (the SDK does not know the method, so cairn checks them). */
export function setModelParams(params: unknown): SetSessionModelRequest {
  const { sessionId, modelId } = (params ?? {}) as Record<string, unknown>;
  if (typeof sessionId !== "string" || typeof modelId !== "string") {
    throw RequestError.invalidParams(params, "session/set_model takes { sessionId, modelId } (strings)");
  }
  return { sessionId, modelId };
}
