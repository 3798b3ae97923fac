import { realpathSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { resolveCairnHome } from "../permissions/home.js";
import { findOnPath } from "../tools/process-group.js";
import { randomUuid } from "../util/random-id.js";
import type { DomainPolicy } from "./domain-policy.js";
import { bridgeNode } from "./network-bridge.js";
import { type SandboxProxy, sandboxProxy } from "./network-proxy.js";
import { isInsideOrSame, type SandboxPaths, sandboxPaths } from "./paths.js";
import { probeBwrap } from "./probe.js";

/**
 * - `enabled`: every shell command runs under bubblewrap; a run where it cannot is refused.
 * - `disabled`: commands run with the permission checker alone.
 * - `auto`: enabled where bubblewrap works, else the checker alone, said once (with the reason).
 * No mode at all (the default) is `auto` that says nothing: only a user who asked for the sandbox
 * is told it is not there, and a plain run prints nothing on stderr (docs/security.md, "Sandbox").
 */
export const SANDBOX_MODES = ["auto", "enabled", "disabled"] as const;
export type SandboxMode = (typeof SANDBOX_MODES)[number];

/** What a user sets (CLI flags, SDK `sandbox`, config): see docs/security.md, "Sandbox". */
export type SandboxSettings = {
  mode?: SandboxMode;
  /** Commands may use the network (default: no network at all, loopback included). */
  network?: boolean;
  /**
   * Without `network`: the hosts commands may reach over HTTP(S), through cairn's proxy
   * (`--sandbox-allow-domain`, `sandbox.network.allowedDomains`; domain-policy.ts has the patterns).
   */
  allowedDomains?: readonly string[];
  /** Hosts refused even when an allowed pattern names them (`sandbox.network.deniedDomains`). */
  deniedDomains?: readonly string[];
  /** Writable besides the workspace and the `--add-dir` directories (protected paths still are not). */
  extraWritable?: readonly string[];
  /**
   * Absolute paths nothing of the run reads (SDK `filesystem.denyRead`, `credentials.files`): empty
   * in the sandbox, refused by the file tools whatever the mode (denied-paths.ts).
   */
  readDenied?: readonly string[];
  /** Absolute paths nothing of the run writes (SDK `filesystem.denyWrite`): read-only, refused likewise. */
  writeDenied?: readonly string[];
  /** Environment variables shell commands do not get (SDK `credentials.envVars` with mode `deny`). */
  deniedEnv?: readonly string[];
  /** The bubblewrap to use instead of the one on PATH (SDK `bwrapPath`); never one the agent can write. */
  bwrapPath?: string;
};

/** The sandbox that applies to a run's commands, resolved once per run (ToolContext.sandbox). */
export type SandboxPolicy = {
  /**
   * `enabled`: commands run under bubblewrap at `bwrapPath`. `disabled`: the checker alone.
   * `auto` (no mode set): bubblewrap is probed when the first command needs it; `sandboxRunner`
   * waits for that.
   */
  mode: "enabled" | "disabled" | "auto";
  bwrapPath?: string;
  /**
   * `auto` only: probes bubblewrap on the first call (the first command that would run under it) and
   * gives its path once it is known to work, undefined for the fallback. A run that starts no
   * process never probes.
   */
  probe?: () => Promise<string | undefined>;
  /** `auto` only: the probe if it was started (a run waits for it before it ends: no stray child). */
  probeStarted?: () => Promise<string | undefined> | undefined;
  /** Absolute, lexical and real forms: the workspace, `--add-dir` directories, `extraWritable`. */
  writableRoots: string[];
  protectedPaths: string[];
  hiddenPaths: string[];
  network: boolean;
  /**
   * Without `network`, when domains are allowed: the proxy commands reach them through (started by
   * the first command, closed with the run), and the node that runs the bridge to it in the sandbox.
   */
  proxy?: SandboxProxy;
  bridgeNode?: string;
  /**
   * Without `network`, when a domain list is given: the list itself (domain-policy.ts), for what
   * else reaches the network on the run's behalf (cairn's web tools) to decide as the proxy does.
   */
  domains?: DomainPolicy;
  /**
   * Paths the run must not read, or write, in their lexical and real forms: hidden (read-only) in the
   * sandbox, and refused by the file tools in every mode, `disabled` included (denied-paths.ts).
   */
  readDenied: string[];
  writeDenied: string[];
  /** Variables removed from the environment of shell commands, in every mode. */
  deniedEnv: string[];
  /**
   * Set in the environment of every process a command starts (`CAIRN_RUN_TAG`), so the processes
   * still running when the run ends can be found and stopped (see run-processes.ts).
   */
  runTag: string;
};

export class SandboxUnavailableError extends Error {
  override name = "SandboxUnavailableError";
}

export type SandboxContext = {
  /** The workspace first, then the other directories the agent may write (the gate's roots). */
  roots: readonly string[];
  env: NodeJS.ProcessEnv;
  home?: string;
  platform?: NodeJS.Platform;
};

/**
 * Resolves the settings into the run's policy. `warning` says why an `auto` the user asked for fell
 * back to the checker alone; throws SandboxUnavailableError when `enabled` cannot be honoured. Both
 * are known before the run starts, whatever it then does: the answer never depends on whether, or
 * when, a command runs. With no mode set nothing is said, so nothing needs to be known before the
 * run: bubblewrap is probed (about 10 ms: a process creating namespaces) when the first command
 * needs it, and a run without commands never pays for it.
 */
export async function resolveSandboxPolicy(
  settings: SandboxSettings,
  context: SandboxContext,
): Promise<{ policy: SandboxPolicy; warning?: string }> {
  const resolved = await resolvePolicy(settings, context);
  // Only a config file's list can meet an open network (the flags and the SDK refuse both at once).
  const listed = (settings.allowedDomains?.length ?? 0) + (settings.deniedDomains?.length ?? 0) > 0;
  if (!settings.network || !listed) return resolved;
  const opened =
    "sandbox: the network is open to sandboxed commands (--sandbox-network, network.allowAll), so the domain list of the config (sandbox.network) is not applied";
  return { ...resolved, warning: resolved.warning ? `${resolved.warning}; ${opened}` : opened };
}

async function resolvePolicy(
  settings: SandboxSettings,
  context: SandboxContext,
): Promise<{ policy: SandboxPolicy; warning?: string }> {
  const { env } = context;
  const home = context.home ?? os.homedir();
  const given = [...context.roots, ...(settings.extraWritable ?? []).map((dir) => expandHome(dir, home))];
  // Only existing directories can be bound (a missing --add-dir would make every command fail).
  const existing = given.map((dir) => path.resolve(dir)).filter(isDirectory);
  const writableRoots = [...new Set(existing.flatMap((dir) => [dir, realOrSelf(dir)]))];
  const network = settings.network === true;
  const allowedDomains = network ? [] : [...(settings.allowedDomains ?? [])];
  const node = allowedDomains.length > 0 ? bridgeNode() : undefined;
  const deniedDomains = network ? [] : [...(settings.deniedDomains ?? [])];
  const listed = allowedDomains.length + deniedDomains.length > 0;
  const base = {
    writableRoots,
    network,
    ...(listed ? { domains: { allowed: allowedDomains, denied: deniedDomains } } : {}),
    ...(node
      ? {
          proxy: sandboxProxy({ allowed: allowedDomains, denied: deniedDomains }),
          bridgeNode: node,
        }
      : {}),
    readDenied: pathForms(settings.readDenied ?? [], home),
    writeDenied: pathForms(settings.writeDenied ?? [], home),
    deniedEnv: [...(settings.deniedEnv ?? [])],
    runTag: randomUuid(),
  };
  // A domain list depends on the sandbox: the user is told when it cannot hold (as `auto` does).
  const mode = settings.mode ?? (listed ? "auto" : undefined);
  const unenforced = listed
    ? "the network domain list (--sandbox-allow-domain, sandbox.network) is not enforced: shell commands reach every host"
    : undefined;
  const bridgeless =
    allowedDomains.length > 0 && !node
      ? `sandbox: the allowed domains cannot be reached from the sandbox under ${process.versions.electron ? "Electron" : "this runtime"} (the bridge to cairn's proxy needs node): sandboxed commands have no network`
      : undefined;
  if (mode === "disabled")
    return {
      policy: { mode, protectedPaths: [], hiddenPaths: [], ...base },
      ...(unenforced ? { warning: `sandbox: the sandbox is off, so ${unenforced}` } : {}),
    };

  // Worked out when the first command is wrapped (bwrap.ts), not for every run: most runs start none.
  const paths = () =>
    sandboxPaths(writableRoots, { cairnHome: realOrSelf(resolveCairnHome(env, home)), home, env });
  const unavailable = (reason: string) => `the command sandbox is not available: ${reason}`;
  const fallback = (reason: string) =>
    `${unavailable(reason)}; shell commands run with the permission checker alone`;
  if (mode === undefined) {
    let probing: Promise<string | undefined> | undefined;
    const probe = () =>
      (probing ??= findWorkingBwrap(context, writableRoots, env, settings.bwrapPath).then(
        (found) => found.bwrapPath,
      ));
    return {
      policy: withLazyPaths({ mode: "auto", probe, probeStarted: () => probing, ...base }, paths),
    };
  }
  const found = await findWorkingBwrap(context, writableRoots, env, settings.bwrapPath);
  if (found.reason === undefined)
    return {
      policy: withLazyPaths({ mode: "enabled", bwrapPath: found.bwrapPath, ...base }, paths),
      ...(bridgeless ? { warning: bridgeless } : {}),
    };
  if (mode === "enabled")
    throw new SandboxUnavailableError(
      `${unavailable(found.reason)}; install bubblewrap, or turn the sandbox off`,
    );
  return {
    policy: withLazyPaths({ mode: "disabled", ...base }, paths),
    warning: `${fallback(found.reason)}${unenforced ? `, and ${unenforced}` : ""}`,
  };
}

/** `policy` with `protectedPaths` and `hiddenPaths` worked out on their first read (memoized). */
function withLazyPaths<T extends object>(policy: T, compute: () => SandboxPaths): T & SandboxPaths {
  let paths: SandboxPaths | undefined;
  const get = (): SandboxPaths => {
    paths ??= compute();
    return paths;
  };
  Object.defineProperties(policy, {
    protectedPaths: { get: () => get().protectedPaths, enumerable: true },
    hiddenPaths: { get: () => get().hiddenPaths, enumerable: true },
  });
  return policy as T & SandboxPaths;
}

/**
 * The bubblewrap to run a command under, or undefined for none (waits for an `auto` probe). A
 * command that will run under it and may reach allowed domains starts the run's proxy first.
 */
export async function sandboxRunner(policy: SandboxPolicy | undefined): Promise<string | undefined> {
  if (!policy || policy.mode === "disabled") return undefined;
  const bwrapPath = policy.mode === "enabled" ? policy.bwrapPath : await policy.probe?.();
  if (bwrapPath && policy.proxy) await policy.proxy.start();
  return bwrapPath;
}

type Availability = { reason: string; bwrapPath?: undefined } | { reason?: undefined; bwrapPath: string };

async function findWorkingBwrap(
  context: SandboxContext,
  writableRoots: readonly string[],
  env: NodeJS.ProcessEnv,
  given?: string,
): Promise<Availability> {
  const platform = context.platform ?? process.platform;
  if (platform !== "linux") return { reason: `not implemented on ${platform} (Linux with bubblewrap only)` };
  // A bwrap the agent itself could have written (in the workspace, on PATH) is no boundary.
  if (given !== undefined) {
    const real = realOrSelf(path.resolve(given));
    if (writableRoots.some((root) => isInsideOrSame(root, real)))
      return { reason: `the bwrapPath ${given} is inside a directory the agent can write` };
    const failure = await probeBwrap(real);
    return failure ? { reason: failure } : { bwrapPath: real };
  }
  const trustedPath = (env.PATH ?? "")
    .split(path.delimiter)
    .filter((dir) => dir && path.isAbsolute(dir) && !writableRoots.some((root) => isInsideOrSame(root, dir)))
    .join(path.delimiter);
  const bwrapPath = await findOnPath("bwrap", trustedPath);
  if (!bwrapPath) return { reason: "bubblewrap (bwrap) is not installed" };
  const failure = await probeBwrap(bwrapPath);
  return failure ? { reason: failure } : { bwrapPath };
}

/** Each path (`~` expanded) absolute, in its lexical and its real form. */
function pathForms(paths: readonly string[], home: string): string[] {
  const absolute = paths.map((p) => path.resolve(expandHome(p, home)));
  return [...new Set(absolute.flatMap((p) => [p, realOrSelf(p)]))];
}

function expandHome(dir: string, home: string): string {
  return dir === "~" ? home : dir.startsWith("~/") ? path.join(home, dir.slice(2)) : dir;
}

function isDirectory(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function realOrSelf(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}
