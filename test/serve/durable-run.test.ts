import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { UNKNOWN_OUTCOME } from "../../src/durable/durable-steps.js";
import { hang, reply } from "../../src/testing/index.js";
import { tempDir } from "../helpers/temp.js";
import {
  type Deployment,
  normalizedTranscript,
  PG_SKIP,
  pgTitle,
  servingOnThrowawayPostgres,
  sql,
  waitFor,
} from "./helpers.js";

const serving = servingOnThrowawayPostgres();

/** Creates an agent working in `cwd` and returns its id and its first run's id. */
async function createAgent(
  d: Deployment,
  cwd: string,
  text: string,
): Promise<{ agentId: string; runId: string }> {
  const created = await d.request("POST", "/v1/agents", { prompt: { text }, repos: [{ url: cwd }] });
  expect(created.status, JSON.stringify(created.json)).toBe(200);
  return { agentId: created.json.agent.id, runId: created.json.run.id };
}

async function finished(d: Deployment, agentId: string, runId: string) {
  return waitFor(`run ${runId} to end`, async () => {
    const run = await d.request("GET", `/v1/agents/${agentId}/runs/${runId}`);
    return ["FINISHED", "ERROR", "CANCELLED"].includes(run.json.status) ? run.json : undefined;
  });
}

const toolResults = (body: unknown) =>
  ((body as { messages: { role: string; content: unknown }[] }).messages ?? []).flatMap((message) =>
    Array.isArray(message.content)
      ? message.content.filter((block: { type: string }) => block.type === "tool_result")
      : [],
  );

describe.skipIf(PG_SKIP !== undefined)("durable runs", { timeout: 180_000 }, () => {
  test(
    pgTitle(
      "a worker SIGKILLed while a shell command runs: the run resumes after its completed model call, the command is not run again, and the model is told its outcome is unknown",
    ),
    async () => {
      const cwd = tempDir("cairn-durable-");
      const d = await serving.deploy({
        steps: [
          reply()
            .text("Recording.")
            .tool(
              "Bash",
              { command: "echo effect >> ledger.txt && echo started > started.txt && sleep 60" },
              "toolu_1",
            ),
          reply().text("Noted."),
        ],
      });
      d.startWorker("w1");
      const { agentId, runId } = await createAgent(d, cwd, "record it");
      await waitFor("the command to start", () => existsSync(join(cwd, "started.txt")) || undefined);
      await d.killWorker("w1");
      d.startWorker("w1");
      const run = await finished(d, agentId, runId);
      expect(run.status).toBe("FINISHED");
      expect(run.result).toBe("Noted.");
      // The effect happened once: the command was not started again by the resumed run.
      expect(readFileSync(join(cwd, "ledger.txt"), "utf8")).toBe("effect\n");
      // Two model calls in all: the first was recorded before the kill and not made again.
      expect(d.model.requests.length).toBe(2);
      const results = toolResults(d.model.requests[1]!.body);
      expect(results).toEqual([expect.objectContaining({ tool_use_id: "toolu_1", is_error: true })]);
      expect(JSON.stringify(results[0])).toContain(UNKNOWN_OUTCOME);
      // The stored transcript: the prompt, each message once, in order, and the run's end.
      const sessionId = sql(d, `SELECT session_id FROM cairn.agents WHERE id = '${agentId}'`)[0]!;
      const records = normalizedTranscript(d, sessionId) as { type: string }[];
      expect(records.map((record) => record.type)).toEqual([
        "header",
        "user",
        "assistant",
        "tool_result",
        "assistant",
        "run_end",
      ]);
    },
  );

  test(
    pgTitle(
      "a worker SIGKILLed during a model call: the call is made again, and the transcript and the event stream hold the answer once",
    ),
    async () => {
      const cwd = tempDir("cairn-durable-");
      const d = await serving.deploy({ steps: [hang(), reply().text("Answered.")] });
      d.startWorker("w1");
      const { agentId, runId } = await createAgent(d, cwd, "answer");
      await waitFor("the model call", () => d.model.requests.length === 1 || undefined);
      await d.killWorker("w1");
      d.startWorker("w1");
      const run = await finished(d, agentId, runId);
      expect(run.status).toBe("FINISHED");
      expect(run.result).toBe("Answered.");
      expect(d.model.requests.length).toBe(2);
      const sessionId = sql(d, `SELECT session_id FROM cairn.agents WHERE id = '${agentId}'`)[0]!;
      const records = normalizedTranscript(d, sessionId) as { type: string }[];
      expect(records.map((record) => record.type)).toEqual(["header", "user", "assistant", "run_end"]);
      const events = sql(
        d,
        `SELECT seq || ' ' || type FROM cairn.run_events WHERE run_id = '${runId}' ORDER BY seq`,
      );
      expect(events.filter((line) => line.endsWith(" model_call_end"))).toHaveLength(1);
      expect(events.map((line) => Number(line.split(" ")[0]))).toEqual(events.map((_, i) => i + 1));
    },
  );
});
