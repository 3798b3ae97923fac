import { describe, expect, test } from "vitest";
import { bypassesProxy } from "../../src/util/no-proxy.js";

/** NO_PROXY as the sandbox's proxy reads it before chaining to the user's proxy (docs/config.md). */
describe("NO_PROXY matching", () => {
  test("a name covers itself and its sub-domains, with or without a leading dot or *.", () => {
    for (const entry of ["example.com", ".example.com", "*.example.com"]) {
      expect(bypassesProxy(entry, "example.com", 443)).toBe(true);
      expect(bypassesProxy(entry, "registry.example.com", 443)).toBe(true);
      expect(bypassesProxy(entry, "notexample.com", 443)).toBe(false);
    }
  });

  test("commas and spaces separate entries; * covers every host; case and a final dot do not matter", () => {
    expect(bypassesProxy("localhost, 10.0.0.1 .internal", "db.INTERNAL.", 5432)).toBe(true);
    expect(bypassesProxy("localhost,10.0.0.1", "10.0.0.1", 80)).toBe(true);
    expect(bypassesProxy("localhost,10.0.0.1", "10.0.0.2", 80)).toBe(false);
    expect(bypassesProxy("*", "anything.example", 1)).toBe(true);
    expect(bypassesProxy("", "example.com", 443)).toBe(false);
  });

  test("an entry with a port covers that port only; IPv6 addresses with or without brackets", () => {
    expect(bypassesProxy("example.com:8080", "example.com", 8080)).toBe(true);
    expect(bypassesProxy("example.com:8080", "example.com", 443)).toBe(false);
    expect(bypassesProxy("::1", "[::1]", 80)).toBe(true);
    expect(bypassesProxy("[::1]:80", "::1", 80)).toBe(true);
    expect(bypassesProxy("[::1]:80", "::1", 443)).toBe(false);
  });
});
