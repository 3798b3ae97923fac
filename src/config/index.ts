/** The config files cairn reads, for every front door: see load.ts and docs/config.md. */
export { ConfigFileError } from "./files.js";
export { type ForeignFile, foreignFiles } from "./foreign.js";
export { type ConfiguredHooks, cursorHookFiles } from "./hooks.js";
export {
  CONFIG_FILE_NAME,
  type LoadConfigOptions,
  type LoadedConfig,
  loadConfig,
  PROJECT_CONFIG_DIR,
} from "./load.js";
export { CAIRN_CONFIG_KEYS, PROJECT_CONFIG_KEYS } from "./schema.js";
