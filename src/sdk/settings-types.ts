import type { ClaudeHooks } from "../config/hooks.js";
import type { SettingSource } from "../config/setting-sources.js";
import type { PermissionMode } from "./messages.js";

/**
 * The convention's settings types (docs/sdk.md, "Settings"): the `settings` / `managedSettings` /
 * `sandbox` options, and what `resolveSettings()` answers.
 */

/**
 * The `sandbox` option (docs/security.md, "SDK sandbox settings", has every key): cairn applies the
 * mode, `filesystem.allowWrite` / `denyRead` / `denyWrite`, `credentials` with mode `deny`,
 * `bwrapPath` and its own `network.allowAll`; refuses what it cannot honour without leaving a path or
 * secret unprotected; names the rest in a warning.
 */
export type SandboxSettings = {
  enabled?: boolean;
  failIfUnavailable?: boolean;
  autoAllowBashIfSandboxed?: boolean;
  allowUnsandboxedCommands?: boolean;
  network?: SandboxNetworkConfig;
  filesystem?: SandboxFilesystemConfig;
  credentials?: SandboxCredentialsConfig;
  ignoreViolations?: Record<string, string[]>;
  enableWeakerNestedSandbox?: boolean;
  allowNestedUserNamespaces?: boolean;
  enableWeakerNetworkIsolation?: boolean;
  allowAppleEvents?: boolean;
  excludedCommands?: string[];
  ripgrep?: { command: string; args?: string[] };
  bwrapPath?: string;
  socatPath?: string;
};
export type SandboxNetworkConfig = {
  /** cairn's own key: commands get the network (cairn cannot filter by domain). */
  allowAll?: boolean;
  allowedDomains?: string[];
  deniedDomains?: string[];
  strictAllowlist?: boolean;
  allowManagedDomainsOnly?: boolean;
  allowUnixSockets?: string[];
  allowAllUnixSockets?: boolean;
  allowLocalBinding?: boolean;
  allowMachLookup?: string[];
  httpProxyPort?: number;
  socksProxyPort?: number;
  tlsTerminate?: { caCertPath: string; caKeyPath: string };
};
export type SandboxFilesystemConfig = {
  allowWrite?: string[];
  denyWrite?: string[];
  denyRead?: string[];
  allowRead?: string[];
  allowManagedReadPathsOnly?: boolean;
  disabled?: boolean;
};
export type SandboxCredentialsConfig = {
  files?: unknown[];
  envVars?: unknown[];
  allowPlaintextInject?: boolean;
  awsPairs?: unknown[];
  sigv4?: Record<string, unknown>;
};
export type SandboxIgnoreViolations = NonNullable<SandboxSettings["ignoreViolations"]>;

/**
 * A settings file's contents. The convention's `Settings` has 185 top-level keys; the ones below
 * are typed (those cairn reads, docs/config.md, and the convention's most used ones), and the rest
 * are open so any settings object of the convention fits. cairn's own config keys (`mcpServers`,
 * `mcpApprovals`, `trustedWorkspaces`, `contextWindow`, `compactThreshold`) are among them.
 */
export interface Settings {
  $schema?: string;
  permissions?: {
    allow?: string[];
    deny?: string[];
    ask?: string[];
    defaultMode?: PermissionMode;
    additionalDirectories?: string[];
    disableBypassPermissionsMode?: "disable";
    [key: string]: unknown;
  };
  hooks?: ClaudeHooks;
  model?: string;
  fallbackModel?: string[];
  availableModels?: string[];
  deniedModels?: string[];
  env?: { [name: string]: string };
  apiKeyHelper?: string;
  sandbox?: SandboxSettings;
  outputStyle?: string;
  effortLevel?: "low" | "medium" | "high" | "xhigh" | "max";
  agent?: string;
  enabledPlugins?: Record<string, unknown>;
  autoCompactEnabled?: boolean;
  cleanupPeriodDays?: number;
  includeCoAuthoredBy?: boolean;
  mcpServers?: Record<string, unknown>;
  mcpApprovals?: Record<string, string[]>;
  trustedWorkspaces?: string[];
  contextWindow?: number;
  compactThreshold?: number;
  [key: string]: unknown;
}

/** Where an effective setting came from: a `SettingSource`, the policy tier or the flag tier. */
export type ResolvedSettingSource = SettingSource | "managed" | "flag";
/** Where the policy tier was read from (cairn has no policy tier: never set). */
export type PolicySettingsOrigin = "helper" | "remote" | "plist" | "hklm" | "file" | "parent" | "hkcu";
export type ProvenanceEntry = {
  source: ResolvedSettingSource;
  path?: string;
  policyOrigin?: PolicySettingsOrigin;
};

export type ResolveSettingsOptions = {
  /** The workspace (default: `process.cwd()`). */
  cwd?: string;
  /** Which files load (default: all three), as for `query()`. */
  settingSources?: SettingSource[];
  /** cairn has no policy tier: not applied, with a process warning (`CAIRN_NO_POLICY_TIER`). */
  managedSettings?: Settings;
  /** As `managedSettings`. */
  serverManagedSettings?: Settings;
  /** As `managedSettings` (Windows registry policy). */
  registryPolicyFingerprint?: () => { hklm: string | null; hkcu: string | null } | undefined;
};

export type ResolvedSettings = {
  /** What cairn applies, merged from every file the sources load. */
  effective: Settings;
  /** Per top-level key of `effective`: the file that set it (the last one, for merged lists). */
  provenance: Partial<Record<keyof Settings, ProvenanceEntry>>;
  /** Every settings file that exists, in load order, as written. */
  sources: Array<{
    source: ResolvedSettingSource;
    settings: Settings;
    path?: string;
    policyOrigin?: PolicySettingsOrigin;
  }>;
  machinePolicy?: {
    didNotLoad: false | Array<"profile" | "registry" | "file">;
    registryPolicyDifferedFromFingerprint?: true;
  };
};

/** `matchDeniedModels()`: one flag per model, and a note per entry or model it could not use. */
export type DeniedModelsMatch = { denied: boolean[]; warnings: string[] };
