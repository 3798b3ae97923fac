import { describe, expect, test } from "vitest";
import { reply } from "../../src/testing/index.js";
import { tempDir } from "../helpers/temp.js";
import { type Deployment, PG_SKIP, pgTitle, runEnded, servingOnThrowawayPostgres } from "./helpers.js";

/**
 * The run stream as the reference's public clients read it (docs/serve.md, "The run's stream"):
 * frames named `status`, `assistant`, `thinking`, `tool_call`, `result`, `done`, parsed by a client
 * written the way those clients parse SSE: line by line (CR, LF or CRLF), `data:` lines joined,
 * the event name `message` when absent, the last `id:` kept for a reconnect.
 */
const serving = servingOnThrowawayPostgres();

type Frame = { id?: string; event: string; data: Record<string, unknown> };

/**
 * Reads `path` as an SSE stream until its `done` frame, or until `dropAfter` frames with an id have
 * come (then it drops the connection, as a network cut would).
 */
async function readFrames(
  d: Deployment,
  path: string,
  options: { lastEventId?: string; dropAfter?: number } = {},
): Promise<{ frames: Frame[]; complete: boolean }> {
  const controller = new AbortController();
  const response = await fetch(`${d.api}${path}`, {
    headers: {
      authorization: `Basic ${Buffer.from(`${d.key}:`).toString("base64")}`,
      accept: "text/event-stream",
      ...(options.lastEventId !== undefined ? { "last-event-id": options.lastEventId } : {}),
    },
    signal: controller.signal,
  });
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
  const frames: Frame[] = [];
  let line = "";
  let skipLf = false;
  let fields: { id?: string; event?: string; data: string[] } = { data: [] };
  let complete = false;
  const withIds = () => frames.filter((frame) => frame.id !== undefined).length;
  const endLine = () => {
    if (line === "") {
      if (fields.data.length > 0) {
        const data = JSON.parse(fields.data.join("\n"));
        expect(typeof data === "object" && data !== null && !Array.isArray(data)).toBe(true);
        frames.push({
          ...(fields.id !== undefined ? { id: fields.id } : {}),
          event: fields.event ?? "message",
          data,
        });
        if (frames.at(-1)!.event === "done") complete = true;
      }
      fields = { data: [] };
    } else if (!line.startsWith(":")) {
      const colon = line.indexOf(":");
      const name = colon < 0 ? line : line.slice(0, colon);
      let value = colon < 0 ? "" : line.slice(colon + 1);
      if (value.startsWith(" ")) value = value.slice(1);
      if (name === "data") fields.data.push(value);
      else if (name === "event") fields.event = value;
      else if (name === "id") fields.id = value;
    }
    line = "";
  };
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  reading: while (!complete) {
    const { done, value } = await reader.read();
    if (done) break;
    for (const character of decoder.decode(value, { stream: true })) {
      if (skipLf) {
        skipLf = false;
        if (character === "\n") continue;
      }
      if (character === "\r" || character === "\n") {
        endLine();
        skipLf = character === "\r";
      } else line += character;
      if (complete || (options.dropAfter !== undefined && withIds() >= options.dropAfter)) break reading;
    }
  }
  controller.abort();
  return { frames, complete };
}

/** What such a client makes of the frames: the assistant's text, its thinking, and each tool call's last state. */
function rebuilt(frames: Frame[]) {
  const calls = new Map<string, Record<string, unknown>>();
  for (const frame of frames)
    if (frame.event === "tool_call") calls.set(frame.data.callId as string, frame.data);
  return {
    text: frames
      .filter((frame) => frame.event === "assistant")
      .map((frame) => frame.data.text)
      .join(""),
    thinking: frames
      .filter((frame) => frame.event === "thinking")
      .map((frame) => frame.data.text)
      .join(""),
    toolCalls: [...calls.values()],
  };
}

