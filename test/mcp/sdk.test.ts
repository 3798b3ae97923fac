import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, test } from "vitest";
import * as z from "zod";
import * as z3 from "zod/v3";
import { createSdkMcpServer, query, tool } from "../../src/index.js";
import { reply } from "../../src/testing/index.js";
import {
  cleanUp,
  type collect,
  envFor,
  examplePath,
  init,
  result,
  runProgram,
  runQuery,
  startServer,
  users,
  workspace,
} from "../sdk/helpers.js";
import { EVERYTHING, FIXTURE, stdioServer } from "./helpers.js";

afterEach(cleanUp);

/** The tool_result blocks the SDK yielded, by tool_use id. */
function toolResults(messages: Awaited<ReturnType<typeof collect>>) {
  const out = new Map<string, { content: unknown; is_error?: boolean }>();
  for (const message of users(messages))
    for (const block of message.message.content as { type: string; tool_use_id: string }[])
      if (block.type === "tool_result") out.set(block.tool_use_id, block as never);
  return out;
}

const adder = () =>
  createSdkMcpServer({
    name: "math",
    tools: [
      tool("add", "Adds two numbers", { a: z.number(), b: z.number() }, async ({ a, b }) => ({
        content: [{ type: "text", text: String(a + b) }],
      })),
      tool("explode", "Always throws", {}, async () => {
        throw new Error("kaboom");
      }),
      tool("legacy", "Zod 3 schema", { word: z3.string() }, async ({ word }) => ({
        content: [{ type: "text", text: `legacy ${String(word)}` }],
      })),
    ],
  });

describe("MCP in the SDK", () => {
  test("an in-process server: tools appear as mcp__<server>__<tool>, results reach the model, a throw is an is_error result", async () => {
    const { server, messages } = await runQuery(
      [
        reply().tool("mcp__math__add", { a: 2, b: 3 }, "toolu_add"),
        reply().tool("mcp__math__explode", {}, "toolu_boom"),
        reply().tool("mcp__math__legacy", { word: "hi" }, "toolu_legacy"),
        reply().text("Done."),
      ],
      { mcpServers: { math: adder() }, allowedTools: ["mcp__math"] },
    );
    expect(init(messages)).toMatchObject({ mcp_servers: [{ name: "math", status: "connected" }] });
    expect(init(messages).tools).toEqual(expect.arrayContaining(["mcp__math__add", "mcp__math__explode"]));
    const results = toolResults(messages);
    expect(results.get("toolu_add")).toMatchObject({ content: "5" });
    expect(results.get("toolu_add")).not.toHaveProperty("is_error", true);
    expect(results.get("toolu_boom")).toMatchObject({
      is_error: true,
      content: expect.stringContaining("kaboom"),
    });
    expect(results.get("toolu_legacy")).toMatchObject({ content: "legacy hi" });
    expect(JSON.stringify(server.requests[1]!.body)).toContain('"5"');
    expect(result(messages)).toMatchObject({ subtype: "success", result: "Done." });
  });

  test("input the schema rejects never reaches the handler or canUseTool", async () => {
    const asked: string[] = [];
    const { messages } = await runQuery(
      [reply().tool("mcp__math__add", { a: "two" }, "toolu_bad"), reply().text("Done.")],
      {
        mcpServers: { math: adder() },
        canUseTool: async (name) => {
          asked.push(name);
          return { behavior: "allow" };
        },
      },
    );
    expect(asked).toEqual([]);
    expect(toolResults(messages).get("toolu_bad")).toMatchObject({
      is_error: true,
      content: expect.stringContaining("InputValidationError"),
    });
  });

  test("without a rule an MCP tool goes to canUseTool; mcpServerStatus() lists servers and tools", async () => {
    const server = await startServer([reply().tool("mcp__math__add", { a: 1, b: 1 }), reply().text("Done.")]);
    const asked: string[] = [];
    const q = query({
      prompt: "Go",
      options: {
        cwd: workspace(),
        env: envFor(server),
        mcpServers: { math: adder(), fixture: stdioServer(FIXTURE) },
        canUseTool: async (name) => {
          asked.push(name);
          return { behavior: "deny", message: "no" };
        },
      },
    });
    const messages: Awaited<ReturnType<typeof collect>> = [];
    for await (const message of q) {
      messages.push(message);
      if (message.type === "system" && message.subtype === "init") {
        const status = await q.mcpServerStatus();
        expect(status.map((s) => [s.name, s.status])).toEqual([
          ["math", "connected"],
          ["fixture", "connected"],
        ]);
        expect(status[1]!.tools).toEqual(
          expect.arrayContaining([
            expect.objectContaining({ name: "read_note", annotations: { readOnly: true } }),
          ]),
        );
      }
    }
    expect(asked).toEqual(["mcp__math__add"]);
    expect(result(messages).permission_denials).toEqual([
      expect.objectContaining({ tool_name: "mcp__math__add" }),
    ]);
  });

  test("a failing server is a warning and a failed status; the query goes on", async () => {
    const { messages } = await runQuery([reply().text("Hi.")], {
      mcpServers: { broken: { command: "/nonexistent/server" } },
    });
    expect(init(messages).mcp_servers).toEqual([{ name: "broken", status: "failed" }]);
    expect(messages).toContainEqual(
      expect.objectContaining({
        subtype: "informational",
        tag: "mcp",
        content: expect.stringContaining("broken failed"),
      }),
    );
    expect(result(messages)).toMatchObject({ subtype: "success" });
  });

  test("a real stdio server from npm through options.mcpServers", async () => {
    const { messages } = await runQuery(
      [reply().tool("mcp__everything__echo", { message: "sdk" }, "toolu_echo"), reply().text("Done.")],
      { mcpServers: { everything: stdioServer(EVERYTHING) }, allowedTools: ["mcp__everything__echo"] },
    );
    expect(toolResults(messages).get("toolu_echo")).toMatchObject({ content: "Echo: sdk" });
  });

  test("a malformed server config rejects the first next() before any message", async () => {
    const server = await startServer([]);
    const q = query({
      prompt: "Go",
      options: { cwd: workspace(), env: envFor(server), mcpServers: { bad: { url: "not a url" } as never } },
    });
    await expect(q.next()).rejects.toThrow(/mcpServers\.bad/);
  });
});

