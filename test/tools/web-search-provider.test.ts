import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { query as officialQuery } from "@anthropic-ai/claude-agent-sdk";
import { afterEach, describe, expect, test } from "vitest";
import type { SDKMessage } from "../../src/index.js";
import { query } from "../../src/index.js";
import { type RecordedRequest, reply, type ScriptedServer } from "../../src/testing/index.js";
import {
  MODEL,
  parseLines,
  runCli,
  serverEnv,
  spawnCli,
  startServer,
  workspace,
} from "../conformance/pm/helpers.js";
import { throughCairn } from "../protocols/agent-sdk.helpers.js";
import { cleanUp, envFor, result, runQuery } from "../sdk/helpers.js";

/**
 * WebSearch through the provider's own search (docs/tools.md, "WebSearch"): Anthropic's
 * `web_search` server tool and OpenAI Responses' `web_search`. The scripted server plays the
 * provider's search blocks; the CLI and the SDK run against it.
 */
afterEach(cleanUp);

const RESULTS = [
  { url: "https://stones.example.org/cairns", title: "Cairns of the north", page_age: "2 days ago" },
  { url: "https://docs.example.net/piles", title: "Stone piles" },
];
const CITED = [{ url: RESULTS[0]!.url, title: RESULTS[0]!.title, cited_text: "stacked stones" }];
/** A search, an answer citing it, and a client tool call (so the run makes a second request). */
const searchThenList = () =>
  reply()
    .webSearch("cairn building", RESULTS, "srvtoolu_search")
    .text("Cairns are stacked stones.", CITED)
    .tool("LS", { path: "." }, "toolu_ls");

type Body = { tools?: { name?: string; type?: string }[]; messages?: { role: string; content: unknown }[] };
const body = (request: RecordedRequest | undefined) => (request?.body ?? {}) as Body;
const toolNames = (request: RecordedRequest | undefined) =>
  (body(request).tools ?? []).map((tool) => tool.name ?? tool.type);
/** The assistant content blocks a request sends back. */
const sentBack = (request: RecordedRequest | undefined) =>
  (body(request).messages ?? []).filter((m) => m.role === "assistant").flatMap((m) => m.content as unknown[]);

/** The blocks exactly as the scripted server sent them (what must come back verbatim). */
const SERVER_BLOCKS = [
  {
    type: "server_tool_use",
    id: "srvtoolu_search",
    name: "web_search",
    input: { query: "cairn building" },
  },
  {
    type: "web_search_tool_result",
    tool_use_id: "srvtoolu_search",
    content: [
      {
        type: "web_search_result",
        url: RESULTS[0]!.url,
        title: RESULTS[0]!.title,
        encrypted_content: `enc:${Buffer.from(RESULTS[0]!.url).toString("base64")}`,
        page_age: "2 days ago",
      },
      {
        type: "web_search_result",
        url: RESULTS[1]!.url,
        title: RESULTS[1]!.title,
        encrypted_content: `enc:${Buffer.from(RESULTS[1]!.url).toString("base64")}`,
        page_age: null,
      },
    ],
  },
  {
    type: "text",
    text: "Cairns are stacked stones.",
    citations: [
      {
        type: "web_search_result_location",
        url: RESULTS[0]!.url,
        title: RESULTS[0]!.title,
        cited_text: "stacked stones",
        encrypted_index: `enc:${Buffer.from(`${RESULTS[0]!.url}#stacked stones`).toString("base64")}`,
      },
    ],
  },
];

/** A CAIRN_HOME whose user config holds `config`. */
function homeWith(config: Record<string, unknown>): string {
  const home = mkdtempSync(join(tmpdir(), "cairn-home-"));
  writeFileSync(join(home, "config.json"), JSON.stringify(config));
  return home;
}

