import { describe, expect, it } from "vitest";
import { decideDomain, domainPatternProblem, isDomainAllowed } from "../../src/sandbox/domain-policy.js";

describe("the sandbox's domain policy", () => {
  const policy = {
    allowed: ["registry.npmjs.org", "*.github.com", "127.0.0.2"],
    denied: ["evil.github.com"],
  };

  it("admits the named hosts, whatever their case or final dot", () => {
    expect(isDomainAllowed("registry.npmjs.org", policy)).toBe(true);
    expect(isDomainAllowed("Registry.NPMjs.org.", policy)).toBe(true);
    expect(isDomainAllowed("127.0.0.2", policy)).toBe(true);
  });

  it("refuses a host no pattern names, a neighbour or a parent of a named one included", () => {
    expect(isDomainAllowed("npmjs.org", policy)).toBe(false);
    expect(isDomainAllowed("registry.npmjs.org.evil.com", policy)).toBe(false);
    expect(isDomainAllowed("xregistry.npmjs.org", policy)).toBe(false);
    expect(isDomainAllowed("127.0.0.3", policy)).toBe(false);
    expect(decideDomain("example.com", policy)).toEqual({ allowed: false, reason: "not-allowed" });
  });

  it("lets *.domain cover every name below the domain, not the domain itself", () => {
    expect(isDomainAllowed("api.github.com", policy)).toBe(true);
    expect(isDomainAllowed("a.b.github.com", policy)).toBe(true);
    expect(isDomainAllowed("github.com", policy)).toBe(false);
    expect(isDomainAllowed("notgithub.com", policy)).toBe(false);
  });

  it("lets a denied pattern win over an allowed one, and names it", () => {
    expect(decideDomain("evil.github.com", policy)).toEqual({
      allowed: false,
      pattern: "evil.github.com",
      reason: "denied",
    });
    expect(isDomainAllowed("x.example.org", { allowed: ["*.example.org"], denied: ["*.example.org"] })).toBe(
      false,
    );
  });

  it("refuses everything with no allowed pattern", () => {
    expect(isDomainAllowed("localhost", { allowed: [], denied: [] })).toBe(false);
  });

  it("takes IPv6 addresses with or without brackets", () => {
    expect(isDomainAllowed("[::1]", { allowed: ["::1"], denied: [] })).toBe(true);
  });

  it("accepts host names, addresses, localhost and wildcards over a domain as patterns", () => {
    for (const pattern of ["example.com", "*.npmjs.org", "localhost", "127.0.0.2", "::1", "a_b.example.com"])
      expect(domainPatternProblem(pattern)).toBeUndefined();
  });

  it("refuses URLs, ports, bare or misplaced wildcards, one-label names and empty patterns, saying why", () => {
    expect(domainPatternProblem("https://example.com")).toMatch(/is a URL/);
    expect(domainPatternProblem("example.com:443")).toMatch(/has a port/);
    expect(domainPatternProblem("*")).toMatch(/not a host name|wildcard/);
    expect(domainPatternProblem("*.com")).toMatch(/whole top-level domain/);
    expect(domainPatternProblem("api.*.com")).toMatch(/wildcard only stands first/);
    expect(domainPatternProblem("intranet")).toMatch(/has no dot/);
    expect(domainPatternProblem(" ")).toMatch(/empty/);
  });
});
