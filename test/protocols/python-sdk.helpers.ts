/**
 * Plays the Python `claude-agent-sdk`'s part against the built CLI, since the SDK cannot be installed
 * here (no PyPI). What it does, read from its source (anthropics/claude-agent-sdk-python 0.2.143):
 * - `_internal/transport/subprocess_cli.py`, `_build_command`: spawns `cli_path` itself (no `node` in
 *   front) with `--output-format stream-json --verbose --system-prompt ""`, then one flag per option
 *   with its value as a separate element, then `--input-format stream-json`; `connect`: env
 *   `CLAUDE_CODE_ENTRYPOINT=sdk-py`.
 * - `_internal/client.py`, `process_query`: writes `initialize`, waits for its answer, then writes the
 *   prompt as `{"type": "user", "session_id": "", …}`.
 * - `_internal/query.py`, `_handle_control_request`: answers the CLI's `can_use_tool`,
 *   `hook_callback` and `mcp_message` requests (a notification's `mcp_message` with
 *   `{"jsonrpc": "2.0", "result": {}}`); `wait_for_result_and_end_input`: closes stdin after the
 *   first `result`.
 */
import { spawn } from "node:child_process";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { CAIRN_CLI } from "./agent-sdk.helpers.js";

export type Line = Record<string, unknown> & { type?: string; subtype?: string };
type ControlRequestBody = Record<string, unknown> & { subtype: string };

export type PythonSdkRun = {
  code: number | null;
  /** Every line cairn wrote on stdout, parsed. */
  lines: Line[];
  stderr: string;
};

export async function runAsPythonSdk(options: {
  /** The flags between the SDK's fixed prefix and `--input-format stream-json`. */
  argv?: string[];
  /** The `initialize` request's body (the SDK sends `hooks: null` when it has none). */
  initialize?: Record<string, unknown>;
  prompt: string;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** What `cli_path` names: by default dist/cli/main.js, as docs/protocols.md says. */
  cliPath?: string;
  /** The program's side of cairn's control requests; throwing answers with an error. */
  answer?: (request: ControlRequestBody) => Promise<Record<string, unknown>>;
}): Promise<PythonSdkRun> {
  const argv = [
    "--output-format",
    "stream-json",
    "--verbose",
    "--system-prompt",
    "",
    ...(options.argv ?? []),
    "--input-format",
    "stream-json",
  ];
  const child = spawn(options.cliPath ?? CAIRN_CLI, argv, {
    cwd: options.cwd,
    env: { ...options.env, CLAUDE_CODE_ENTRYPOINT: "sdk-py" },
    stdio: ["pipe", "pipe", "pipe"],
  });
  child.stdin.on("error", () => {});
  const write = (frame: unknown) => {
    if (child.stdin.writable) child.stdin.write(`${JSON.stringify(frame)}\n`);
  };
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  const lines: Line[] = [];
  let buffered = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    buffered += chunk;
    let newline = buffered.indexOf("\n");
    while (newline !== -1) {
      const text = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      newline = buffered.indexOf("\n");
      if (text.trim() === "") continue;
      const line = JSON.parse(text) as Line;
      lines.push(line);
      if (line.type === "control_response") {
        const response = line.response as { request_id?: string };
        if (response.request_id === "req_1") write(userMessage(options.prompt));
      } else if (line.type === "control_request") {
        void answerRequest(line, options.answer, write);
      } else if (line.type === "result") child.stdin.end();
    }
  });
  write({
    type: "control_request",
    request_id: "req_1",
    request: { subtype: "initialize", hooks: null, ...options.initialize },
  });
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  return { code, lines, stderr };
}

function userMessage(prompt: string) {
  return {
    type: "user",
    session_id: "",
    message: { role: "user", content: prompt },
    parent_tool_use_id: null,
  };
}

async function answerRequest(
  line: Line,
  answer: ((request: ControlRequestBody) => Promise<Record<string, unknown>>) | undefined,
  write: (frame: unknown) => void,
): Promise<void> {
  const requestId = line.request_id as string;
  try {
    if (!answer) throw new Error(`Unsupported control request subtype: ${(line.request as Line).subtype}`);
    const response = await answer(line.request as ControlRequestBody);
    write({ type: "control_response", response: { subtype: "success", request_id: requestId, response } });
  } catch (error) {
    write({
      type: "control_response",
      response: { subtype: "error", request_id: requestId, error: (error as Error).message },
    });
  }
}

/**
 * An in-process MCP server of the program, served as the Python SDK's `SdkMcpBridge` does
 * (`_internal/sdk_mcp_bridge.py`): a real MCP server over the MCP library's in-memory transport,
 * each `mcp_message` passed to it; a request's answer is its response, a notification's the
 * empty result `_handle_control_request` sends.
 */
export async function hostMcpServer(instance: {
  connect(transport: unknown): Promise<void>;
}): Promise<(message: JSONRPCMessage) => Promise<JSONRPCMessage>> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const waiting = new Map<string | number, (response: JSONRPCMessage) => void>();
  clientSide.onmessage = (message) => {
    const id = (message as { id?: string | number }).id;
    if (id !== undefined && !("method" in message)) waiting.get(id)?.(message);
  };
  await instance.connect(serverSide);
  await clientSide.start();
  return async (message) => {
    const id = (message as { id?: string | number }).id;
    if (id === undefined || !("method" in message)) {
      await clientSide.send(message);
      return { jsonrpc: "2.0", result: {} } as unknown as JSONRPCMessage;
    }
    const response = new Promise<JSONRPCMessage>((resolve) => waiting.set(id, resolve));
    await clientSide.send(message);
    return response;
  };
}
