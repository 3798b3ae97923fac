import { spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { reply } from "../../src/testing/index.js";
import {
  cleanEnv,
  MODEL,
  ofType,
  runCli,
  serverEnv,
  spawnCli,
  startServer,
  workspace,
} from "../conformance/pm/helpers.js";
import { isAlive } from "../helpers/process.js";
import { closeWebServers, startForwardProxy } from "../helpers/web-servers.js";
import { EVERYTHING, FIXTURE, freePort, mcpConfig, stdioServer } from "./helpers.js";

type Event = Record<string, unknown>;
const completed = (events: Event[]) =>
  events.filter((e) => e.type === "tool_call" && e.subtype === "completed");
const fn = (event: Event) =>
  (event.tool_call as { function: { name: string; result: Record<string, unknown> } }).function;
/** What the model was sent in its n-th request, as text. */
const sent = (run: { server: { requests: readonly { body: unknown }[] } }, n: number) =>
  JSON.stringify(run.server.requests[n]!.body);

const stopAfter: (() => void)[] = [];
afterEach(() => {
  for (const stop of stopAfter.splice(0)) stop();
});

describe("MCP servers in print mode", () => {
  test("a real stdio server from npm: its tool runs when a rule allows it, and the result reaches the model", async () => {
    const run = await runCli({
      steps: [reply().tool("mcp__everything__echo", { message: "hello over stdio" }), reply().text("Done.")],
      args: [
        "--output-format",
        "stream-json",
        "--mcp-config",
        mcpConfig({ everything: stdioServer(EVERYTHING) }),
        "--allowedTools",
        "mcp__everything",
      ],
    });
    expect(run.code).toBe(0);
    const [init] = ofType(run.events, "system");
    expect(init).toMatchObject({ mcp_servers: [{ name: "everything", status: "connected" }] });
    expect(init!.tools).toContain("mcp__everything__echo");
    const [call] = completed(run.events);
    expect(fn(call!)).toMatchObject({
      name: "mcp__everything__echo",
      result: { success: { content: "Echo: hello over stdio" } },
    });
    expect(sent(run, 1)).toContain("Echo: hello over stdio");
    // The tools were offered to the model under their prefixed names.
    expect(sent(run, 0)).toContain('"name":"mcp__everything__get-sum"');
    expect(run.stderr).toBe("");
  });

  test("without an allow rule an MCP tool is refused in print mode, unless it is declared read-only", async () => {
    const run = await runCli({
      steps: [
        reply().tool("mcp__fixture__write_note", { text: "x" }),
        reply().tool("mcp__fixture__read_note", {}),
        reply().text("Done."),
      ],
      args: ["--output-format", "stream-json", "--mcp-config", mcpConfig({ fixture: stdioServer(FIXTURE) })],
    });
    expect(run.code).toBe(0);
    const [write, read] = completed(run.events).map(fn);
    expect(write!.result).toEqual({
      error: { message: expect.stringContaining("mcp__fixture__write_note") },
      rejected: { reason: expect.stringContaining("mcp__fixture__write_note") },
    });
    expect(read!.result).toMatchObject({ success: { content: expect.stringMatching(/^note: /) } });
    const result = ofType(run.events, "result")[0];
    expect(result).toMatchObject({ subtype: "success" });
  });

  test("a stdio server gets no provider keys, only its configured env", async () => {
    const run = await runCli({
      steps: [reply().tool("mcp__fixture__read_note", {}), reply().text("Done.")],
      args: [
        "--output-format",
        "stream-json",
        "--mcp-config",
        mcpConfig({ fixture: stdioServer(FIXTURE, { FIXTURE_NOTE: "configured" }) }),
      ],
    });
    expect(fn(completed(run.events)[0]!).result).toEqual({
      success: { content: "note: configured; key: absent" },
    });
  });

  test("a real Streamable HTTP server on 127.0.0.1, with headers", async () => {
    const port = await freePort();
    const child = spawn(process.execPath, [EVERYTHING, "streamableHttp"], {
      env: { ...process.env, PORT: String(port) },
      stdio: ["ignore", "ignore", "pipe"],
    });
    stopAfter.push(() => child.kill("SIGKILL"));
    await new Promise<void>((resolve) => {
      child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
        if (chunk.includes("listening")) resolve();
      });
    });
    const run = await runCli({
      steps: [reply().tool("mcp__remote__get-sum", { a: 2, b: 40 }), reply().text("Done.")],
      args: [
        "--output-format",
        "stream-json",
        "--mcp-config",
        mcpConfig({
          remote: { type: "http", url: `http://127.0.0.1:${port}/mcp`, headers: { "X-Test": "1" } },
        }),
        "--allowedTools",
        "mcp__remote__get-sum",
      ],
    });
    expect(run.code).toBe(0);
    expect(JSON.stringify(fn(completed(run.events)[0]!).result)).toContain("42");
    expect(sent(run, 1)).toContain("42");
  });

  test("a Streamable HTTP server is reached through HTTP_PROXY like the model (a proxy on 127.0.0.1)", async () => {
    const port = await freePort();
    const child = spawn(process.execPath, [EVERYTHING, "streamableHttp"], {
      env: { ...process.env, PORT: String(port) },
      stdio: ["ignore", "ignore", "pipe"],
    });
    stopAfter.push(() => child.kill("SIGKILL"));
    await new Promise<void>((resolve) => {
      child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
        if (chunk.includes("listening")) resolve();
      });
    });
    const proxy = await startForwardProxy();
    stopAfter.push(() => void closeWebServers());
    const run = await runCli({
      steps: [reply().tool("mcp__remote__get-sum", { a: 2, b: 40 }), reply().text("Done.")],
      args: [
        "--output-format",
        "stream-json",
        "--mcp-config",
        mcpConfig({ remote: { type: "http", url: `http://127.0.0.1:${port}/mcp` } }),
        "--allowedTools",
        "mcp__remote__get-sum",
      ],
      env: { HTTP_PROXY: proxy.url, HTTPS_PROXY: proxy.url },
    });
    expect(run.code).toBe(0);
    expect(run.stderr).toBe("");
    expect(JSON.stringify(fn(completed(run.events)[0]!).result)).toContain("42");
    expect(proxy.seen).toContain(`127.0.0.1:${port}`);
    expect(proxy.seen).toContain(`127.0.0.1:${run.server.port}`);
  });

  test("an --mcp-config that is not a config file (a device, endless) is refused (exit 2) without filling memory", async () => {
    const run = await runCli({
      steps: [reply().text("never")],
      args: ["--output-format", "json", "--mcp-config", "/dev/zero"],
    });
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toBe("cairn: --mcp-config: /dev/zero cannot be read (larger than 16 MiB)\n");
  });

  test("a server that cannot start is reported, and the run goes on without it", async () => {
    const run = await runCli({
      steps: [reply().text("Still here.")],
      args: [
        "--output-format",
        "stream-json",
        "--mcp-config",
        mcpConfig({ broken: { command: "/nonexistent/mcp-server" } }),
      ],
    });
    expect(run.code).toBe(0);
    expect(ofType(run.events, "system")[0]).toMatchObject({
      mcp_servers: [{ name: "broken", status: "failed" }],
    });
    expect(run.stderr).toMatch(/^cairn: MCP server broken failed: .+\n$/);
    expect(ofType(run.events, "result")[0]).toMatchObject({ result: "Still here." });
  });

  test("a server that crashes mid-run turns its call into an error the model reads, never a hang", async () => {
    const run = await runCli({
      steps: [
        reply().tool("mcp__fixture__crash", {}),
        reply().tool("mcp__fixture__read_note", {}),
        reply().text("Done."),
      ],
      args: [
        "--output-format",
        "stream-json",
        "--mcp-config",
        mcpConfig({ fixture: stdioServer(FIXTURE) }),
        "--allowedTools",
        "mcp__fixture",
      ],
    });
    expect(run.code).toBe(0);
    const [crash, after] = completed(run.events).map(fn);
    expect(crash!.result).toHaveProperty("error");
    expect(after!.result).toHaveProperty("error");
    expect(sent(run, 1)).toContain("mcp__fixture");
    expect(run.stderr).toContain("MCP server fixture: the server closed the connection");
  });

  test("a slow tool times out with the server's configured timeout, as an error", async () => {
    const run = await runCli({
      steps: [reply().tool("mcp__fixture__slow", { ms: 30_000 }), reply().text("Done.")],
      args: [
        "--output-format",
        "stream-json",
        "--mcp-config",
        mcpConfig({ fixture: { ...stdioServer(FIXTURE), timeout: 500 } }),
        "--allowedTools",
        "mcp__fixture",
      ],
    });
    expect(run.code).toBe(0);
    expect(fn(completed(run.events)[0]!).result).toEqual({
      error: { message: expect.stringMatching(/timed out/i) },
    });
  });

  test("SIGINT during an MCP call: exit 130, and the server's whole process group ends", async () => {
    const server = await startServer([
      reply().tool("mcp__fixture__spawn_child", { pidFile: "child.pid" }),
      reply().tool("mcp__fixture__slow", { ms: 60_000 }),
      reply().text("never"),
    ]);
    const dir = workspace();
    const cli = spawnCli(
      [
        "-p",
        "go",
        "--model",
        MODEL,
        "--output-format",
        "stream-json",
        "--mcp-config",
        mcpConfig({ fixture: stdioServer(FIXTURE) }),
        "--allowedTools",
        "mcp__fixture",
      ],
      { cwd: dir, env: serverEnv(server) },
    );
    while (!cli.out.stdout.includes(`"name":"mcp__fixture__slow","arguments"`))
      await new Promise((r) => setTimeout(r, 50));
    const childPid = Number(readFileSync(join(dir, "child.pid"), "utf8"));
    expect(isAlive(childPid)).toBe(true);
    cli.child.kill("SIGINT");
    expect(await cli.exited).toEqual({ code: 130, signal: null });
    for (let i = 0; i < 60 && isAlive(childPid); i += 1) await new Promise((r) => setTimeout(r, 50));
    expect(isAlive(childPid)).toBe(false);
  });

  test("project servers (.mcp.json, .cursor/mcp.json) start only when approved", async () => {
    const files = {
      ".mcp.json": mcpConfig({ fixture: stdioServer(FIXTURE) }),
      ".cursor/mcp.json": mcpConfig({ other: stdioServer(FIXTURE) }),
    };
    const steps = [reply().tool("mcp__fixture__read_note", {}), reply().text("Done.")];
    const refused = await runCli({ files, steps, args: ["--output-format", "stream-json"] });
    expect(ofType(refused.events, "system")[0]).toMatchObject({
      mcp_servers: [
        { name: "fixture", status: "disabled" },
        { name: "other", status: "disabled" },
      ],
    });
    expect(refused.stderr).toMatch(/MCP server fixture disabled: .*--approve-mcps/);
    expect(fn(completed(refused.events)[0]!).result).toHaveProperty("error");

    const approved = await runCli({
      files,
      steps,
      // Approval is what this is about; the OS sandbox would hide the fixture's files when the
      // repository itself lives under /tmp (test/security/sandbox-project-code.test.ts covers it).
      args: ["--output-format", "stream-json", "--approve-mcps", "--sandbox", "disabled"],
    });
    expect(ofType(approved.events, "system")[0]).toMatchObject({
      mcp_servers: [
        { name: "fixture", status: "connected" },
        { name: "other", status: "connected" },
      ],
    });
    expect(fn(completed(approved.events)[0]!).result).toHaveProperty("success");
  });

  test("--strict-mcp-config uses only --mcp-config; a malformed --mcp-config is a usage error", async () => {
    const strict = await runCli({
      files: { ".mcp.json": mcpConfig({ fixture: stdioServer(FIXTURE) }) },
      steps: [reply().text("Hi.")],
      args: ["--output-format", "stream-json", "--strict-mcp-config", "--approve-mcps"],
    });
    expect(ofType(strict.events, "system")[0]).not.toHaveProperty("mcp_servers");
    const bad = await runCli({ steps: [], args: ["--mcp-config", '{"mcpServers":{"x":{"args":[]}}}'] });
    expect(bad.code).toBe(2);
    expect(bad.stdout).toBe("");
    expect(bad.stderr).toMatch(/^cairn: --mcp-config: mcpServers\.x/);
    const missing = await runCli({ steps: [], args: ["--mcp-config", "nope.json"] });
    expect(missing.code).toBe(2);
  });

  test("a file given to --mcp-config works like inline JSON", async () => {
    const dir = workspace();
    writeFileSync(join(dir, "servers.json"), mcpConfig({ fixture: stdioServer(FIXTURE) }));
    const run = await runCli({
      steps: [reply().text("Hi.")],
      args: ["--output-format", "stream-json", "--mcp-config", join(dir, "servers.json")],
    });
    expect(ofType(run.events, "system")[0]).toMatchObject({
      mcp_servers: [{ name: "fixture", status: "connected" }],
    });
    expect(existsSync(join(dir, "servers.json"))).toBe(true);
  });
});

