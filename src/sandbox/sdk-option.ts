import os from "node:os";
import path from "node:path";
import { domainPatternProblem } from "./domain-policy.js";
import { resolveSandboxPolicy, type SandboxPolicy, type SandboxSettings } from "./policy.js";

/**
 * The SDK's `sandbox` option, in the convention's `SandboxSettings` shape, as cairn's settings. Every
 * key is applied, refused, or named in one warning (docs/security.md, "SDK sandbox settings", has
 * the table):
 *
 * - applied: `enabled` / `failIfUnavailable` (the mode: `enabled: false` → `disabled`, with
 *   `failIfUnavailable: true` → `enabled`, `enabled: true` → `auto`, said once where it cannot run;
 *   no `enabled` → no mode, silent, unless a deny list is set: then `auto`, as the deny depends on
 *   it), `filesystem.allowWrite`, `denyWrite`, `denyRead`, `credentials.files` and
 *   `credentials.envVars` with mode `deny`, `bwrapPath`, cairn's own `network.allowAll`, and
 *   `network.allowedDomains` / `deniedDomains` (through cairn's proxy; `strictAllowlist` is what
 *   cairn does anyway);
 * - refused (an error): what would leave the user believing in a protection cairn cannot give — a
 *   glob in a deny list, masking or re-signing credentials, a domain list or proxy on a network
 *   `allowAll` opens, a domain pattern that is not one;
 * - warned about: what would loosen the sandbox (cairn's stays as strict) or configures what cairn's
 *   sandbox does not have.
 */
export type SdkSandboxMapping = {
  settings: SandboxSettings;
  /** Keys not applied, each with the reason, for one warning. */
  ignored: string[];
  /** Keys that cannot be honoured, each with the reason: the query is refused. */
  refused: { key: string; reason: string }[];
};

export type SdkSandboxContext = {
  /** Relative paths resolve against it (the query's `cwd`). */
  cwd: string;
  home?: string;
};

/** Keys whose only effect would be a weaker sandbox than cairn's: cairn's stays as it is. */
const LOOSENING: Record<string, string> = {
  autoAllowBashIfSandboxed: "commands still go through the permission checks",
  allowUnsandboxedCommands: "no command runs outside the sandbox",
  excludedCommands: "every command runs in the sandbox",
  ignoreViolations: "cairn reports no violations to ignore",
  enableWeakerNestedSandbox: "cairn's sandbox is not weakened",
  allowNestedUserNamespaces: "cairn's sandbox is not weakened",
  enableWeakerNetworkIsolation: "cairn's sandbox is not weakened",
  allowAppleEvents: "cairn's sandbox runs on Linux only",
  ripgrep: "cairn's sandbox does not use it",
  socatPath: "cairn's sandbox bridges to its proxy with node, not socat",
};

/**
 * Network keys that restrict what `allowAll` would open: with it, cairn refuses them (the network
 * would be open whole); without it, the domain lists are applied (network-proxy.ts).
 */
const NETWORK_FILTERS = new Set([
  "allowedDomains",
  "deniedDomains",
  "strictAllowlist",
  "allowManagedDomainsOnly",
  "httpProxyPort",
  "socksProxyPort",
  "tlsTerminate",
]);

/** Network filters cairn does not apply (without `allowAll`), with the reason. */
const NETWORK_NOT_APPLIED: Record<string, string> = {
  allowManagedDomainsOnly: "cairn has no managed settings; the domain lists apply as given",
  httpProxyPort: "sandboxed commands go through cairn's own proxy, which applies the domain lists",
  socksProxyPort: "sandboxed commands go through cairn's own proxy, which applies the domain lists",
  tlsTerminate: "cairn's proxy does not look inside TLS; it decides by host name",
};

export function sandboxSettingsFromSdk(
  option: Record<string, unknown> | undefined,
  context: SdkSandboxContext = { cwd: process.cwd() },
): SdkSandboxMapping {
  const out: SdkSandboxMapping = { settings: {}, ignored: [], refused: [] };
  if (!option) return out;
  const { settings } = out;
  if (option.enabled === false) settings.mode = "disabled";
  else if (option.enabled === true) settings.mode = option.failIfUnavailable === true ? "enabled" : "auto";
  for (const [key, value] of Object.entries(option)) {
    if (value === undefined || key === "enabled" || key === "failIfUnavailable") continue;
    if (key === "filesystem" && isRecord(value)) mapFilesystem(value, context, out);
    else if (key === "network" && isRecord(value)) mapNetwork(value, out);
    else if (key === "credentials" && isRecord(value)) mapCredentials(value, context, out);
    else if (key === "bwrapPath" && typeof value === "string") {
      if (path.isAbsolute(value)) settings.bwrapPath = value;
      else out.refused.push({ key, reason: "it must be an absolute path" });
    } else if (key === "allowUnsandboxedCommands" && value === false) {
      // What cairn does anyway: no command leaves the sandbox.
    } else if (key in LOOSENING) out.ignored.push(`${key} (${LOOSENING[key]})`);
    else out.ignored.push(`${key} (not a sandbox setting cairn knows)`);
  }
  // Whether a deny (or a domain list) holds for every shell command depends on the sandbox: the
  // user is told if not.
  const denies =
    (settings.readDenied?.length ?? 0) +
      (settings.writeDenied?.length ?? 0) +
      (settings.allowedDomains?.length ?? 0) +
      (settings.deniedDomains?.length ?? 0) >
    0;
  if (settings.mode === undefined && denies) settings.mode = "auto";
  return out;
}

