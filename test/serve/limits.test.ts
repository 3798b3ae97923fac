import { describe, expect, test } from "vitest";
import { type RecordedRequest, reply } from "../../src/testing/index.js";
import { tempDir } from "../helpers/temp.js";
import {
  type Deployment,
  PG_SKIP,
  pgTitle,
  runEnded,
  servingOnThrowawayPostgres,
  sql,
  waitFor,
} from "./helpers.js";

const serving = servingOnThrowawayPostgres();

/** The run a model request belongs to: each test's prompts are `run <name>`. */
function runNameOf(request: RecordedRequest): string {
  const found = /run ([A-Za-z0-9-]+)/.exec(JSON.stringify((request.body as { messages?: unknown }).messages));
  return found?.[1] ?? "?";
}

/**
 * A model whose requests the test holds: each waits in `respond` until the test releases it, so
 * the test sees which requests are in flight at once (the server's side of the overlap) and in
 * which order runs reached the model.
 */
function heldModel() {
  const held: { run: string; release: () => void }[] = [];
  const arrivals: { run: string; at: number }[] = [];
  let inFlight = 0;
  const model = {
    held,
    arrivals,
    maxInFlight: 0,
    respond: async (request: RecordedRequest) => {
      const run = runNameOf(request);
      arrivals.push({ run, at: request.receivedAt });
      inFlight += 1;
      model.maxInFlight = Math.max(model.maxInFlight, inFlight);
      await new Promise<void>((release) => held.push({ run, release }));
      inFlight -= 1;
      return reply().text(`done ${run}`);
    },
  };
  return model;
}

async function createRun(d: Deployment, name: string, extra: Record<string, unknown> = {}) {
  const created = await d.request("POST", "/v1/agents", {
    prompt: { text: `run ${name}` },
    repos: [{ url: tempDir("cairn-limits-") }],
    ...extra,
  });
  expect(created.status).toBe(200);
  return { name, agent: created.json.agent.id as string, run: created.json.run.id as string };
}

/** Waits until every named worker has written `beats` more heartbeats: each has polled its queue meanwhile. */
async function workersBeat(d: Deployment, ids: string[], beats: number): Promise<void> {
  const beatOf = () =>
    new Map(
      sql(d, "SELECT id, heartbeat_at FROM cairn.workers").map((line) => line.split("|") as [string, string]),
    );
  const seen = new Map(ids.map((id) => [id, new Set([beatOf().get(id)])]));
  await waitFor(`${beats} heartbeats of ${ids.join(", ")}`, () => {
    const now = beatOf();
    for (const id of ids) seen.get(id)!.add(now.get(id));
    return ids.every((id) => seen.get(id)!.size > beats) || undefined;
  });
}

const runningCount = (d: Deployment) =>
  Number(sql(d, "SELECT count(*) FROM cairn.runs WHERE status = 'RUNNING'")[0]);

describe.skipIf(PG_SKIP !== undefined)("cairn serve: limits and fairness", { timeout: 180_000 }, () => {
  test(
    pgTitle(
      "--max-running 1 over two workers of --concurrency 2: one run at a time over the deployment (RUNNING rows and model requests in flight), although each worker has room",
    ),
    async () => {
      const model = heldModel();
      const d = await serving.deploy({ respond: model.respond });
      const runs = [await createRun(d, "a"), await createRun(d, "b"), await createRun(d, "c")];
      const args = ["--concurrency", "2", "--max-running", "1", "--takeover-after", "2"];
      d.startWorker("w1", args);
      d.startWorker("w2", args);
      let maxRunning = 0;
      for (let i = 0; i < runs.length; i++) {
        await waitFor(`model request ${i + 1}`, () => model.held.length > 0 || undefined);
        maxRunning = Math.max(maxRunning, runningCount(d));
        // Both workers poll the queue while this run holds the one place: neither may start another.
        await Promise.race([
          workersBeat(d, ["w1", "w2"], 3),
          waitFor("a second request", () => model.held.length > 1 || undefined),
        ]);
        maxRunning = Math.max(maxRunning, runningCount(d));
        model.held.shift()!.release();
      }
      for (const run of runs)
        expect(await runEnded(d, run.agent, run.run)).toMatchObject({ status: "FINISHED" });
      expect(model.maxInFlight).toBe(1);
      expect(maxRunning).toBe(1);
    },
  );

  test(
    pgTitle(
      "priority (cairn's extension): a run created with a higher priority, queued behind low-priority runs, starts before them",
    ),
    async () => {
      const model = heldModel();
      const d = await serving.deploy({ respond: model.respond });
      d.startWorker("w1", ["--concurrency", "1"]);
      const first = await createRun(d, "first");
      await waitFor("the first run's model request", () => model.held.length === 1 || undefined);
      // Queued while the worker's one place is taken: two low-priority runs, then a high one.
      const queued = [
        await createRun(d, "low-1"),
        await createRun(d, "low-2", { priority: 0 }),
        await createRun(d, "high", { priority: 50 }),
      ];
      while (model.arrivals.length < 4 || model.held.length > 0) {
        await waitFor("a model request", () => model.held.length > 0 || undefined);
        model.held.shift()!.release();
      }
      for (const run of [first, ...queued])
        expect(await runEnded(d, run.agent, run.run)).toMatchObject({ status: "FINISHED" });
      expect(model.arrivals.map((arrival) => arrival.run)).toEqual(["first", "high", "low-1", "low-2"]);
    },
  );

  test(pgTitle("priority outside 0–100 is refused with 400"), async () => {
    const d = await serving.deploy({ steps: [] });
    for (const priority of [-1, 101, 1.5, "high"]) {
      const created = await d.request("POST", "/v1/agents", { prompt: { text: "x" }, priority });
      expect(created.status).toBe(400);
      expect(created.json.error.message).toMatch(/priority must be an integer from 0 to 100/);
    }
  });
});
