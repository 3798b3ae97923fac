import { resolveSandboxPolicy, type SandboxPolicy, type SandboxSettings } from "./policy.js";

/**
 * The SDK's `sandbox` option, in the convention's `SandboxSettings` shape, as cairn's settings:
 * - `enabled: false` → `disabled`; `enabled: true` with `failIfUnavailable: true` → `enabled`
 *   (the query fails where bubblewrap cannot run); `enabled: true` → `auto` (fallback with a
 *   warning); no `enabled` → no mode (the default: fallback without a word);
 * - `filesystem.allowWrite` → extra writable directories;
 * - `network.allowAll: true` (cairn's own key) → commands get the network. cairn cannot filter by
 *   domain: `allowedDomains` and the other network keys leave the network off, and say so.
 * Every other key is reported in `ignored`, with the reason, for one warning.
 */
export function sandboxSettingsFromSdk(option: Record<string, unknown> | undefined): {
  settings: SandboxSettings;
  ignored: string[];
} {
  if (!option) return { settings: {}, ignored: [] };
  const ignored: string[] = [];
  const settings: SandboxSettings = {};
  if (option.enabled === false) settings.mode = "disabled";
  else if (option.enabled === true) settings.mode = option.failIfUnavailable === true ? "enabled" : "auto";
  for (const [key, value] of Object.entries(option)) {
    if (value === undefined || key === "enabled" || key === "failIfUnavailable") continue;
    if (key === "network" && isRecord(value)) {
      for (const [networkKey, networkValue] of Object.entries(value)) {
        if (networkKey === "allowAll" && typeof networkValue === "boolean") settings.network = networkValue;
        else ignored.push(`network.${networkKey} (no domain filtering: network is all or nothing)`);
      }
    } else if (key === "filesystem" && isRecord(value)) {
      for (const [fsKey, fsValue] of Object.entries(value)) {
        if (fsKey === "allowWrite" && isStringList(fsValue)) settings.extraWritable = fsValue;
        else ignored.push(`filesystem.${fsKey}`);
      }
    } else ignored.push(key);
  }
  return { settings, ignored };
}

/** One warning naming what `sandboxSettingsFromSdk` could not apply. */
export function ignoredSandboxKeysWarning(ignored: readonly string[]): string | undefined {
  if (ignored.length === 0) return undefined;
  return `sandbox: ${ignored.join(", ")} not supported by cairn; ignored (see docs/security.md, "Sandbox")`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((entry) => typeof entry === "string");
}

/** The SDK `sandbox` option resolved for a query: the policy, and the warnings to show once. */
export async function sdkSandboxPolicy(
  option: Record<string, unknown> | undefined,
  roots: readonly string[],
  env: NodeJS.ProcessEnv,
): Promise<{ policy: SandboxPolicy; warnings: string[] }> {
  const { settings, ignored } = sandboxSettingsFromSdk(option);
  const { policy, warning } = await resolveSandboxPolicy(settings, { roots, env });
  return { policy, warnings: [ignoredSandboxKeysWarning(ignored), warning].filter((w) => w !== undefined) };
}
