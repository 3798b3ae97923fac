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
      prompt: "go",
    });
    expect(parseArgs(["-f", "x"], "1")).toMatchObject({ force: true });
  });

  test.each([
    [["--nope"], /unknown option '--nope'/],
    [["--output-format", "yaml"], /argument 'yaml' is invalid/],
    [["--max-turns", "1.5"], /--max-turns must be a positive integer/],
    [["--model"], /argument missing/],
  ])("%j is a usage error", (argv, message) => {
    expect(() => parseArgs(argv, "1")).toThrow(UsageError);
    expect(() => parseArgs(argv, "1")).toThrow(message);
  });
});