describe.skipIf(PG_SKIP !== undefined)(
  "v1's run stream as the reference's clients read it",
  { timeout: 180_000 },
  () => {
    test(
      pgTitle(
        "the stream opens with status, sends assistant / thinking / tool_call frames with ids, closes with result and done; a client rebuilds the text and tool calls, and a reconnect with Last-Event-ID rebuilds the same",
      ),
      async () => {
        const d = await serving.deploy({
          steps: [
            reply().thinking("Let me look.").text("Reading. ").tool("LS", { path: "." }),
            reply().text("Done."),
          ],
        });
        d.startWorker("w1");
        const created = await d.request("POST", "/v1/agents", {
          prompt: { text: "look" },
          repos: [{ url: tempDir("cairn-api-") }],
        });
        const { agent, run } = created.json;
        const path = `/v1/agents/${agent.id}/runs/${run.id}/stream`;
        const whole = await readFrames(d, path);
        expect(whole.complete).toBe(true);
        const { frames } = whole;

        // Opens with the run's status, without an id; closes with result and done, without ids.
        expect(frames[0]).toEqual({ event: "status", data: { runId: run.id, status: expect.any(String) } });
        const final = (await runEnded(d, agent.id, run.id)) as { status: string; result: string };
        expect(frames.slice(-2)).toEqual([
          {
            event: "result",
            data: { runId: run.id, status: "FINISHED", text: final.result, result: final.result },
          },
          { event: "done", data: {} },
        ]);
        const between = frames.slice(1, -2);
        expect(between.every((frame) => frame.id !== undefined)).toBe(true);
        // Only the reference's event names, in the order the run made them.
        expect(between.map((frame) => frame.event)).toEqual([
          "status",
          "thinking",
          "assistant",
          "tool_call",
          "tool_call",
          "assistant",
        ]);
        expect(between[0]!.data).toEqual({ runId: run.id, status: "RUNNING" });
        const ids = between.map((frame) => Number(frame.id));
        expect(ids).toEqual([...ids].sort((a, b) => a - b));

        const client = rebuilt(frames);
        expect(client.text).toBe("Reading. Done.");
        expect(client.thinking).toBe("Let me look.");
        expect(client.toolCalls).toEqual([
          {
            callId: expect.any(String),
            name: "LS",
            status: "completed",
            args: { path: "." },
            result: { success: { content: expect.any(String) } },
          },
        ]);
        const running = frames.find((frame) => frame.event === "tool_call")!;
        expect(running.data).toEqual({
          callId: client.toolCalls[0]!.callId,
          name: "LS",
          status: "running",
          args: { path: "." },
        });

        // Cut after three frames with ids, then resumed with the last id seen: the same frames.
        const first = await readFrames(d, path, { dropAfter: 3 });
        expect(first.complete).toBe(false);
        const lastId = first.frames.filter((frame) => frame.id !== undefined).at(-1)!.id!;
        const rest = await readFrames(d, path, { lastEventId: lastId });
        expect(rest.complete).toBe(true);
        expect(rest.frames[0]).toEqual({ event: "status", data: { runId: run.id, status: "FINISHED" } });
        const resumed = [...first.frames, ...rest.frames].filter((frame) => frame.id !== undefined);
        expect(resumed).toEqual(between);
        expect(rebuilt(resumed)).toEqual(rebuilt(between));

        // An id that is not one of this run's events is refused, as the reference does.
        const foreign = await fetch(`${d.api}${path}`, {
          headers: { authorization: `Bearer ${d.key}`, "last-event-id": "9999" },
        });
        expect(foreign.status).toBe(400);
        expect(((await foreign.json()) as { error: { code: string } }).error.code).toBe(
          "invalid_last_event_id",
        );
        // cairn's own events stay available, by name; an unknown vocabulary is refused.
        const own = await readFrames(d, `${path}?events=cairn`);
        expect(own.frames[1]).toMatchObject({ id: "1", event: "run_start" });
        expect(own.frames.at(-3)).toMatchObject({ event: "run_end" });
        expect((await d.request("GET", `${path}?events=other`)).status).toBe(400);
      },
    );
  },
);
