import { afterEach, describe, expect, test } from "vitest";
import { reply } from "../../src/testing/index.js";
import { runCli } from "../conformance/pm/helpers.js";
import {
  closeWebServers,
  hasOpenssl,
  startForwardProxy,
  startHttpsWebSite,
  startWebSite,
} from "../helpers/web-servers.js";

afterEach(closeWebServers);

type Completed = Record<
  string,
  { args: Record<string, unknown>; result: Record<string, Record<string, unknown>> }
>;

/**
 * One WebFetch call through the built CLI (stream-json), allowed by `rule`; returns what the call's
 * completed event carries: `text` is what the model read (the result, or the error).
 */
async function webFetch(
  input: Record<string, unknown>,
  options: { env?: Record<string, string>; rule?: string } = {},
) {
  const run = await runCli({
    steps: [
      reply().tool("WebFetch", { prompt: "What does it say?", ...input }, "toolu_web"),
      reply().text("Done."),
    ],
    args: ["--output-format", "stream-json", "--allowedTools", options.rule ?? "WebFetch"],
    ...(options.env ? { env: options.env } : {}),
  });
  expect(run.code).toBe(0);
  const completed = run.events.find((event) => event.type === "tool_call" && event.subtype === "completed");
  expect(completed).toBeDefined();
  const call = (completed!.tool_call as Completed).webFetchToolCall!;
  const text = String(call.result.success?.result ?? call.result.error?.message ?? "");
  return { run, call, text, success: call.result.success };
}

