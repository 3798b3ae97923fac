import type { FiredHookEvent, HookInput, HookJSONOutput } from "../engine/hooks.js";
import { unsupportedEvent } from "./from-config.js";
import { compileMatcher } from "./matching.js";
import { DEFAULT_HOOK_TIMEOUT_MS, type HookHandler } from "./types.js";

/** An SDK hook callback (the convention's `HookCallback`). */
export type HookCallback = (
  input: HookInput,
  toolUseID: string | undefined,
  options: { signal: AbortSignal },
) => Promise<HookJSONOutput>;

/** The convention's `HookCallbackMatcher`: `timeout` in seconds for each callback. */
export type HookCallbackMatcher = {
  matcher?: string;
  hooks: HookCallback[];
  timeout?: number;
  /** `"block"`: a callback that throws or times out blocks (denies) instead of being ignored. */
  onFailure?: "continue" | "block";
};

/**
 * The SDK's `hooks` option as handlers, in the order given; an event cairn never fires is one
 * warning line. Throws `HookMatcherError` for a matcher that is not a regular expression.
 */
export function callbackHandlers(option: Partial<Record<string, HookCallbackMatcher[]>>) {
  const handlers: HookHandler[] = [];
  const warnings: string[] = [];
  for (const [event, matchers] of Object.entries(option)) {
    if (!matchers || matchers.length === 0) continue;
    const why = unsupportedEvent(event);
    if (why) {
      warnings.push(`hooks.${event} has no effect (${why})`);
      continue;
    }
    matchers.forEach((group, index) => {
      const matches = compileMatcher(group.matcher, `hooks.${event}.${index}`);
      group.hooks.forEach((callback, position) => {
        handlers.push({
          name: `SDK callback hooks.${event}[${index}].hooks[${position}]${callback.name ? ` (${callback.name})` : ""}`,
          event: event as FiredHookEvent,
          origin: "sdk",
          dialect: "convention",
          matches,
          timeoutMs: group.timeout === undefined ? DEFAULT_HOOK_TIMEOUT_MS : group.timeout * 1000,
          failClosed: group.onFailure === "block",
          async invoke(input, toolUseId, signal) {
            try {
              // The callback gets its own copy: it cannot change what the engine or other hooks see.
              const output = await callback(structuredClone(input), toolUseId, { signal });
              return { kind: "answered", output: output ?? undefined, stdout: "", stderr: "" };
            } catch (error) {
              if (signal.aborted) return { kind: "cancelled", stdout: "", stderr: "" };
              return {
                kind: "failed",
                error: `threw: ${(error as Error)?.message ?? String(error)}`,
                stdout: "",
                stderr: "",
              };
            }
          },
        });
      });
    });
  }
  return { handlers, warnings };
}
