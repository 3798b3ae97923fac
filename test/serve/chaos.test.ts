import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { UNKNOWN_OUTCOME } from "../../src/durable/durable-steps.js";
import { type RecordedRequest, reply } from "../../src/testing/index.js";
import { tempDir } from "../helpers/temp.js";
import {
  type Deployment,
  normalizedTranscript,
  PG_SKIP,
  pgTitle,
  readStream,
  servingOnThrowawayPostgres,
  sql,
  waitFor,
} from "./helpers.js";

/**
 * The chaos test (docs/serve.md, "What is guaranteed after a crash"): queued runs, three worker
 * processes, workers SIGKILLed at random moments and started again. Every run must complete; its
 * transcript must equal what one undisturbed worker records for the same scenario (but for a shell
 * command cut short, whose result says its outcome is unknown); the shell command's effect, which
 * is not idempotent, must show at most once; and a client following each run's SSE stream, with a
 * forced reconnect, must rebuild exactly the stored events.
 */
const RUNS = 6;
const KILLS = 4;

/** Each run's script, chosen from the request alone: the same answers however often a call is made. */
function respond(request: RecordedRequest) {
  const body = request.body as { messages: { role: string; content: unknown }[] };
  const prompt = JSON.stringify(body.messages[0]?.content);
  const task = /task-(\d+)/.exec(prompt)?.[1] ?? "?";
  const answered = body.messages.filter((message) => message.role === "assistant").length;
  if (answered === 0)
    return reply()
      .text(`Starting task-${task}.`)
      .tool("Bash", { command: "echo effect >> ledger.txt && sleep 0.2" }, `toolu_${task}_1`);
  if (answered === 1)
    return reply()
      .text("Writing notes.")
      .tool("Write", { file_path: "notes.txt", content: `note-${task}` }, `toolu_${task}_2`);
  return reply().text(`Done task-${task}.`);
}

const serving = servingOnThrowawayPostgres();

type Launched = { task: number; agentId: string; runId: string; cwd: string };

async function launchAll(d: Deployment): Promise<Launched[]> {
  const launched: Launched[] = [];
  for (let task = 1; task <= RUNS; task++) {
    const cwd = tempDir("cairn-chaos-");
    const created = await d.request("POST", "/v1/agents", {
      prompt: { text: `task-${task}` },
      repos: [{ url: cwd }],
    });
    expect(created.status).toBe(200);
    launched.push({ task, agentId: created.json.agent.id, runId: created.json.run.id, cwd });
  }
  return launched;
}

const allEnded = (d: Deployment, runs: Launched[]) =>
  sql(d, "SELECT count(*) FROM cairn.runs WHERE status NOT IN ('CREATING', 'RUNNING')")[0] ===
  String(runs.length);

function transcriptOf(d: Deployment, run: Launched) {
  const sessionId = sql(d, `SELECT session_id FROM cairn.agents WHERE id = '${run.agentId}'`)[0]!;
  return normalizedTranscript(d, sessionId, run.cwd) as Record<string, unknown>[];
}

describe.skipIf(PG_SKIP !== undefined)("chaos", { timeout: 180_000 }, () => {
  test(pgTitle(
    "queued runs on three workers SIGKILLed at random: every run completes, transcripts equal an undisturbed run's, each shell effect at most once, SSE rebuilds the stored events",
  ), async () => {
    // The undisturbed run of the same scenario: one worker, nobody killed.
    const baseline = await serving.deploy({ respond });
    baseline.startWorker("solo");
    const baselineRuns = await launchAll(baseline);
    await waitFor("the undisturbed runs", () => allEnded(baseline, baselineRuns) || undefined);
    const expected = baselineRuns.map((run) => transcriptOf(baseline, run));
    await baseline.stop();

    const d = await serving.deploy({ respond });
    const names = ["w1", "w2", "w3"];
    for (const name of names) d.startWorker(name);
    const runs = await launchAll(d);
    let kills = 0;
    while (!allEnded(d, runs) && kills < KILLS) {
      await new Promise((resolve) => setTimeout(resolve, 150 + Math.random() * 500));
      const name = names[Math.floor(Math.random() * names.length)]!;
      await d.killWorker(name);
      d.startWorker(name);
      kills += 1;
    }
    await waitFor("every run to end", () => allEnded(d, runs) || undefined);

    for (const run of runs) {
      const status = sql(d, `SELECT status FROM cairn.runs WHERE id = '${run.runId}'`)[0];
      expect(status, `run of task-${run.task}`).toBe("FINISHED");
      const actual = transcriptOf(d, run);
      // A shell command cut short by a kill: its result says so, and its effect shows at most once.
      const cut = actual.findIndex(
        (record) => record.type === "tool_result" && JSON.stringify(record.result).includes(UNKNOWN_OUTCOME),
      );
      const ledger = existsSync(join(run.cwd, "ledger.txt"))
        ? readFileSync(join(run.cwd, "ledger.txt"), "utf8")
        : "";
      if (cut === -1) expect(ledger, `ledger of task-${run.task}`).toBe("effect\n");
      else {
        expect(actual[cut]).toMatchObject({ toolName: "Bash" });
        expect(["", "effect\n"]).toContain(ledger);
        actual[cut] = expected[run.task - 1]![cut]!;
      }
      // After a cut the model was sent that other result: the records are the same, what the
      // calls cost (priced by the request's size) is not.
      const comparable = (records: Record<string, unknown>[]) =>
        cut === -1 ? records : records.map((record, i) => (i > cut ? withoutSpend(record) : record));
      expect(comparable(actual), `transcript of task-${run.task}`).toEqual(
        comparable(expected[run.task - 1]!),
      );
      // The edit ran (again, after its file was put back, if it was cut short): its content, once.
      expect(readFileSync(join(run.cwd, "notes.txt"), "utf8")).toBe(`note-${run.task}`);

      const path = `/v1/agents/${run.agentId}/runs/${run.runId}/stream`;
      const first = await readStream(d, path, { limit: 2 });
      const rest = await readStream(d, path, { lastEventId: first.at(-1)!.id });
      const stored = sql(d, `SELECT event FROM cairn.run_events WHERE run_id = '${run.runId}' ORDER BY seq`);
      expect([...first, ...rest].map((event) => event.id)).toEqual(stored.map((_, i) => i + 1));
      expect([...first, ...rest].map((event) => event.data)).toEqual(stored.map((line) => JSON.parse(line)));
      expect(stored.filter((line) => JSON.parse(line).type === "model_call_end")).toHaveLength(3);
    }
  }, 240_000);
});

/** A transcript record without what its model calls cost (tokens, USD). */
function withoutSpend(record: Record<string, unknown>): Record<string, unknown> {
  const {
    costUsd: _cost,
    usage: _usage,
    modelCostUsd: _modelCost,
    modelUsage: _modelUsage,
    totalCostUsd: _total,
    ...rest
  } = record;
  const message = rest.message as Record<string, unknown> | undefined;
  if (message && "usage" in message) {
    const { usage: _messageUsage, ...messageRest } = message;
    return { ...rest, message: messageRest };
  }
  return rest;
}
