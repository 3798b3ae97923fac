/**
 * The Python `claude-agent-sdk` cannot be installed here (no PyPI). Its contract, from the recording
 * in the reference notes (0.2.143, read from its source): it spawns `cli_path` itself — an executable
 * with a shebang — with `--output-format stream-json --verbose --system-prompt "" … --input-format
 * stream-json`, values as separate elements, env `CLAUDE_CODE_ENTRYPOINT=sdk-py`, and writes
 * `initialize` then the user message on stdin. These tests play that part against the built CLI
 * (python-sdk.helpers.ts, with the source locations of what it imitates).
 */
import { spawn } from "node:child_process";
import { accessSync, constants, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createSdkMcpServer, tool } from "@anthropic-ai/claude-agent-sdk";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, test } from "vitest";
import * as z from "zod";
import { reply } from "../../src/testing/index.js";
import { CLI, cleanEnv, REPO, serverEnv, startServer, workspace } from "../conformance/pm/helpers.js";
import { CAIRN_CLI } from "./agent-sdk.helpers.js";
import { hostMcpServer, type Line, runAsPythonSdk } from "./python-sdk.helpers.js";

describe("the Python agent SDK's CLI contract", () => {
  test("cli_path spawned directly with its argv and env: initialize, one turn, exit 0 at stdin end", async () => {
    accessSync(CLI, constants.X_OK); // spawned directly, as the Python SDK does: no `node` in front
    const server = await startServer([reply().text("Hello, Python.")]);
    const argv = [
      "--output-format",
      "stream-json",
      "--verbose",
      "--system-prompt",
      "",
      "--max-turns",
      "3",
      "--permission-mode",
      "default",
      "--input-format",
      "stream-json",
    ];
    const child = spawn(CLI, argv, {
      cwd: workspace(),
      env: { ...serverEnv(server), CLAUDE_CODE_ENTRYPOINT: "sdk-py" },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    child.stdin.write(
      `${JSON.stringify({ type: "control_request", request_id: "req_1", request: { subtype: "initialize", hooks: null } })}\n`,
    );
    child.stdin.write(
      `${JSON.stringify({ type: "user", message: { role: "user", content: "Hi from Python" }, parent_tool_use_id: null, session_id: "default" })}\n`,
    );
    // The Python SDK closes stdin once it has the result (single-prompt query).
    const lines: Record<string, unknown>[] = [];
    await new Promise<void>((resolve) => {
      child.stdout.on("data", () => {
        const parsed = stdout
          .split("\n")
          .filter(Boolean)
          .map((line) => JSON.parse(line) as Record<string, unknown>);
        if (parsed.some((line) => line.type === "result")) {
          lines.push(...parsed);
          child.stdin.end();
          resolve();
        }
      });
    });
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(code).toBe(0);
    expect(stderr).toBe("");
    expect(lines[0]).toMatchObject({
      type: "control_response",
      response: { subtype: "success", request_id: "req_1" },
    });
    expect(lines.find((line) => line.type === "result")).toMatchObject({
      subtype: "success",
      result: "Hello, Python.",
    });
    // `--system-prompt ""` is an empty custom prompt, as in the reference: cairn's own prompt is not sent.
    const sent = JSON.stringify(server.requests[0]!.body);
    expect(sent).toContain("Hi from Python");
    expect(sent).not.toContain("You are cairn");
  });

  test("an in-process MCP server passed as --mcp-config {type: sdk, name} runs through mcp_message", async () => {
    // `ClaudeAgentOptions(mcp_servers={"calc": create_sdk_mcp_server("calc", tools=[add])})`: the SDK
    // writes the server into --mcp-config without its instance (subprocess_cli.py, _build_command)
    // and serves it itself. cairn refused the entry and exited 2 before the first turn.
    const server = await startServer([
      reply().tool("mcp__calc__add", { a: 2, b: 3 }),
      reply().text("Sum is 5."),
    ]);
    const calc = createSdkMcpServer({
      name: "calc",
      version: "1.0.0",
      tools: [
        tool("add", "Add two numbers", { a: z.number(), b: z.number() }, async ({ a, b }) => ({
          content: [{ type: "text", text: `sum=${a + b}` }],
        })),
      ],
    });
    const toCalc = await hostMcpServer(calc.instance);
    const methods: string[] = [];
    const run = await runAsPythonSdk({
      argv: [
        "--allowedTools",
        "mcp__calc__add",
        "--mcp-config",
        JSON.stringify({ mcpServers: { calc: { type: "sdk", name: "calc" } } }),
      ],
      prompt: "Add 2 and 3",
      cwd: workspace(),
      env: serverEnv(server),
      answer: async (request) => {
        if (request.subtype !== "mcp_message" || request.server_name !== "calc")
          throw new Error(`unexpected ${request.subtype}`);
        const message = request.message as JSONRPCMessage & { method?: string };
        if (message.method) methods.push(message.method);
        return { mcp_response: await toCalc(message) };
      },
    });
    expect(run.code).toBe(0);
    expect(run.stderr).toBe("");
    expect(run.lines.find((line) => line.type === "result")).toMatchObject({
      subtype: "success",
      result: "Sum is 5.",
    });
    expect(methods).toContain("tools/call");
    expect(JSON.stringify(server.requests[1]!.body)).toContain("sum=5");
  });

  test("a hook with matcher null (HookMatcher(matcher=None)) is called for every tool", async () => {
    // query.py, initialize: each matcher is sent as {"matcher": matcher.get("matcher"), …}, so
    // HookMatcher(matcher=None), the documented way to hook every tool, arrives as null. cairn
    // answered initialize with an error, and the SDK's query() raises on that.
    const server = await startServer([
      reply().tool("Read", { file_path: "notes.txt" }),
      reply().tool("Write", { file_path: "out.txt", content: "x\n" }),
      reply().text("Could not write."),
    ]);
    const cwd = workspace();
    writeFileSync(join(cwd, "notes.txt"), "hello\n");
    const seen: string[] = [];
    const run = await runAsPythonSdk({
      argv: ["--permission-mode", "acceptEdits"],
      initialize: { hooks: { PreToolUse: [{ matcher: null, hookCallbackIds: ["hook_0"] }] } },
      prompt: "Copy notes.txt to out.txt",
      cwd,
      env: serverEnv(server),
      answer: async (request) => {
        if (request.subtype !== "hook_callback" || request.callback_id !== "hook_0")
          throw new Error(`unexpected ${request.subtype}`);
        const toolName = (request.input as { tool_name: string }).tool_name;
        seen.push(toolName);
        if (toolName !== "Write") return {};
        return {
          hookSpecificOutput: {
            hookEventName: "PreToolUse",
            permissionDecision: "deny",
            permissionDecisionReason: "No writes today.",
          },
        };
      },
    });
    expect(run.code).toBe(0);
    expect(run.lines[0]).toMatchObject({ type: "control_response", response: { subtype: "success" } });
    expect(seen).toEqual(["Read", "Write"]);
    expect(existsSync(join(cwd, "out.txt"))).toBe(false);
    expect(JSON.stringify(server.requests[2]!.body)).toContain("No writes today.");
    expect(run.lines.find((line: Line) => line.type === "result")).toMatchObject({ subtype: "success" });
  });

  test("the version probe (cli_path -v) reads a Claude Code version at or above the SDK's minimum", async () => {
    // subprocess_cli.py, _check_claude_version: before every query the SDK runs [cli_path, "-v"],
    // takes re.match(r"([0-9]+\.[0-9]+\.[0-9]+)") of the output and logs a warning when it is
    // below MINIMUM_CLAUDE_CODE_VERSION ("2.0.0"). cairn printed 0.1.0, its own version.
    const probe = spawn(CAIRN_CLI, ["-v"], { cwd: workspace(), env: cleanEnv(), stdio: "pipe" });
    let stdout = "";
    let stderr = "";
    probe.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    probe.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    expect(await new Promise((resolve) => probe.on("close", resolve))).toBe(0);
    const version = /^([0-9]+)\.([0-9]+)\.([0-9]+)/.exec(stdout.trim());
    expect(version).not.toBeNull();
    // Python compares the lists [major, minor, patch]: the first part that differs decides.
    const parts = version!.slice(1).map(Number);
    const minimum = [2, 0, 0];
    const differs = parts.findIndex((part, i) => part !== minimum[i]);
    expect(differs === -1 || parts[differs]! > minimum[differs]!).toBe(true);
    // cairn's own version is still named, after it.
    const pkg = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { version: string };
    expect(stdout).toContain(`cairn ${pkg.version}`);
    expect(stderr).toBe("");
  });
});
