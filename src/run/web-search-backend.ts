import type { ServerWebSearch } from "../engine/provider.js";
import { matchesDomainPattern } from "../sandbox/domain-policy.js";
import type { SandboxPolicy } from "../sandbox/policy.js";

/** The WebSearch backends a user can choose (config `webSearch`, `CAIRN_WEB_SEARCH`; docs/tools.md). */
export const WEB_SEARCH_BACKENDS = ["provider", "searxng", "off"] as const;
export type WebSearchBackend = (typeof WEB_SEARCH_BACKENDS)[number];

/**
 * The backend in force: `CAIRN_WEB_SEARCH`, else the user config's `webSearch`, else `provider`
 * (the provider's own search where its wire has one, else SearXNG when configured). A value that is
 * none of the three is an error, said by the caller.
 */
export function webSearchBackend(
  env: NodeJS.ProcessEnv,
  configured: WebSearchBackend | undefined,
): { backend: WebSearchBackend } | { problem: string } {
  const given = env.CAIRN_WEB_SEARCH?.trim();
  if (!given) return { backend: configured ?? "provider" };
  if ((WEB_SEARCH_BACKENDS as readonly string[]).includes(given))
    return { backend: given as WebSearchBackend };
  return { problem: `CAIRN_WEB_SEARCH=${given}: give provider, searxng or off` };
}

/**
 * The provider search a turn may offer in WebSearch's place, or undefined (then WebSearch stays
 * cairn's own tool, asked about per call). A server tool runs on the provider's side, so the
 * permission gate cannot be asked per search: it is offered only when WebSearch would run without
 * asking (an allow rule, `bypassPermissions`), never when it is denied or would need approval.
 *
 * The sandbox's domain list applies as it does to the web tools, which reach only the hosts it
 * allows: its allowed names become the search's `allowed_domains` (`*.example.com` as `example.com`,
 * whose subdomains the provider includes anyway), less those a denied pattern names. The API takes no
 * `blocked_domains` beside `allowed_domains`, so a denied subdomain of an allowed domain cannot be
 * kept out of the results (cairn's WebFetch still refuses it). A list that allows no name a web
 * search could find (only addresses and `localhost`, or nothing) means no provider search.
 */
export function serverWebSearch(options: {
  backend: WebSearchBackend;
  /** What the permission gate says of a WebSearch call now (undefined: no gate, everything runs). */
  verdict: "allow" | "ask" | "deny" | undefined;
  sandbox: SandboxPolicy | undefined;
}): ServerWebSearch | undefined {
  if (options.backend !== "provider") return undefined;
  if (options.verdict !== undefined && options.verdict !== "allow") return undefined;
  const domains = options.sandbox?.domains;
  if (!domains) return {};
  const names = domains.allowed
    .map((pattern) => pattern.trim().toLowerCase().replace(/^\*\./, "").replace(/\.$/, ""))
    .filter((name) => name.includes(".") && !/^[\d.]+$/.test(name) && !name.includes(":"))
    .filter((name) => !domains.denied.some((pattern) => matchesDomainPattern(name, pattern)));
  const allowed = [...new Set(names)];
  return allowed.length > 0 ? { allowedDomains: allowed } : undefined;
}
