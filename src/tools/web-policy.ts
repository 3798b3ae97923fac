import type { ToolContext } from "./types.js";

/**
 * Whether the web tools may reach `host`: the one place they ask (WebFetch before each request,
 * WebSearch before calling its search API). The per-domain network policy (issue 31, item 8:
 * `sandbox.network.allowedDomains` / `deniedDomains`, built in src/sandbox/) is to be consulted
 * HERE, so the web tools obey the same list as sandboxed commands. Until it is wired, every host
 * the permission rules let through is reached. Returns the refusal the model reads, or undefined.
 */
export function webHostRefusal(_host: string, _ctx: ToolContext): string | undefined {
  // NETWORK POLICY: call the sandbox's per-domain decision here.
  return undefined;
}
