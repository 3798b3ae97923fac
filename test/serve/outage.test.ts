import { spawn } from "node:child_process";
import { describe, expect, test } from "vitest";
import { type RecordedRequest, reply } from "../../src/testing/index.js";
import { CLI } from "../conformance/pm/helpers.js";
import { tempDir } from "../helpers/temp.js";
import {
  normalizedTranscript,
  PG_SKIP,
  pgTitle,
  servingOnThrowawayPostgres,
  sql,
  waitFor,
} from "./helpers.js";

/**
 * A database outage (docs/serve.md, "When the database is away"): PostgreSQL stopped mid-run and
 * started again. Neither the API nor the worker ends; the API answers 503 with a clear error while
 * the database is away; the run continues where it was once it is back.
 */
const serving = servingOnThrowawayPostgres();

describe.skipIf(PG_SKIP !== undefined)("database outage", { timeout: 180_000 }, () => {
  test(
    pgTitle(
      "PostgreSQL stopped mid-run and started again: the API answers 503 meanwhile, the worker and the API stay up, and the run finishes with every step once",
    ),
    async () => {
      // The second model call is answered when the test says so: the database goes away while it runs.
      let answer: () => void = () => {};
      const answered = new Promise<void>((resolve) => {
        answer = resolve;
      });
      const respond = async (request: RecordedRequest) => {
        const body = request.body as { messages: { role: string }[] };
        if (body.messages.length === 1)
          return reply()
            .text("Writing.")
            .tool("Write", { file_path: "notes.txt", content: "note" }, "toolu_1");
        await answered;
        return reply().text("Done.");
      };
      const d = await serving.deploy({ respond });
      const worker = d.startWorker("w1");
      const cwd = tempDir("cairn-outage-");
      const created = await d.request("POST", "/v1/agents", {
        prompt: { text: "note it" },
        repos: [{ url: cwd }],
      });
      expect(created.status).toBe(200);
      const { id: agentId } = created.json.agent;
      const runId = created.json.run.id as string;
      await waitFor("the second model call", () => d.model.requests.length === 2 || undefined);

      serving.pg!.halt();
      const away = await d.request("GET", `/v1/agents/${agentId}/runs/${runId}`);
      expect(away.status).toBe(503);
      expect(away.json.error.code).toBe("database_unavailable");
      expect(away.json.error.message).toMatch(/database is unreachable/);
      // The model answers while the database is away: the worker has nowhere to record it yet.
      answer();
      // A while for the worker to meet the outage (not a measurement: the test holds either way).
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(worker.exitCode).toBeNull();
      expect((await d.request("GET", "/v1/me")).status).toBe(503);
      serving.pg!.restart();

      const run = await waitFor("the run to end", async () => {
        const got = await d.request("GET", `/v1/agents/${agentId}/runs/${runId}`);
        return got.status === 200 && !["CREATING", "RUNNING"].includes(got.json.status)
          ? got.json
          : undefined;
      });
      expect(run.status).toBe("FINISHED");
      expect(run.result).toBe("Done.");
      expect(worker.exitCode).toBeNull();
      // Each model call once: the answer given while the database was away was recorded, not asked again.
      expect(d.model.requests.length).toBe(2);
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
      const events = sql(d, `SELECT seq FROM cairn.run_events WHERE run_id = '${runId}' ORDER BY seq`);
      expect(events.map(Number)).toEqual(events.map((_, i) => i + 1));
    },
  );

  test(
    pgTitle(
      "a worker whose scratch writes fail (a file size limit standing in for a full disk): the run ends ERROR saying so, and the worker stays up",
    ),
    async () => {
      const d = await serving.deploy({ steps: [reply().text("A long enough answer. ".repeat(40))] });
      // `ulimit -f 1`: a file of the worker's may not grow past 1 KiB, so writing the run's
      // transcript into its scratch directory fails (EFBIG), as it would on a full disk (ENOSPC).
      const worker = spawn(
        "sh",
        ["-c", `ulimit -f 1 && exec "${process.execPath}" "${CLI}" worker --id w1`],
        {
          env: d.env,
          stdio: ["ignore", "ignore", "pipe"],
        },
      );
      d.workers.set("w1", worker);
      const cwd = tempDir("cairn-full-");
      const created = await d.request("POST", "/v1/agents", {
        prompt: { text: "answer" },
        repos: [{ url: cwd }],
      });
      const { id: agentId } = created.json.agent;
      const runId = created.json.run.id as string;
      const run = await waitFor("the run to end", async () => {
        const got = await d.request("GET", `/v1/agents/${agentId}/runs/${runId}`);
        return ["CREATING", "RUNNING"].includes(got.json.status) ? undefined : got.json;
      });
      expect(run.status).toBe("ERROR");
      expect(run.error).toMatch(/cannot write the transcript .*file too large/);
      expect(worker.exitCode).toBeNull();
      // The agent takes a follow-up again.
      const next = await d.request("POST", `/v1/agents/${agentId}/runs`, { prompt: { text: "again" } });
      expect(next.status).toBe(200);
    },
  );
});