describe("the custom-tool programs of the public agent-SDK docs run on cairn", () => {
  test("unit converter: three queries, each calls convert_units and prints the answer", async () => {
    const steps = [
      ["length", "kilometers", "miles", 100],
      ["temperature", "fahrenheit", "celsius", 72],
      ["weight", "kilograms", "pounds", 5],
    ].flatMap(([unit_type, from_unit, to_unit, value]) => [
      reply().tool("mcp__converter__convert_units", { unit_type, from_unit, to_unit, value }),
      reply().text(`Answer for ${from_unit}.`),
    ]);
    const server = await startServer(steps);
    const run = await runProgram(examplePath("custom-tools-converter.ts"), {
      cwd: workspace(),
      env: envFor(server),
    });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("[tool call] mcp__converter__convert_units");
    expect(run.stdout).toContain("Q: Convert 100 kilometers to miles.\nA: Answer for kilometers.");
    expect(run.stdout).toContain("Q: How many pounds is 5 kilograms?\nA: Answer for kilograms.");
    // The handler's answers went back to the model.
    const sent = server.requests.map((request) => JSON.stringify(request.body)).join("\n");
    expect(sent).toContain("100 kilometers = 62.1371 miles");
    expect(sent).toContain("72 fahrenheit = 22.2222 celsius");
    expect(sent).toContain("5 kilograms = 11.0231 pounds");
  });

  test("fetch_data (error handling): a 200 is data, a 404 an isError result, both read by the model", async () => {
    const api = createServer((request, response) => {
      if (request.url === "/status")
        response.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}');
      else response.writeHead(404, "Not Found").end();
    });
    await new Promise<void>((resolve) => api.listen(0, "127.0.0.1", resolve));
    const base = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
    try {
      const server = await startServer([
        reply().tool("mcp__api__fetch_data", { endpoint: `${base}/status` }),
        reply().tool("mcp__api__fetch_data", { endpoint: `${base}/missing` }),
        reply().text("The status is ok; the other endpoint is missing."),
      ]);
      const run = await runProgram(examplePath("custom-tools-fetch-data.ts"), {
        cwd: workspace(),
        env: envFor(server),
      });
      expect(run.stderr).toBe("");
      expect(run.stdout).toBe("The status is ok; the other endpoint is missing.\n");
      const second = JSON.stringify(server.requests[1]!.body);
      expect(second).toContain('\\"ok\\": true');
      const third = JSON.stringify(server.requests[2]!.body);
      expect(third).toContain("API error: 404 Not Found");
      expect(third).toMatch(/"is_error":true/);
    } finally {
      api.close();
    }
  });

  test("annotations: a readOnlyHint tool runs without an allow rule", async () => {
    const server = await startServer([
      reply().tool("mcp__weather__get_temperature", { latitude: 37.77, longitude: -122.42 }),
      reply().text("It is ... degrees."),
    ]);
    const run = await runProgram(examplePath("custom-tools-annotations.ts"), {
      cwd: workspace(),
      env: envFor(server),
    });
    expect(run.stderr).toBe("");
    expect(run.stdout).toContain('"content":"..."');
    expect(run.stdout).not.toContain('"is_error":true');
    expect(run.stdout).toContain("success: It is ... degrees.");
  });
});

