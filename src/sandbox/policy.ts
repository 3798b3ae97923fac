import { randomUUID } from "node:crypto";
import { realpathSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { resolveCairnHome } from "../permissions/home.js";
import { findOnPath } from "../tools/process-group.js";
import { probeBwrap } from "./bwrap.js";
import { isInsideOrSame, sandboxPaths } from "./paths.js";

/**
 * - `enabled`: every shell command runs under bubblewrap; a run where it cannot is refused.
 * - `disabled`: commands run with the permission checker alone.
 * - `auto` (the default): enabled where bubblewrap works, else the checker alone, said once.
 */
export const SANDBOX_MODES = ["auto", "enabled", "disabled"] as const;
export type SandboxMode = (typeof SANDBOX_MODES)[number];

/** What a user sets (CLI flags, SDK `sandbox`, config): see docs/security.md, "Sandbox". */
export type SandboxSettings = {
  mode?: SandboxMode;
  /** Commands may use the network (default: no network at all, loopback included). */
  network?: boolean;
  /** Writable besides the workspace and the `--add-dir` directories (protected paths still are not). */
  extraWritable?: readonly string[];
};

/** The sandbox that applies to a run's commands, resolved once per run (ToolContext.sandbox). */
export type SandboxPolicy = {
  /** `enabled`: commands run under bubblewrap at `bwrapPath`; `disabled`: the checker alone. */
  mode: "enabled" | "disabled";
  bwrapPath?: string;
  /** Absolute, lexical and real forms: the workspace, `--add-dir` directories, `extraWritable`. */
  writableRoots: string[];
  protectedPaths: string[];
  hiddenPaths: string[];
  network: boolean;
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
  env?: NodeJS.ProcessEnv;
  home?: string;
  /** Set by tests only: where bubblewrap is looked up (default: PATH, outside the writable roots). */
  bwrapPath?: string;
  platform?: NodeJS.Platform;
};

/**
 * Resolves the settings into the run's policy. `warning` says, once, why `auto` fell back to the
 * checker alone. Throws SandboxUnavailableError when `enabled` cannot be honoured.
 */
export async function resolveSandboxPolicy(
  settings: SandboxSettings,
  context: SandboxContext,
): Promise<{ policy: SandboxPolicy; warning?: string }> {
  const env = context.env ?? process.env;
  const home = context.home ?? os.homedir();
  const given = [...context.roots, ...(settings.extraWritable ?? []).map((dir) => expandHome(dir, home))];
  // Only existing directories can be bound (a missing --add-dir would make every command fail).
  const existing = given.map((dir) => path.resolve(dir)).filter(isDirectory);
  const writableRoots = [...new Set(existing.flatMap((dir) => [dir, realOrSelf(dir)]))];
  const base = { writableRoots, network: settings.network === true, runTag: randomUUID() };
  const mode = settings.mode ?? "auto";
  const off: SandboxPolicy = { mode: "disabled", protectedPaths: [], hiddenPaths: [], ...base };
  if (mode === "disabled") return { policy: off };

  const found = await findWorkingBwrap(context, writableRoots, env);
  if (found.reason !== undefined) {
    const reason = `the command sandbox is not available: ${found.reason}`;
    if (mode === "enabled")
      throw new SandboxUnavailableError(`${reason}; install bubblewrap, or turn the sandbox off`);
    return { policy: off, warning: `${reason}; shell commands run with the permission checker alone` };
  }
  const paths = sandboxPaths(writableRoots, { cairnHome: realOrSelf(resolveCairnHome(env, home)), home });
  return { policy: { mode: "enabled", bwrapPath: found.bwrapPath, ...paths, ...base } };
}

type Availability = { reason: string; bwrapPath?: undefined } | { reason?: undefined; bwrapPath: string };

async function findWorkingBwrap(
  context: SandboxContext,
  writableRoots: readonly string[],
  env: NodeJS.ProcessEnv,
): Promise<Availability> {
  const platform = context.platform ?? process.platform;
  if (platform !== "linux") return { reason: `not implemented on ${platform} (Linux with bubblewrap only)` };
  // A bwrap the agent itself could have written (in the workspace, on PATH) is no boundary.
  const trustedPath = (env.PATH ?? "")
    .split(path.delimiter)
    .filter((dir) => dir && path.isAbsolute(dir) && !writableRoots.some((root) => isInsideOrSame(root, dir)))
    .join(path.delimiter);
  const bwrapPath = context.bwrapPath ?? (await findOnPath("bwrap", trustedPath));
  if (!bwrapPath) return { reason: "bubblewrap (bwrap) is not installed" };
  const failure = await probeBwrap(bwrapPath);
  return failure ? { reason: failure } : { bwrapPath };
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