describe("WebSearch through the provider's own search", () => {
  test("Anthropic: the request offers the web_search server tool instead of WebSearch; stream-json shows the search; the blocks go back verbatim; the transcript resumes with them", async () => {
    const run = await runCli({
      steps: [searchThenList(), reply().text("Listed.")],
      args: ["--output-format", "stream-json", "--allowedTools", "WebSearch,LS"],
    });
    expect(run.code).toBe(0);
    expect(run.stderr).toBe("");
    const first = run.server.requests[0];
    expect(body(first).tools).toContainEqual({ type: "web_search_20250305", name: "web_search" });
    expect(toolNames(first)).not.toContain("WebSearch");
    expect(toolNames(first)).toContain("LS");

    // stream-json: the search as a WebSearch call with its results; the cited text as the answer.
    const calls = run.events.filter((event) => event.type === "tool_call");
    expect(calls[0]).toMatchObject({
      subtype: "started",
      call_id: "srvtoolu_search",
      tool_call: { webSearchToolCall: { args: { query: "cairn building" } } },
    });
    expect(calls[1]).toMatchObject({
      subtype: "completed",
      call_id: "srvtoolu_search",
      tool_call: {
        webSearchToolCall: {
          result: {
            success: {
              query: "cairn building",
              backend: "provider",
              results: RESULTS.map(({ title, url }) => ({ title, url })),
            },
          },
        },
      },
    });

    // The second request of the run sends the blocks back exactly as they came.
    expect(sentBack(run.server.requests[1]).slice(0, 3)).toEqual(SERVER_BLOCKS);

    // A resumed session sends them again, from the transcript.
    const sessionId = (run.events.at(-1) as { session_id: string }).session_id;
    const server = await startServer([reply().text("From the transcript.")]);
    const resumed = spawnCli(
      [
        "-p",
        "And now?",
        "--model",
        MODEL,
        "--resume",
        sessionId,
        "--output-format",
        "json",
        "--allowedTools",
        "WebSearch",
      ],
      { cwd: run.dir, env: serverEnv(server) },
    );
    expect((await resumed.exited).code).toBe(0);
    expect(sentBack(server.requests[0]).slice(0, 3)).toEqual(SERVER_BLOCKS);
    expect(body(server.requests[0]).tools).toContainEqual({
      type: "web_search_20250305",
      name: "web_search",
    });
  });

  test("a turn the provider paused (stop_reason pause_turn) goes on: the paused answer is sent back as it is", async () => {
    const run = await runCli({
      steps: [
        reply().webSearch("cairn building", RESULTS, "srvtoolu_search").stopReason("pause_turn"),
        reply().text("Cairns are stacked stones."),
      ],
      args: ["--output-format", "json", "--allowedTools", "WebSearch"],
    });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ result: "Cairns are stacked stones." });
    const messages = body(run.server.requests[1]).messages ?? [];
    expect(messages.at(-1)).toEqual({ role: "assistant", content: SERVER_BLOCKS.slice(0, 2) });
  });

  test("interrupted after a search, mid-answer: the next request keeps the search whole and the text shown", async () => {
    const server = await startServer([
      // message_start, the search's five events, the text's start and first chunk; then nothing.
      reply()
        .webSearch("cairn building", RESULTS, "srvtoolu_search")
        .text("Partial answer, then the rest.")
        .stall(8, 600_000),
      reply().text("Back again."),
    ]);
    let release: () => void = () => undefined;
    const later = new Promise<void>((resolve) => {
      release = resolve;
    });
    const user = (text: string) => ({
      type: "user" as const,
      message: { role: "user" as const, content: text },
      parent_tool_use_id: null,
      session_id: "",
    });
    async function* prompts() {
      yield user("first");
      await later;
      yield user("second");
    }
    const q = query({
      prompt: prompts(),
      options: {
        cwd: workspace(),
        env: envFor(server),
        allowedTools: ["WebSearch"],
        includePartialMessages: true,
      },
    });
    const seen: SDKMessage[] = [];
    let interrupted = false;
    for await (const message of q) {
      seen.push(message);
      const streamed = seen.some(
        (m) =>
          m.type === "stream_event" &&
          m.event.type === "content_block_delta" &&
          m.event.delta.type === "text_delta",
      );
      if (streamed && !interrupted) {
        interrupted = true;
        await q.interrupt();
      }
      if (message.type === "result" && seen.filter((m) => m.type === "result").length === 1) release();
      if (message.type === "result" && seen.filter((m) => m.type === "result").length === 2) break;
    }
    const messages = body(server.requests[1]).messages ?? [];
    expect(messages[1]).toEqual({
      role: "assistant",
      content: [...SERVER_BLOCKS.slice(0, 2), { type: "text", text: "Partial answer, " }],
    });
  });

  test("a search's price is in the cost: $0.01 per search on Anthropic", async () => {
    const usage = { input_tokens: 1000, output_tokens: 100 };
    const cost = async (step: ReturnType<typeof reply>) => {
      const run = await runCli({
        steps: [step.usage(usage)],
        args: ["--output-format", "json", "--allowedTools", "WebSearch"],
      });
      return (JSON.parse(run.stdout) as { total_cost_usd: number }).total_cost_usd;
    };
    const plain = await cost(reply().text("No search."));
    const searched = await cost(reply().webSearch("cairns", RESULTS).text("Searched."));
    expect(searched - plain).toBeCloseTo(0.01, 6);
  });

  test("not offered when WebSearch is not allowed without asking, is disallowed, or the backend is searxng or off", async () => {
    const offered = async (args: string[], env: Record<string, string> = {}) => {
      const run = await runCli({
        steps: [reply().text("ok")],
        args: ["--output-format", "json", ...args],
        env,
      });
      expect(run.code).toBe(0);
      return toolNames(run.server.requests[0]);
    };
    // Default mode, no rule: WebSearch would be asked about per call, which a server tool cannot be.
    const asked = await offered([]);
    expect(asked).toContain("WebSearch");
    expect(asked).not.toContain("web_search");
    const denied = await offered(["--disallowedTools", "WebSearch"]);
    expect(denied).not.toContain("WebSearch");
    expect(denied).not.toContain("web_search");
    const searxng = await offered(["--allowedTools", "WebSearch"], {
      CAIRN_HOME: homeWith({ webSearch: "searxng" }),
    });
    expect(searxng).toContain("WebSearch");
    expect(searxng).not.toContain("web_search");
    const off = await offered(["--allowedTools", "WebSearch"], { CAIRN_WEB_SEARCH: "off" });
    expect(off).not.toContain("WebSearch");
    expect(off).not.toContain("web_search");
    // Control: allowed, default backend.
    expect(await offered(["--allowedTools", "WebSearch"])).toContain("web_search");
  });

  test("the sandbox's allowed domains become the search's allowed_domains", async () => {
    const run = await runCli({
      steps: [reply().text("ok")],
      args: [
        "--output-format",
        "json",
        "--allowedTools",
        "WebSearch",
        "--sandbox-allow-domain",
        "*.example.org",
        "--sandbox-allow-domain",
        "docs.example.net",
        "--sandbox-allow-domain",
        "127.0.0.2",
      ],
    });
    expect(body(run.server.requests[0]).tools).toContainEqual({
      type: "web_search_20250305",
      name: "web_search",
      allowed_domains: ["example.org", "docs.example.net"],
    });
  });

  test("--web-search chooses the backend over CAIRN_WEB_SEARCH; a bad value is exit 2", async () => {
    const run = await runCli({
      steps: [reply().text("ok")],
      args: ["--output-format", "json", "--allowedTools", "WebSearch", "--web-search", "searxng"],
      env: { CAIRN_WEB_SEARCH: "provider" },
    });
    expect(run.code).toBe(0);
    expect(toolNames(run.server.requests[0])).toContain("WebSearch");
    expect(toolNames(run.server.requests[0])).not.toContain("web_search");
    const bad = await runCli({ steps: [], args: ["--web-search", "bing"] });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("bing");
    expect(bad.server.requests).toHaveLength(0);
  });

  test("a bad CAIRN_WEB_SEARCH is a usage error naming it", async () => {
    const run = await runCli({
      steps: [],
      args: ["--output-format", "json"],
      env: { CAIRN_WEB_SEARCH: "google" },
    });
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain("CAIRN_WEB_SEARCH=google: give provider, searxng or off");
    expect(run.server.requests).toHaveLength(0);
  });

  test("SDK: assistant messages carry server_tool_use and web_search_tool_result blocks, partial messages their stream events, the result counts the search", async () => {
    const { messages } = await runQuery([searchThenList(), reply().text("Listed.")], {
      allowedTools: ["WebSearch", "LS"],
      includePartialMessages: true,
    });
    const blocks = messages.flatMap((m: SDKMessage) =>
      m.type === "assistant" ? (m.message.content as { type: string }[]) : [],
    );
    expect(blocks.slice(0, 3)).toEqual(SERVER_BLOCKS);
    const starts = messages.flatMap((m) =>
      m.type === "stream_event" && m.event.type === "content_block_start" ? [m.event.content_block.type] : [],
    );
    expect(starts.slice(0, 2)).toEqual(["server_tool_use", "web_search_tool_result"]);
    const final = result(messages);
    expect(final.usage).toMatchObject({ server_tool_use: { web_search_requests: 1, web_fetch_requests: 0 } });
    expect(Object.values(final.modelUsage)[0]).toMatchObject({ webSearchRequests: 1 });
  });
});