function mapFilesystem(value: Record<string, unknown>, context: SdkSandboxContext, out: SdkSandboxMapping) {
  const { settings } = out;
  for (const [key, entry] of Object.entries(value)) {
    if (entry === undefined) continue;
    const name = `filesystem.${key}`;
    if (key === "allowWrite" && isStringList(entry)) settings.extraWritable = entry;
    else if (key === "denyRead" && isStringList(entry)) {
      const paths = denyPaths(name, entry, context, out);
      settings.readDenied = [...(settings.readDenied ?? []), ...paths];
    } else if (key === "denyWrite" && isStringList(entry))
      settings.writeDenied = denyPaths(name, entry, context, out);
    else if (key === "allowRead") out.ignored.push(`${name} (what denyRead names stays unreadable)`);
    else if (key === "allowManagedReadPathsOnly") out.ignored.push(`${name} (cairn has no managed settings)`);
    else if (key === "disabled") {
      if (entry === true) out.ignored.push(`${name} (the sandbox's file system rules stay on)`);
    } else out.ignored.push(`${name} (not a sandbox setting cairn knows)`);
  }
}

function mapNetwork(value: Record<string, unknown>, out: SdkSandboxMapping) {
  const open = value.allowAll === true;
  for (const [key, entry] of Object.entries(value)) {
    if (entry === undefined) continue;
    const name = `network.${key}`;
    if (key === "allowAll" && typeof entry === "boolean") out.settings.network = entry;
    else if (NETWORK_FILTERS.has(key) && open)
      out.refused.push({
        key: name,
        reason:
          "allowAll opens the whole network, which this setting would restrict; leave allowAll out to have the domain lists applied",
      });
    else if ((key === "allowedDomains" || key === "deniedDomains") && isStringList(entry)) {
      const domains = domainPatterns(name, entry, out);
      if (key === "allowedDomains") out.settings.allowedDomains = domains;
      else out.settings.deniedDomains = domains;
    } else if (key === "strictAllowlist") {
      // What cairn does anyway: a host no allowed domain names is refused, never asked about.
      if (entry !== true) out.ignored.push(`${name} (cairn never asks about a host: it refuses it)`);
    } else if (key in NETWORK_NOT_APPLIED) out.ignored.push(`${name} (${NETWORK_NOT_APPLIED[key]})`);
    else
      out.ignored.push(
        `${name} (the network stays ${open ? "open" : "as the domain lists say"}, unix sockets of the host hidden)`,
      );
  }
}

/** A domain list's patterns; one that is not a domain pattern is refused, naming it. */
function domainPatterns(name: string, entries: readonly string[], out: SdkSandboxMapping): string[] {
  entries.forEach((entry, index) => {
    const problem = domainPatternProblem(entry);
    if (problem) out.refused.push({ key: `${name}.${index}`, reason: problem });
  });
  return entries.filter((entry) => domainPatternProblem(entry) === undefined);
}

function mapCredentials(value: Record<string, unknown>, context: SdkSandboxContext, out: SdkSandboxMapping) {
  const { settings } = out;
  const cannotMask = "cairn cannot mask or inject credentials; only mode deny is applied";
  for (const [key, entry] of Object.entries(value)) {
    if (entry === undefined) continue;
    const name = `credentials.${key}`;
    if (key === "files" && Array.isArray(entry)) {
      entry.forEach((file: unknown, index) => {
        const spec = isRecord(file) ? file : {};
        if (spec.mode !== "deny" || typeof spec.path !== "string")
          out.refused.push({ key: `${name}.${index}`, reason: cannotMask });
        else {
          const paths = denyPaths(`${name}.${index}.path`, [spec.path], context, out);
          settings.readDenied = [...(settings.readDenied ?? []), ...paths];
        }
      });
    } else if (key === "envVars" && Array.isArray(entry)) {
      entry.forEach((variable: unknown, index) => {
        const spec = isRecord(variable) ? variable : {};
        if (spec.mode !== "deny" || typeof spec.name !== "string")
          out.refused.push({ key: `${name}.${index}`, reason: cannotMask });
        else settings.deniedEnv = [...(settings.deniedEnv ?? []), spec.name];
      });
    } else if (key === "allowPlaintextInject") out.ignored.push(`${name} (cairn injects no credentials)`);
    else if (key === "awsPairs" || key === "sigv4") out.refused.push({ key: name, reason: cannotMask });
    else out.ignored.push(`${name} (not a sandbox setting cairn knows)`);
  }
}

