/**
 * Which hosts a run may reach: the sandbox's network policy (`--sandbox-allow-domain`, SDK and
 * config `sandbox.network.allowedDomains` / `deniedDomains`). Pure, so the proxy in front of
 * sandboxed commands and cairn's own web tools decide the same way (docs/security.md, "Network
 * policy").
 *
 * A pattern is a host name (`registry.npmjs.org`), an IP address (`127.0.0.2`), `localhost`, or
 * `*.` and a domain of at least two labels (`*.npmjs.org`: every name below it, not `npmjs.org`
 * itself), as the reference's sandbox reads them. Case and a final dot do not matter. A denied
 * pattern wins over an allowed one; a host no allowed pattern names is refused.
 */
export type DomainPolicy = {
  allowed: readonly string[];
  denied: readonly string[];
};

export type DomainDecision =
  | { allowed: true; pattern: string }
  | { allowed: false; pattern?: string; reason: "denied" | "not-allowed" };

/** Whether `host` (a name or an IP address, `[::1]` brackets allowed) may be reached. */
export function isDomainAllowed(host: string, policy: DomainPolicy): boolean {
  return decideDomain(host, policy).allowed;
}

/** The decision with the pattern behind it (`denied`: the denied pattern that matched). */
export function decideDomain(host: string, policy: DomainPolicy): DomainDecision {
  const name = normalizeHost(host);
  const denied = policy.denied.find((pattern) => matchesDomainPattern(name, pattern));
  if (denied !== undefined) return { allowed: false, pattern: denied, reason: "denied" };
  const allowed = policy.allowed.find((pattern) => matchesDomainPattern(name, pattern));
  if (allowed !== undefined) return { allowed: true, pattern: allowed };
  return { allowed: false, reason: "not-allowed" };
}

/** Whether `host` is `pattern` (`*.example.com`: strictly below `example.com`). */
export function matchesDomainPattern(host: string, pattern: string): boolean {
  const name = normalizeHost(host);
  const wanted = normalizeHost(pattern);
  if (wanted.startsWith("*.")) return name.endsWith(wanted.slice(1)) && name.length > wanted.length - 1;
  return name === wanted;
}

/**
 * Why `pattern` is not a domain pattern, or undefined when it is. A URL, a port, a path, a bare
 * `*`, or a wildcard over a top-level domain (`*.com`) is refused: it would name more, or other,
 * than the user meant.
 */
export function domainPatternProblem(pattern: string): string | undefined {
  const value = normalizeHost(pattern);
  const expected = 'give a host name ("example.com") or a wildcard over a domain ("*.example.com")';
  if (value === "") return `an empty domain: ${expected}`;
  if (value.includes("://") || value.includes("/")) return `${JSON.stringify(pattern)} is a URL: ${expected}`;
  if (isIpv6(value)) return undefined;
  if (value.includes(":")) return `${JSON.stringify(pattern)} has a port: ${expected} (every port is meant)`;
  if (value === "localhost") return undefined;
  const wildcard = value.startsWith("*.");
  const domain = wildcard ? value.slice(2) : value;
  if (domain.includes("*"))
    return `${JSON.stringify(pattern)}: a wildcard only stands first, as "*.": ${expected}`;
  const labels = domain.split(".");
  if (labels.some((label) => !/^[a-z0-9_-]+$/.test(label)))
    return `${JSON.stringify(pattern)} is not a host name: ${expected}`;
  if (labels.length < 2)
    return wildcard
      ? `${JSON.stringify(pattern)} covers a whole top-level domain: name a domain below it ("*.example.com")`
      : `${JSON.stringify(pattern)} has no dot: ${expected} (only localhost may stand alone)`;
  return undefined;
}

/** Lower case, without a final dot or IPv6 brackets. */
function normalizeHost(host: string): string {
  let name = host.trim().toLowerCase();
  if (name.startsWith("[") && name.endsWith("]")) name = name.slice(1, -1);
  if (name.endsWith(".")) name = name.slice(0, -1);
  return name;
}

function isIpv6(value: string): boolean {
  return /^[0-9a-f:.]+$/.test(value) && value.split(":").length > 2;
}