describe("WebFetch", () => {
  test("an HTML page comes back as markdown of its article, without scripts", async () => {
    const site = await startWebSite();
    const { call, text, success } = await webFetch({ url: `${site.url}/article.html` });
    expect(call.args).toMatchObject({ url: `${site.url}/article.html`, prompt: "What does it say?" });
    expect(success).toMatchObject({ url: `${site.url}/article.html`, code: 200, codeText: "OK" });
    expect(text).toContain("# Cairn building");
    expect(text).toContain("**largest stones**");
    expect(text).toContain("[more about cairns](https://example.org/cairns)");
    expect(text).toMatch(/- +Flat stones first/);
    expect(text).not.toContain("script text must not appear");
    // Readability keeps the article: the navigation and the footer are left out.
    expect(text).not.toContain("Shop");
    expect(text).not.toContain("Copyright footer");
    expect(text).toContain("Answer this from the content below: What does it say?");
  });

  test("JSON is pretty-printed, PDF read as text, plain text kept, binary named but not shown", async () => {
    const site = await startWebSite();
    expect((await webFetch({ url: `${site.url}/data.json` })).text).toContain(
      '{\n  "stones": 42,\n  "kind": "cairn"\n}',
    );
    expect((await webFetch({ url: `${site.url}/doc.pdf` })).text).toContain("Stones of the PDF cairn");
    expect((await webFetch({ url: `${site.url}/notes.txt` })).text).toContain("plain notes: stones 42");
    const binary = await webFetch({ url: `${site.url}/image.png` });
    expect(binary.text).toContain("binary content, not shown");
    expect(binary.text).toContain("image/png");
  });

  test("a redirect within the host is followed; one to another host is reported, not followed", async () => {
    const site = await startWebSite();
    const same = await webFetch({ url: `${site.url}/same-host-redirect` });
    expect(same.text).toContain("plain notes: stones 42");
    expect(same.success?.url).toBe(`${site.url}/notes.txt`);

    const cross = await webFetch({ url: `${site.url}/cross-host-redirect` });
    const other = `http://localhost:${site.port}/notes.txt`;
    expect(cross.text).toContain("REDIRECT DETECTED: The URL redirects to a different host.");
    expect(cross.text).toContain(`Redirect URL: ${other}`);
    expect(cross.text).toContain(`- url: "${other}"`);
    expect(cross.text).toContain('- prompt: "What does it say?"');
    expect(cross.text).not.toContain("plain notes");
  });

  test("a body over 10 MB and one that never finishes are cut, with a note saying so", async () => {
    const site = await startWebSite();
    const big = await webFetch({ url: `${site.url}/big.txt` });
    expect(big.text).toContain("[The response is larger than 10 MB: only its first 10 MB were read.]");
    expect(big.text).toMatch(
      /\[Truncated: characters 0–100000 of \d+ shown; call WebFetch again with offset: 100000/,
    );
    expect(big.success?.bytes).toBe(10 * 1024 * 1024);

    const slow = await webFetch(
      { url: `${site.url}/slow.txt` },
      { env: { CAIRN_WEB_FETCH_TIMEOUT_MS: "1500" } },
    );
    expect(slow.text).toContain("the beginning of a slow page");
    expect(slow.text).toContain(
      "[The response did not finish in time: only the part that arrived was read.]",
    );
  });

  test("offset reads on where a truncated result stopped", async () => {
    const site = await startWebSite();
    const next = await webFetch({ url: `${site.url}/big.txt`, offset: 100_000 });
    expect(next.text).toMatch(/\[Truncated: characters 100000–200000 of \d+ shown/);
  });

  test("an HTTP error status and a non-http URL are errors the model reads", async () => {
    const site = await startWebSite();
    const missing = await webFetch({ url: `${site.url}/missing` });
    expect(missing.call.result.error?.message).toContain("answered 404 Not Found");
    expect(missing.text).toContain("no such page");
    const file = await webFetch({ url: "file:///etc/passwd" });
    expect(file.call.result.error?.message).toContain("file: URLs cannot be fetched");
  });

  test("WebFetch(domain:…) allows that host only; another host is refused where nobody can be asked", async () => {
    const site = await startWebSite();
    const rule = "WebFetch(domain:127.0.0.1)";
    expect((await webFetch({ url: `${site.url}/notes.txt` }, { rule })).text).toContain("plain notes");
    const other = await webFetch({ url: `http://localhost:${site.port}/notes.txt` }, { rule });
    expect(other.call.result.error?.message).toContain("WebFetch(domain:localhost)");
    expect(other.text).not.toContain("plain notes");
  });

  test.skipIf(!hasOpenssl())(
    "HTTPS with a certificate from NODE_EXTRA_CA_CERTS is read; without it the error names the certificate problem (skipped without openssl)",
    async () => {
      const site = await startHttpsWebSite();
      const trusted = await webFetch(
        { url: `${site.url}/notes.txt` },
        { env: { NODE_EXTRA_CA_CERTS: site.caFile } },
      );
      expect(trusted.text).toContain("plain notes: stones 42");
      const untrusted = await webFetch({ url: `${site.url}/notes.txt` });
      expect(untrusted.call.result.error?.message).toMatch(/SELF_SIGNED|CERT|certificate/i);
    },
  );
});

describe("proxies", () => {
  test("with HTTPS_PROXY / HTTP_PROXY set, model calls and WebFetch go through the proxy, and stderr stays empty", async () => {
    const proxy = await startForwardProxy();
    const site = await startWebSite();
    const { run, text } = await webFetch(
      { url: `${site.url}/notes.txt` },
      { env: { HTTPS_PROXY: proxy.url, http_proxy: proxy.url, NO_PROXY: "" } },
    );
    expect(text).toContain("plain notes: stones 42");
    expect(run.stderr).toBe("");
    // The model calls (one kept-alive tunnel may carry both) and the page, through the proxy.
    expect(run.server.requests).toHaveLength(2);
    expect(proxy.seen).toContain(`127.0.0.1:${run.server.port}`);
    expect(proxy.seen).toContain(`127.0.0.1:${site.port}`);
  });

  test("NO_PROXY names hosts reached directly", async () => {
    const proxy = await startForwardProxy();
    const site = await startWebSite();
    const { text } = await webFetch(
      { url: `${site.url}/notes.txt` },
      { env: { HTTPS_PROXY: proxy.url, HTTP_PROXY: proxy.url, no_proxy: "127.0.0.1" } },
    );
    expect(text).toContain("plain notes: stones 42");
    expect(proxy.seen).toEqual([]);
  });

  test("the config's proxy: off turns the environment's proxy off", async () => {
    const proxy = await startForwardProxy();
    const site = await startWebSite();
    const { mkdtempSync, writeFileSync } = await import("node:fs");
    const { join } = await import("node:path");
    const { tmpdir } = await import("node:os");
    const home = mkdtempSync(join(tmpdir(), "cairn-home-"));
    writeFileSync(join(home, "config.json"), JSON.stringify({ proxy: "off" }));
    const { text, run } = await webFetch(
      { url: `${site.url}/notes.txt` },
      { env: { HTTP_PROXY: proxy.url, CAIRN_HOME: home } },
    );
    expect(text).toContain("plain notes: stones 42");
    expect(run.stderr).toBe("");
    expect(proxy.seen).toEqual([]);
  });

  test.skipIf(!hasOpenssl())(
    "HTTPS through the proxy's CONNECT tunnel trusts NODE_EXTRA_CA_CERTS (skipped without openssl)",
    async () => {
      const proxy = await startForwardProxy();
      const site = await startHttpsWebSite();
      const { text } = await webFetch(
        { url: `${site.url}/notes.txt` },
        { env: { HTTPS_PROXY: proxy.url, HTTP_PROXY: proxy.url, NODE_EXTRA_CA_CERTS: site.caFile } },
      );
      expect(text).toContain("plain notes: stones 42");
      expect(proxy.seen).toContain(`127.0.0.1:${site.port}`);
    },
  );
});
