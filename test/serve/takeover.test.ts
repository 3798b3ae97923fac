import { describe, expect, test } from "vitest";
import { hang, type RecordedRequest, reply } from "../../src/testing/index.js";
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

/**
 * Takeover (docs/serve.md, "On many machines"): a worker SIGKILLed mid-run that never comes back
 * has its run taken over by a live worker of another name once its heartbeat is stale.
 */
const serving = servingOnThrowawayPostgres();

/** The scenario: an edit, then a second model call, which hangs the first time when `hangOnce` is set. */
function scenario(hangOnce: boolean) {
  let hung = false;
  return (request: RecordedRequest) => {
    const body = request.body as { messages: { role: string }[] };
    const answered = body.messages.filter((message) => message.role === "assistant").length;
    if (answered === 0)
      return reply().text("Writing.").tool("Write", { file_path: "notes.txt", content: "note" }, "toolu_1");
    if (hangOnce && !hung) {
      hung = true;
      return hang();
    }
    return reply().text("Done.");
  };
}

const FLAGS = ["--takeover-after", "1"];

async function runOnce(d: Deployment, cwd: string) {
  const created = await d.request("POST", "/v1/agents", {
    prompt: { text: "note it" },
    repos: [{ url: cwd }],
  });
  expect(created.status).toBe(200);
  return { agentId: created.json.agent.id as string, runId: created.json.run.id as string };
}

const ended = (d: Deployment, runId: string) =>
  waitFor(`run ${runId} to end`, () => {
    const status = sql(d, `SELECT status FROM cairn.runs WHERE id = '${runId}'`)[0];
    return status === "FINISHED" || status === "ERROR" ? status : undefined;
  });

const transcriptOf = (d: Deployment, agentId: string, cwd: string) =>
  normalizedTranscript(d, sql(d, `SELECT session_id FROM cairn.agents WHERE id = '${agentId}'`)[0]!, cwd);

/** The transcript of the scenario run once, undisturbed, by a single worker. */
async function undisturbedTranscript() {
  const baseline = await serving.deploy({ respond: scenario(false) });
  baseline.startWorker("solo", FLAGS);
  const cwd = tempDir("cairn-takeover-");
  const undisturbed = await runOnce(baseline, cwd);
  expect(await ended(baseline, undisturbed.runId)).toBe("FINISHED");
  return transcriptOf(baseline, undisturbed.agentId, cwd);
}

describe.skipIf(PG_SKIP !== undefined)("takeover", { timeout: 180_000 }, () => {
  test(
    pgTitle(
      "a worker SIGKILLed mid-run that never comes back: a live worker of another name takes the run over and finishes it, with the transcript of an undisturbed run",
    ),
    async () => {
      const expected = await undisturbedTranscript();

      const d = await serving.deploy({ respond: scenario(true) });
      d.startWorker("w1", FLAGS);
      const cwd = tempDir("cairn-takeover-");
      const { agentId, runId } = await runOnce(d, cwd);
      // w1 has made the edit and is in the second model call, which hangs.
      await waitFor("the second model call", () => d.model.requests.length === 2 || undefined);
      d.startWorker("w2", FLAGS);
      await d.killWorker("w1");
      expect(await ended(d, runId)).toBe("FINISHED");
      // w2 drove it to its end; w1 never came back.
      expect(sql(d, `SELECT executor_id FROM dbos.workflow_status WHERE workflow_uuid = '${runId}'`)).toEqual(
        ["w2"],
      );
      // The edit's step was recorded: only the model call under way was made again.
      expect(d.model.requests.length).toBe(3);
      expect(transcriptOf(d, agentId, cwd)).toEqual(expected);
    },
  );
});

describe.skipIf(PG_SKIP !== undefined)("takeover of a stalled worker", { timeout: 180_000 }, () => {
  test(
    pgTitle(
      "a worker stalled (SIGSTOP) past the takeover delay, then resumed after its run was taken over: it records nothing more, and the run ends FINISHED with the transcript of an undisturbed run",
    ),
    async () => {
      const expected = await undisturbedTranscript();

      // The stalled worker's second model call is answered only once it runs again.
      let release: () => void = () => {};
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      let held = false;
      const respond = async (request: RecordedRequest) => {
        const body = request.body as { messages: { role: string }[] };
        if (body.messages.length > 1 && !held) {
          held = true;
          await released;
          return reply().text("Stale answer.");
        }
        return scenario(false)(request);
      };
      const d = await serving.deploy({ respond });
      const w1 = d.startWorker("w1", FLAGS);
      const cwd = tempDir("cairn-takeover-");
      const { agentId, runId } = await runOnce(d, cwd);
      await waitFor("the second model call", () => d.model.requests.length === 2 || undefined);
      w1.kill("SIGSTOP");
      d.startWorker("w2", FLAGS);
      expect(await ended(d, runId)).toBe("FINISHED");
      const finished = transcriptOf(d, agentId, cwd);
      const events = sql(
        d,
        `SELECT seq || ' ' || event::text FROM cairn.run_events WHERE run_id = '${runId}' ORDER BY seq`,
      );
      // w1 runs again and gets its answer: its execution no longer owns the run.
      w1.kill("SIGCONT");
      release();
      // w1 beats again (the takeover removed its row), then has a while to act on its answer.
      await waitFor(
        "w1 to run again",
        () => sql(d, "SELECT id FROM cairn.workers WHERE id = 'w1'").length === 1 || undefined,
      );
      await new Promise((resolve) => setTimeout(resolve, 3000));
      expect(sql(d, `SELECT status FROM cairn.runs WHERE id = '${runId}'`)).toEqual(["FINISHED"]);
      expect(transcriptOf(d, agentId, cwd)).toEqual(finished);
      expect(finished).toEqual(expected);
      expect(
        sql(
          d,
          `SELECT seq || ' ' || event::text FROM cairn.run_events WHERE run_id = '${runId}' ORDER BY seq`,
        ),
      ).toEqual(events);
      expect(JSON.stringify(events)).not.toContain("Stale answer.");
    },
  );
});
