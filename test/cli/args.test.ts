import { describe, expect, test } from "vitest";
import { parseArgs } from "../../src/cli/args.js";
import { UsageError } from "../../src/cli/exit-codes.js";

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
      sandboxNetwork: false,
      prompt: "Hello world",
    });
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
          "plan",
          "--allowedTools",
          "Read",
          "Bash(git log:*)",
          "--disallowed-tools",
          "Write",
          "--add-dir",
          "/opt/shared",
          "--fail-on-denial",
          "--sandbox",
          "enabled",
          "--sandbox-network",
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
      permissionMode: "plan",
      allowedTools: ["Read", "Bash(git log:*)"],
      disallowedTools: ["Write"],
      addDirs: ["/opt/shared"],
      failOnDenial: true,
      sandbox: "enabled",
      sandboxNetwork: true,
      prompt: "go",
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
    [["--sandbox", "on"], /argument 'on' is invalid.*auto, enabled, disabled/],
  ])("%j is a usage error", (argv, message) => {
    expect(() => parseArgs(argv, "1")).toThrow(UsageError);
    expect(() => parseArgs(argv, "1")).toThrow(message);
  });
});
