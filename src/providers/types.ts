// The provider interface is the engine's port (src/engine/provider.ts); re-exported for providers.
export * from "../engine/provider.js";

/** A failure a user can act on (bad model name, missing key, unreadable scenario). CLI exit 2. */
export class ConfigError extends Error {
  override name = "ConfigError";
}