describe("the provider's searches in the other doors", () => {
  test("the official agent SDK driving cairn's CLI gets the blocks in its assistant messages and stream events, and the search in the result's usage", async () => {
    const server = await startServer([searchThenList(), reply().text("Listed.")]);
    const messages: Record<string, unknown>[] = [];
    const options = {
      ...throughCairn(server, workspace()),
      allowedTools: ["WebSearch", "LS"],
      includePartialMessages: true,
    };
    for await (const message of officialQuery({ prompt: "Search", options }))
      messages.push(message as unknown as Record<string, unknown>);
    type Shaped = {
      type: string;
      message?: { content: unknown[] };
      event?: { type: string; content_block?: { type: string } };
    };
    const shaped = messages as unknown as Shaped[];
    const blocks = shaped.flatMap((m) => (m.type === "assistant" ? (m.message?.content ?? []) : []));
    expect(blocks.slice(0, 3)).toEqual(SERVER_BLOCKS);
    const starts = shaped.flatMap((m) =>
      m.type === "stream_event" && m.event?.type === "content_block_start"
        ? [m.event.content_block?.type]
        : [],
    );
    expect(starts.slice(0, 2)).toEqual(["server_tool_use", "web_search_tool_result"]);
    const final = messages.find((m) => m.type === "result");
    expect(final).toMatchObject({
      subtype: "success",
      usage: { server_tool_use: { web_search_requests: 1 } },
    });
    expect(sentBack(server.requests[1]).slice(0, 3)).toEqual(SERVER_BLOCKS);
  });

  test("the session report shows the search as a WebSearch call with its query, result titles and URLs", async () => {
    const run = await runCli({
      steps: [
        reply().webSearch("cairn building", RESULTS, "srvtoolu_search").text("Cairns are stacked stones."),
      ],
      args: ["--output-format", "json", "--allowedTools", "WebSearch"],
    });
    expect(run.code).toBe(0);
    const id = String(JSON.parse(run.stdout).session_id);
    const page = spawnCli(["report", id], { cwd: run.dir, env: serverEnv(run.server) });
    expect((await page.exited).code).toBe(0);
    const html = page.out.stdout;
    expect(html).toContain("WebSearch");
    expect(html).toContain("cairn building");
    expect(html).toContain("[Cairns of the north](https://stones.example.org/cairns)");
    expect(html).toContain("[Stone piles](https://docs.example.net/piles)");
  });
});

