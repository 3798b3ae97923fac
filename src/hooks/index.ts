/**
 * Hooks (docs/hooks.md): SDK callbacks and the config files' command hooks, behind the engine's one
 * hook port (src/engine/hooks.ts). `buildHooks` is what the run assembly calls; `Hooks.run` is the
 * entry point for every event, also for features that fire their own events (subagents:
 * SubagentStart/SubagentStop; compaction: PreCompact/PostCompact).
 */
import path from "node:path";
import type { ConfiguredHooks } from "../config/hooks.js";
import type { SandboxPolicy } from "../sandbox/policy.js";
import { callbackHandlers, type HookCallbackMatcher } from "./callbacks.js";
import { Hooks } from "./dispatcher.js";
import { configHooks } from "./from-config.js";

export type { HookCallback, HookCallbackMatcher } from "./callbacks.js";
export { type HookContext, Hooks } from "./dispatcher.js";
export { compileMatcher, HookMatcherError } from "./matching.js";

export type HookSources = {
  cwd: string;
  /** The tools' environment: what command hooks get (secrets removed). */
  env: NodeJS.ProcessEnv;
  /** The config files' hooks (`LoadedConfig.hooks`). */
  files: readonly ConfiguredHooks[];
  /** The SDK's `hooks` option. */
  callbacks?: Partial<Record<string, HookCallbackMatcher[]>>;
  /** `--trust` / SDK `settingSources` with `project`; a workspace in `trustedWorkspaces` is trusted too. */
  trust: boolean;
  trustedWorkspaces: readonly string[];
  trustHint: string;
  /** The run's OS sandbox, for the workspace's own command hooks. */
  sandbox?: SandboxPolicy;
};

/**
 * Every hook of a run, user-level and SDK ones first: undefined when there is none (the engine then
 * has no hook points at all), and what was not applied, one line each.
 */
export function buildHooks(sources: HookSources): { hooks: Hooks | undefined; warnings: string[] } {
  const trusted = sources.trust || isInside(sources.cwd, sources.trustedWorkspaces);
  const fromSdk = callbackHandlers(sources.callbacks ?? {});
  const fromFiles = configHooks(sources.files, {
    cwd: sources.cwd,
    env: sources.env,
    trusted,
    trustHint: sources.trustHint,
    ...(sources.sandbox ? { sandbox: sources.sandbox } : {}),
  });
  const handlers = [...fromSdk.handlers, ...fromFiles.handlers];
  return {
    hooks: handlers.length > 0 ? new Hooks(handlers, sources.cwd) : undefined,
    warnings: [...fromSdk.warnings, ...fromFiles.warnings],
  };
}

function isInside(dir: string, roots: readonly string[]): boolean {
  return roots.some((root) => {
    const relative = path.relative(root, dir);
    return relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative));
  });
}
