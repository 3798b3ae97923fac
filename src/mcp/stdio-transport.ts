import { type ChildProcess, spawn } from "node:child_process";
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { signalGroup, stopGroup } from "../tools/process-group.js";

export type StdioServerParams = {
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Receives the server's stderr, line by line (it is the server's log, not cairn's output). */
  onStderr?: (line: string) => void;
  /** Called once the server has ended (the sandbox removes its mount points). */
  onClose?: () => void;
};

/**
 * An MCP stdio transport whose server leads its own process group, so that whatever the server
 * starts ends with it (the MCP SDK's own transport signals only the server process). `close()`
 * stops the group: SIGTERM, then SIGKILL after a grace.
 */
export class GroupStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private child: ChildProcess | undefined;
  private readonly buffer = new ReadBuffer();
  private closed = false;

  constructor(private readonly params: StdioServerParams) {}

  /** The server's pid while it runs. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  start(): Promise<void> {
    return new Promise((resolve, reject) => {
      const child = spawn(this.params.command, this.params.args, {
        cwd: this.params.cwd,
        env: this.params.env,
        stdio: ["pipe", "pipe", "pipe"],
        detached: true,
      });
      this.child = child;
      child.once("error", (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.once("spawn", () => resolve());
      child.once("close", () => {
        this.child = undefined;
        this.finish();
      });
      child.stdin!.on("error", (error) => this.onerror?.(error));
      child.stdout!.on("data", (chunk: Buffer) => {
        try {
          this.buffer.append(chunk);
        } catch (error) {
          // A message larger than the buffer's cap: the stream cannot be resynchronised.
          this.onerror?.(error as Error);
          void this.close();
          return;
        }
        this.drain();
      });
      let pending = "";
      child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
        pending += chunk;
        const lines = pending.split("\n");
        pending = lines.pop() ?? "";
        for (const line of lines) if (line.trim()) this.params.onStderr?.(line);
      });
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.child?.stdin;
      if (!stdin || stdin.destroyed) {
        reject(new Error("the MCP server is not running"));
        return;
      }
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once("drain", () => resolve());
    });
  }

  async close(): Promise<void> {
    const child = this.child;
    if (child?.pid !== undefined && signalGroup(child.pid, 0)) {
      child.stdin?.end();
      stopGroup(child.pid);
      await new Promise<void>((resolve) => {
        if (this.child === undefined) resolve();
        else child.once("close", () => resolve());
      });
    }
    this.buffer.clear();
    this.finish();
  }

  private drain(): void {
    while (true) {
      let message: JSONRPCMessage | null;
      try {
        message = this.buffer.readMessage();
      } catch (error) {
        this.onerror?.(error as Error);
        continue;
      }
      if (message === null) return;
      this.onmessage?.(message);
    }
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    this.params.onClose?.();
    this.onclose?.();
  }
}