describe("MCP resources and servers changed mid-query", () => {
  test("ListMcpResources / ReadMcpResource read what a real server publishes, without a rule", async () => {
    const uri = "demo://resource/static/document/architecture.md";
    const { server, messages } = await runQuery(
      [
        reply().tool("ListMcpResources", {}, "toolu_list"),
        reply().tool("ReadMcpResource", { server: "everything", uri }, "toolu_read"),
        reply().text("Done."),
      ],
      { mcpServers: { everything: stdioServer(EVERYTHING) } },
    );
    expect(init(messages).tools).toEqual(expect.arrayContaining(["ListMcpResources", "ReadMcpResource"]));
    const results = toolResults(messages);
    expect(results.get("toolu_list")).toMatchObject({ content: expect.stringContaining(uri) });
    expect(results.get("toolu_read")?.is_error).not.toBe(true);
    expect(String(results.get("toolu_read")?.content).length).toBeGreaterThan(50);
    expect(JSON.stringify(server.requests[2]!.body)).toContain("architecture");
  });

  test("toggleMcpServer, setMcpServers and reconnectMcpServer change the next turn's tools", async () => {
    const server = await startServer([
      reply().text("one"),
      reply().text("two"),
      reply().text("three"),
      reply().text("four"),
    ]);
    // The query asks for the next prompt only after its consumer has taken the result: what is
    // changed while handling a result applies to the next turn.
    async function* prompts() {
      for (const text of ["1", "2", "3", "4"])
        yield {
          type: "user" as const,
          message: { role: "user" as const, content: text },
          parent_tool_use_id: null,
        };
    }
    const q = query({
      prompt: prompts(),
      options: { cwd: workspace(), env: envFor(server), mcpServers: { math: adder() } },
    });
    const toolsPerTurn: string[][] = [];
    let turn = 0;
    for await (const message of q) {
      if (message.type === "system" && message.subtype === "init")
        toolsPerTurn.push(message.tools.filter((t) => t.startsWith("mcp__")));
      if (message.type !== "result") continue;
      turn += 1;
      if (turn === 1) await q.toggleMcpServer("math", false);
      if (turn === 2) {
        const changed = await q.setMcpServers({ fixture: stdioServer(FIXTURE) });
        expect(changed).toEqual({ added: ["fixture"], removed: ["math"], errors: {} });
      }
      if (turn === 3) await q.reconnectMcpServer("fixture");
    }
    expect(toolsPerTurn[0]).toEqual(expect.arrayContaining(["mcp__math__add"]));
    expect(toolsPerTurn[1]).toEqual([]);
    expect(toolsPerTurn[2]).toEqual(expect.arrayContaining(["mcp__fixture__read_note"]));
    expect(toolsPerTurn[2]).not.toContain("mcp__math__add");
    expect(toolsPerTurn[3]).toEqual(expect.arrayContaining(["mcp__fixture__read_note"]));
    const offered = (n: number) => JSON.stringify((server.requests[n]!.body as { tools: unknown }).tools);
    expect(offered(1)).not.toContain("mcp__math__add");
    expect(offered(2)).toContain("mcp__fixture__read_note");
  });
});
