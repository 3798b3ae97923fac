import type { HookCallbackMatcher } from "../hooks/index.js";
import type { Channel } from "./channel.js";

/**
 * `initialize.hooks` entries: callbacks that live in the host, named by id. The Python SDK sends
 * `"matcher": null` for `HookMatcher(matcher=None)`, its documented way to hook every tool.
 */
export type HostHookMatchers = Record<
  string,
  { matcher?: string | null; hookCallbackIds?: string[]; timeout?: number }[] | undefined
>;

/**
 * The host's hook callbacks as cairn's SDK `hooks` option: each callback, when it fires, becomes a
 * `hook_callback` control request with its id, and the host's answer is the hook's output.
 */
export function bridgedHooks(
  matchers: HostHookMatchers,
  channel: Channel,
): Record<string, HookCallbackMatcher[]> {
  const hooks: Record<string, HookCallbackMatcher[]> = {};
  for (const [event, entries] of Object.entries(matchers)) {
    hooks[event] = (entries ?? []).map((entry) => ({
      // No matcher (omitted or null) matches every tool, as a hook option without one does; any
      // other value goes on to the option's check (a number is an error, not "every tool").
      ...(entry.matcher !== undefined && entry.matcher !== null ? { matcher: entry.matcher } : {}),
      ...(entry.timeout !== undefined ? { timeout: entry.timeout } : {}),
      hooks: (entry.hookCallbackIds ?? []).map(
        (id) =>
          async (input: unknown, toolUseID: string | undefined, { signal }: { signal: AbortSignal }) =>
            (await channel.request(
              {
                subtype: "hook_callback",
                callback_id: id,
                input,
                ...(toolUseID !== undefined ? { tool_use_id: toolUseID } : {}),
              },
              signal,
            )) as never,
      ),
    }));
  }
  return hooks;
}
