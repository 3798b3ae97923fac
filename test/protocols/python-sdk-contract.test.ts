/**
 * The Python `claude-agent-sdk` cannot be installed here (no PyPI). Its contract, from the recording
 * in the reference notes (0.2.143, read from its source): it spawns `cli_path` itself — an executable
 * with a shebang — with `--output-format stream-json --verbose --system-prompt "" … --input-format
 * stream-json`, values as separate elements, env `CLAUDE_CODE_ENTRYPOINT=sdk-py`, and writes
 * `initialize` then the user message on stdin. This test plays that part against the built CLI.
 */
import { spawn } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { describe, expect, test } from "vitest";
import { reply } from "../../src/testing/index.js";
import { CLI, serverEnv, startServer, workspace } from "../conformance/pm/helpers.js";

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
});