describe("cairn mcp", () => {
  test("list: servers, status, tool count and source, with no model call; list-tools: names and read-only hints", async () => {
    const dir = workspace({ ".mcp.json": mcpConfig({ fixture: stdioServer(FIXTURE) }) });
    const env = cleanEnv();
    const config = mcpConfig({ everything: stdioServer(EVERYTHING) });
    const listed = spawnCli(["mcp", "list", "--json", "--mcp-config", config], { cwd: dir, env });
    expect(await listed.exited).toEqual({ code: 0, signal: null });
    const servers = JSON.parse(listed.out.stdout) as {
      name: string;
      status: string;
      tools: number;
      source: string;
    }[];
    expect(servers.map(({ name, status }) => [name, status])).toEqual([
      ["fixture", "disabled"],
      ["everything", "connected"],
    ]);
    expect(servers[0]!.source).toBe(join(dir, ".mcp.json"));
    expect(servers[1]!.tools).toBeGreaterThan(5);

    const approved = spawnCli(["mcp", "list", "--approve-mcps", "--sandbox", "disabled"], { cwd: dir, env });
    expect(await approved.exited).toEqual({ code: 0, signal: null });
    expect(approved.out.stdout).toMatch(/^NAME +STATUS +TOOLS +SOURCE\nfixture +connected +6 /);

    const tools = spawnCli(["mcp", "list-tools", "fixture", "--approve-mcps", "--sandbox", "disabled"], {
      cwd: dir,
      env,
    });
    expect(await tools.exited).toEqual({ code: 0, signal: null });
    expect(tools.out.stdout).toContain("mcp__fixture__read_note  [read-only]  Reads a note");
    expect(tools.out.stdout).toContain("mcp__fixture__write_note  Writes a note");

    const unknown = spawnCli(["mcp", "list-tools", "nope"], { cwd: dir, env });
    expect((await unknown.exited).code).toBe(2);
    expect(unknown.out.stderr).toMatch(/^cairn: no MCP server named nope/);
  });
});