describe("WebSearch through OpenAI Responses' web_search", () => {
  async function responsesRun(server: ScriptedServer) {
    const env = { ...serverEnv(server), OPENAI_API_KEY: "test", OPENAI_BASE_URL: `${server.url}/v1` };
    const cli = spawnCli(
      [
        "-p",
        "Search",
        "--model",
        "openai/gpt-5",
        "--output-format",
        "stream-json",
        "--allowedTools",
        "WebSearch,LS",
      ],
      { cwd: workspace(), env },
    );
    const { code } = await cli.exited;
    return { code, events: parseLines(cli.out.stdout), stderr: cli.out.stderr };
  }

  test("the request offers web_search; a web_search_call is shown as a WebSearch call and sent back as the item it came as", async () => {
    const server = await startServer([
      reply()
        .webSearch("cairn building", RESULTS, "ws_search")
        .text("Cairns are stacked stones.", CITED)
        .tool("LS", { path: "." }, "toolu_ls"),
      reply().text("Listed."),
    ]);
    const run = await responsesRun(server);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe("");
    const first = server.requests[0];
    expect(first?.path).toBe("/v1/responses");
    expect(toolNames(first)).toContain("web_search");
    expect(toolNames(first)).not.toContain("WebSearch");
    const completed = run.events.find((event) => event.type === "tool_call" && event.subtype === "completed");
    expect(completed).toMatchObject({
      call_id: "ws_search",
      tool_call: {
        webSearchToolCall: {
          result: {
            success: { query: "cairn building", results: RESULTS.map(({ url }) => ({ title: url, url })) },
          },
        },
      },
    });
    const input =
      (server.requests[1]?.body as { input?: Record<string, unknown>[] } | undefined)?.input ?? [];
    expect(input).toContainEqual({
      type: "web_search_call",
      id: "ws_search",
      status: "completed",
      action: { type: "search", query: "cairn building" },
    });
  });
});

