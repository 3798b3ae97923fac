import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { reply } from "../../src/testing/index.js";
import { runCli } from "../conformance/pm/helpers.js";
import { closeWebServers, startSearchApi } from "../helpers/web-servers.js";

afterEach(closeWebServers);

type Completed = Record<
  string,
  { args: Record<string, unknown>; result: Record<string, Record<string, unknown>> }
>;

async function webSearch(input: Record<string, unknown>, env: Record<string, string> = {}) {
  const run = await runCli({
    steps: [reply().tool("WebSearch", input, "toolu_search"), reply().text("Done.")],
    args: ["--output-format", "stream-json", "--allowedTools", "WebSearch"],
    env,
  });
  expect(run.code).toBe(0);
  const completed = run.events.find((event) => event.type === "tool_call" && event.subtype === "completed");
  expect(completed).toBeDefined();
  const call = (completed!.tool_call as Completed).webSearchToolCall!;
  // What the model read: the tool_result sent with the second model call.
  const sent = JSON.stringify(run.server.requests[1]?.body ?? "");
  return { run, call, sent };
}

describe("WebSearch", () => {
  test("queries the SearXNG JSON API named by CAIRN_SEARXNG_URL; blocked_domains drops hits", async () => {
    const api = await startSearchApi();
    const { run, call, sent } = await webSearch(
      { query: "cairn building", blocked_domains: ["example.com"] },
      { CAIRN_SEARXNG_URL: api.url },
    );
    expect(api.queries).toEqual(["cairn building"]);
    expect(call.args).toMatchObject({ query: "cairn building", blockedDomains: ["example.com"] });
    expect(call.result.success).toMatchObject({
      query: "cairn building",
      backend: "searxng",
      results: [
        { title: "Cairns of the north", url: "https://stones.example.org/cairns" },
        { title: "Stone piles", url: "https://docs.example.net/piles" },
      ],
    });
    expect(sent).toContain("[Cairns of the north](https://stones.example.org/cairns)");
    expect(sent).toContain("How cairns are built.");
    expect(sent).not.toContain("blocked.example.com");
    const init = run.events[0] as { tools: string[] };
    expect(init.tools).toEqual(expect.arrayContaining(["WebFetch", "WebSearch"]));
  });

  test("allowed_domains keeps only those domains; the user config's searxngUrl names the API", async () => {
    const api = await startSearchApi();
    const home = mkdtempSync(join(tmpdir(), "cairn-home-"));
    writeFileSync(join(home, "config.json"), JSON.stringify({ searxngUrl: `${api.url}/` }));
    const { call, run } = await webSearch(
      { query: "piles", allowed_domains: ["example.net"] },
      { CAIRN_HOME: home },
    );
    expect(run.stderr).toBe("");
    expect(call.result.success?.results).toEqual([
      { title: "Stone piles", url: "https://docs.example.net/piles" },
    ]);
  });

  test("with no search backend, the call says how to configure one instead of returning nothing", async () => {
    const { call, sent } = await webSearch({ query: "cairn building" });
    const message = String(call.result.error?.message);
    expect(message).toContain("WebSearch has no search backend");
    expect(message).toContain("CAIRN_SEARXNG_URL");
    expect(message).toContain('"searxngUrl"');
    expect(sent).toContain("WebSearch has no search backend");
  });
});
