import { randomUUID } from "node:crypto";
import { createInterface } from "node:readline";

/** One line of the protocol, either way: a JSON object. */
export type Frame = Record<string, unknown> & { type?: string };

export type ControlRequest = {
  type: "control_request";
  request_id: string;
  request: Record<string, unknown> & { subtype: string };
};

/**
 * The NDJSON channel between cairn and the agent SDK that spawned it: frames in on stdin, frames out
 * on stdout (one JSON object a line, nothing else on stdout). Either side may send control requests;
 * each gets exactly one control response with its `request_id`.
 */
export class Channel {
  private readonly pending = new Map<
    string,
    { resolve(value: Record<string, unknown>): void; reject(error: Error): void }
  >();
  private closed = false;

  /** Called when stdin ends while requests to the host are still unanswered. */
  onAbandoned?: () => void;

  constructor(private readonly output: NodeJS.WritableStream = process.stdout) {}

  /** Every frame from `input`, until it ends; answers to our own requests are consumed here. */
  async *frames(input: NodeJS.ReadableStream = process.stdin): AsyncGenerator<Frame> {
    const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
    try {
      for await (const line of lines) {
        if (line.trim() === "") continue;
        let frame: Frame;
        try {
          frame = JSON.parse(line) as Frame;
        } catch {
          process.stderr.write(`cairn: ignored a stdin line that is not JSON: ${line.slice(0, 120)}\n`);
          continue;
        }
        if (frame.type === "control_response") this.settle(frame);
        else if (frame.type !== "keep_alive") yield frame;
      }
    } finally {
      this.closed = true;
      // The host went away while it owed answers (its query was aborted): stop the run first, so
      // that the unanswered requests, rejected below, do not read as denials it carries on after.
      if (this.pending.size > 0) this.onAbandoned?.();
      for (const waiter of this.pending.values())
        waiter.reject(new Error("stdin closed before the host answered"));
      this.pending.clear();
    }
  }

  send(frame: Frame): void {
    this.output.write(`${JSON.stringify(frame)}\n`);
  }

  respond(request: ControlRequest, response: Record<string, unknown> = {}): void {
    this.send({
      type: "control_response",
      response: { subtype: "success", request_id: request.request_id, response },
    });
  }

  fail(request: ControlRequest, error: string): void {
    this.send({
      type: "control_response",
      response: { subtype: "error", request_id: request.request_id, error },
    });
  }

  /** Sends a control request to the host and resolves with its answer (rejects on an error answer). */
  request(
    request: Record<string, unknown> & { subtype: string },
    signal?: AbortSignal,
  ): Promise<Record<string, unknown>> {
    if (this.closed) return Promise.reject(new Error("the host closed stdin"));
    const id = randomUUID();
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.pending.delete(id);
        this.send({ type: "control_cancel_request", request_id: id });
        reject(new Error("cancelled"));
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.pending.set(id, {
        resolve: (value) => {
          signal?.removeEventListener("abort", onAbort);
          resolve(value);
        },
        reject: (error) => {
          signal?.removeEventListener("abort", onAbort);
          reject(error);
        },
      });
      this.send({ type: "control_request", request_id: id, request });
    });
  }

  private settle(frame: Frame): void {
    const response = frame.response as
      | { subtype?: string; request_id?: string; response?: Record<string, unknown>; error?: string }
      | undefined;
    const waiter = response?.request_id ? this.pending.get(response.request_id) : undefined;
    if (!waiter || !response?.request_id) return;
    this.pending.delete(response.request_id);
    if (response.subtype === "error")
      waiter.reject(new Error(response.error ?? "the host answered with an error"));
    else waiter.resolve(response.response ?? {});
  }
}