/**
 * A deny list's entries as absolute paths: `~/` is the home directory, `//x` and `/x` are absolute,
 * anything else is relative to the query's `cwd`. A glob cannot be applied exactly (bubblewrap
 * mounts paths, not patterns): refused, naming the entry.
 */
function denyPaths(
  name: string,
  entries: readonly string[],
  context: SdkSandboxContext,
  out: SdkSandboxMapping,
): string[] {
  const home = context.home ?? os.homedir();
  const paths: string[] = [];
  entries.forEach((entry, index) => {
    if (/[*?[\]{}]/.test(entry) || entry.trim() === "") {
      out.refused.push({
        key: `${name}.${index}`,
        reason: `${JSON.stringify(entry)} is not a path: glob patterns cannot be applied; name each file or directory`,
      });
      return;
    }
    const expanded = entry === "~" ? home : entry.startsWith("~/") ? path.join(home, entry.slice(2)) : entry;
    paths.push(path.resolve(context.cwd, expanded));
  });
  return paths;
}

/** One warning naming what `sandboxSettingsFromSdk` could not apply. */
export function ignoredSandboxKeysWarning(ignored: readonly string[]): string | undefined {
  if (ignored.length === 0) return undefined;
  return `sandbox: not applied: ${ignored.join(", ")} (see docs/security.md, "Sandbox")`;
}

/** The first refusal as one line, or undefined. */
export function refusedSandboxKey(mapping: SdkSandboxMapping): string | undefined {
  const first = mapping.refused[0];
  return first ? `sandbox.${first.key}: ${first.reason}` : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((entry) => typeof entry === "string");
}

/**
 * The SDK `sandbox` option (with the config files' domain lists) resolved for a query: the policy,
 * and the warnings to show once. A deny
 * list without the OS sandbox (turned off, or bubblewrap cannot run here) holds for cairn's own
 * tools but not for every shell command: a warning says so, plainly.
 */
export async function sdkSandboxPolicy(
  option: Record<string, unknown> | undefined,
  roots: readonly string[],
  env: NodeJS.ProcessEnv,
  cwd: string = roots[0] ?? process.cwd(),
  configured: { allowed: readonly string[]; denied: readonly string[] } = { allowed: [], denied: [] },
): Promise<{ policy: SandboxPolicy; warnings: string[] }> {
  const mapping = sandboxSettingsFromSdk(option, { cwd });
  const refused = refusedSandboxKey(mapping);
  if (refused) throw new SandboxSettingError(refused);
  // The config files' domain lists (docs/config.md) join the option's.
  const { settings } = mapping;
  const allowedDomains = [...(settings.allowedDomains ?? []), ...configured.allowed];
  const deniedDomains = [...(settings.deniedDomains ?? []), ...configured.denied];
  const { policy, warning } = await resolveSandboxPolicy(
    {
      ...settings,
      ...(allowedDomains.length > 0 ? { allowedDomains } : {}),
      ...(deniedDomains.length > 0 ? { deniedDomains } : {}),
    },
    { roots, env },
  );
  return {
    policy,
    warnings: [ignoredSandboxKeysWarning(mapping.ignored), warning, unconfinedDenials(policy)].filter(
      (w) => w !== undefined,
    ),
  };
}

/** A sandbox setting cairn cannot honour (`sandbox.<key>: <why>`). */
export class SandboxSettingError extends Error {
  override name = "SandboxSettingError";
}

function unconfinedDenials(policy: SandboxPolicy): string | undefined {
  if (policy.mode !== "disabled") return undefined;
  const named = [
    ...(policy.readDenied.length > 0 ? ["filesystem.denyRead"] : []),
    ...(policy.writeDenied.length > 0 ? ["filesystem.denyWrite"] : []),
  ];
  if (named.length === 0) return undefined;
  return `sandbox: without the command sandbox, ${named.join(" and ")} hold for Read, Grep, Glob, LS, Edit and Write and for the shell commands the permission checker reads, not for every shell command (a script can still reach those paths)`;
}
