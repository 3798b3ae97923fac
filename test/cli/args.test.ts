import { describe, expect, test } from "vitest";
import { parseArgs } from "../../src/cli/args.js";
import { UsageError } from "../../src/util/exit-codes.js";

describe("parseArgs", () => {
  test("defaults", () => {
    expect(parseArgs(["-p", "Hello", "world"], "1.0.0")).toEqual({
      print: true,
      outputFormat: "text",
      streamPartialOutput: false,
      force: false,
      continueLatest: false,
      forkSession: false,
      allowedTools: [],
      disallowedTools: [],
      addDirs: [],
      failOnDenial: false,
      mcpConfigs: [],
      strictMcpConfig: false,
      approveMcps: false,
      trust: false,
      listModels: false,
      screenReader: false,
      printThinking: false,
      sandboxNetwork: false,
      sandboxAllowDomains: [],
      prompt: "Hello world",
      longSession: {},
    });
  });

  test("--sandbox-allow-domain is repeatable, in order", () => {
    const options = parseArgs(
      ["-p", "go", "--sandbox-allow-domain", "*.npmjs.org", "--sandbox-allow-domain", "github.com"],
      "1.0.0",
    );
    expect(options !== "handled" && options.sandboxAllowDomains).toEqual(["*.npmjs.org", "github.com"]);
  });

  test("every flag", () => {
    expect(
      parseArgs(
        [
          "--print",
          "--output-format",
          "stream-json",
          "--stream-partial-output",
          "-m",
          "anthropic/x",
          "--api-key",
          "k",
          "--base-url",
          "http://127.0.0.1:9/v1",
          "--yolo",
          "--workspace",
          "/tmp",
          "--max-turns",
          "3",
          "--resume",
          "1b4e28ba-2fa1-4d3b-a3f5-ef19b5a7633b",
          "--fork-session",
          "--permission-mode",
          "acceptEdits",
          "--allowedTools",
          "Read",
          "Bash(git log:*)",
          "--disallowed-tools",
          "Write",
          "--add-dir",
          "/opt/shared",
          "--fail-on-denial",
          "--mcp-config",
          "a.json",
          "--mcp-config",
          '{"mcpServers":{}}',
          "--strict-mcp-config",
          "--approve-mcps",
          "--trust",
          "--max-budget-usd",
          "2.5",
          "--fallback-model",
          "haiku",
          "--context-window",
          "65536",
          "--max-thinking-tokens",
          "1024",
          "--effort",
          "high",
          "--sandbox",
          "enabled",
          "--sandbox-network",
          "-H",
          "X-Team: blue",
          "--header",
          "X-Trace:a:b",
          "--tool-payloads",
          "full",
          "--print-thinking",
          "--",
          "go",
        ],
        "1.0.0",
      ),
    ).toEqual({
      print: true,
      outputFormat: "stream-json",
      streamPartialOutput: true,
      model: "anthropic/x",
      apiKey: "k",
      baseUrl: "http://127.0.0.1:9/v1",
      force: true,
      workspace: "/tmp",
      maxTurns: 3,
      resume: "1b4e28ba-2fa1-4d3b-a3f5-ef19b5a7633b",
      continueLatest: false,
      forkSession: true,
      permissionMode: "acceptEdits",
      allowedTools: ["Read", "Bash(git log:*)"],
      disallowedTools: ["Write"],
      addDirs: ["/opt/shared"],
      failOnDenial: true,
      mcpConfigs: ["a.json", '{"mcpServers":{}}'],
      strictMcpConfig: true,
      approveMcps: true,
      trust: true,
      listModels: false,
      screenReader: false,
      headers: { "X-Team": "blue", "X-Trace": "a:b" },
      toolPayloads: "full",
      printThinking: true,
      sandbox: "enabled",
      sandboxNetwork: true,
      sandboxAllowDomains: [],
      // --yolo (--force) and --permission-mode together: the mode is said not to apply.
      notes: [
        "--permission-mode acceptEdits does not apply: --yolo runs every call without asking (bypassPermissions).",
      ],
      prompt: "go",
      longSession: {
        maxBudgetUsd: 2.5,
        fallbackModel: "haiku",
        contextWindow: 65536,
        thinking: { type: "enabled", budgetTokens: 1024 },
        effort: "high",
      },
    });
    expect(parseArgs(["-f", "x"], "1")).toMatchObject({ force: true });
  });

  test.each([
    [["--nope"], /unknown option '--nope'/],
    [["--output-format", "yaml"], /argument 'yaml' is invalid/],
    [["--max-turns", "1.5"], /--max-turns must be a positive integer/],
    [["--model"], /argument missing/],
    [["--fork-session", "-p", "x"], /--fork-session needs --resume/],
    [["--permission-mode", "yolo"], /argument 'yolo' is invalid/],
    [["--context-window", "512"], /--context-window must be a whole number of at least 1024/],
    [["--effort", "extreme"], /argument 'extreme' is invalid/],
    [["--sandbox", "on"], /argument 'on' is invalid.*auto, enabled, disabled/],
  ])("%j is a usage error", (argv, message) => {
    expect(() => parseArgs(argv, "1")).toThrow(UsageError);
    expect(() => parseArgs(argv, "1")).toThrow(message);
  });
});
