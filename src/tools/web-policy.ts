import { domainRefusal } from "../sandbox/domain-policy.js";
import type { ToolContext } from "./types.js";

/**
 * Whether the web tools may reach `host`: the one place they ask (WebFetch before each request and
 * each redirect, WebSearch before calling its search API). With a domain list (`--sandbox-allow-domain`,
 * `sandbox.network.allowedDomains` / `deniedDomains`) they obey it exactly as the proxy in front of
 * sandboxed commands does (src/sandbox/domain-policy.ts); without one, the permission rules alone
 * decide (`WebFetch(domain:…)`), and `--sandbox-network` lists nothing. Returns the refusal the model
 * reads, or undefined.
 */
export function webHostRefusal(host: string, ctx: ToolContext): string | undefined {
  const domains = ctx.sandbox?.domains;
  if (!domains) return undefined;
  const why = domainRefusal(host, domains);
  return why === undefined ? undefined : `cairn refused to reach ${host}: ${why}.`;
}