describe("a session that changes provider", () => {
  test("another provider's searches are not sent back (Anthropic takes only its own, OpenAI likewise); the text stays", async () => {
    // OpenAI searched; the session goes on with an Anthropic model.
    const openai = await startServer([
      reply().webSearch("cairn building", RESULTS, "ws_search").text("Cairns are stacked stones.", CITED),
    ]);
    const dir = workspace();
    const first = spawnCli(
      ["-p", "Search", "--model", "openai/gpt-5", "--output-format", "json", "--allowedTools", "WebSearch"],
      {
        cwd: dir,
        env: { ...serverEnv(openai), OPENAI_API_KEY: "test", OPENAI_BASE_URL: `${openai.url}/v1` },
      },
    );
    expect((await first.exited).code).toBe(0);
    const sessionId = String(JSON.parse(first.out.stdout).session_id);
    const anthropic = await startServer([
      reply().webSearch("more cairns", RESULTS.slice(1), "srvtoolu_more").text("Go on."),
    ]);
    const second = spawnCli(
      [
        "-p",
        "More",
        "--model",
        MODEL,
        "--resume",
        sessionId,
        "--output-format",
        "json",
        "--allowedTools",
        "WebSearch",
      ],
      { cwd: dir, env: serverEnv(anthropic) },
    );
    expect((await second.exited).code).toBe(0);
    expect(sentBack(anthropic.requests[0])).toEqual([{ type: "text", text: "Cairns are stacked stones." }]);

    // Anthropic searched too; the session goes back to the OpenAI model: only OpenAI's search goes back.
    const back = await startServer([reply().text("Again.")]);
    const third = spawnCli(
      [
        "-p",
        "Once more",
        "--model",
        "openai/gpt-5",
        "--resume",
        sessionId,
        "--output-format",
        "json",
        "--allowedTools",
        "WebSearch",
      ],
      { cwd: dir, env: { ...serverEnv(back), OPENAI_API_KEY: "test", OPENAI_BASE_URL: `${back.url}/v1` } },
    );
    expect((await third.exited).code).toBe(0);
    const input = (back.requests[0]?.body as { input?: Record<string, unknown>[] } | undefined)?.input ?? [];
    expect(input.filter((item) => item.type === "web_search_call").map((item) => item.id)).toEqual([
      "ws_search",
    ]);
    expect(JSON.stringify(input)).toContain("Go on.");
  });
});
