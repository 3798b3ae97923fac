import { spawn } from "node:child_process";
import { describe, expect, test } from "vitest";
import { reply } from "../../src/testing/index.js";
import { serverEnv, startServer, workspace } from "../conformance/pm/helpers.js";
import { CAIRN_CLI } from "./agent-sdk.helpers.js";

/**
 * The agent-SDK protocol's `initialize` carries the program's hooks, system prompt and MCP servers:
 * one that comes after the session started cannot be applied. It must fail loudly and end the
 * session, never be answered as a success while its hooks are dropped.
 */
describe("agent-SDK protocol: an initialize that comes too late", () => {
  test("after a prompt started the session: an error answer, a stderr line, the session ends (exit 1)", async () => {
    const server = await startServer([reply().text("First answer."), reply().text("never")]);
    const child = spawn(
      process.execPath,
      [CAIRN_CLI, "--output-format", "stream-json", "--verbose", "--input-format", "stream-json"],
      { cwd: workspace(), env: serverEnv(server), stdio: ["pipe", "pipe", "pipe"] },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    const send = (frame: unknown) => child.stdin.write(`${JSON.stringify(frame)}\n`);
    send({
      type: "user",
      message: { role: "user", content: "Hello" },
      parent_tool_use_id: null,
      session_id: "",
    });
    while (!stdout.includes('"type":"result"')) await new Promise((resolve) => setTimeout(resolve, 10));
    send({
      type: "control_request",
      request_id: "late-1",
      request: {
        subtype: "initialize",
        hooks: { PreToolUse: [{ matcher: "Bash", hookCallbackIds: ["guard"] }] },
      },
    });
    send({
      type: "user",
      message: { role: "user", content: "Again" },
      parent_tool_use_id: null,
      session_id: "",
    });
    child.stdin.end();
    expect(await exited).toBe(1);
    const lines = stdout
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const answer = lines.find(
      (line) =>
        line.type === "control_response" &&
        (line.response as { request_id?: string } | undefined)?.request_id === "late-1",
    );
    expect(answer?.response).toMatchObject({ subtype: "error" });
    expect(JSON.stringify(answer)).toContain("initialize came after the session had started");
    expect(stderr).toContain("cairn: initialize failed: initialize came after the session had started");
    // The prompt after it never ran: one model call, one result.
    expect(server.requests).toHaveLength(1);
    expect(lines.filter((line) => line.type === "result")).toHaveLength(1);
  });
});
