import { spawnSync } from "node:child_process";
import { describe, expect, test } from "vitest";
import { httpError, type RecordedRequest, reply } from "../../src/testing/index.js";
import { signalPid } from "../helpers/process.js";
import { tempDir } from "../helpers/temp.js";
import {
  type Deployment,
  PG_SKIP,
  pgTitle,
  readStream,
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

/** Whether the table has a row matching `where` (false while the table does not exist). */
function hasRow(d: Deployment, table: string, where: string): boolean {
  try {
    return sql(d, `SELECT 1 FROM ${table} WHERE ${where} LIMIT 1`).length > 0;
  } catch {
    return false;
  }
}

/** The processes whose command line holds `marker` (ps, as on any Unix). */
function processesWith(marker: string): string[] {
  const ps = spawnSync("ps", ["-eo", "pid=,args="], { encoding: "utf8" });
  return ps.stdout.split("\n").filter((line) => line.includes(marker) && !line.includes("ps -eo"));
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

  test(pgTitle("priority outside 0–100 is refused with 400, on v1 and v0"), async () => {
    const d = await serving.deploy({ steps: [] });
    for (const priority of [-1, 101, 1.5, "high"]) {
      const created = await d.request("POST", "/v1/agents", { prompt: { text: "x" }, priority });
      expect(created.status).toBe(400);
      expect(created.json.error.message).toMatch(/priority must be an integer from 0 to 100/);
    }
    const launched = await d.request("POST", "/v0/agents", {
      prompt: { text: "x" },
      source: { repository: tempDir("cairn-limits-") },
      priority: 101,
    });
    expect(launched.status).toBe(400);
  });
  test(
    pgTitle(
      "--model-limits concurrency 1 for the provider, shared by two workers: never two model requests in flight at once; the second waits (cairn.model_waits) until the first has been answered",
    ),
    async () => {
      const model = heldModel();
      const d = await serving.deploy({ respond: model.respond });
      const runs = [await createRun(d, "a"), await createRun(d, "b")];
      const args = [
        "--concurrency",
        "1",
        "--model-limits",
        JSON.stringify({ anthropic: { concurrency: 1 } }),
      ];
      d.startWorker("w1", args);
      d.startWorker("w2", args);
      let waitSeen = false;
      for (let i = 0; i < runs.length; i++) {
        await waitFor(`model request ${i + 1}`, () => model.held.length > 0 || undefined);
        if (i === 0)
          // The other run reaches its model call: it either waits for the place, or (without the limit) sends it.
          waitSeen = await waitFor("the other run to wait for its place, or send its request", () => {
            if (hasRow(d, "cairn.model_waits", "reason = 'concurrency 1 of anthropic'")) return true;
            return model.held.length > 1 ? "sent" : undefined;
          }).then((outcome) => outcome === true);
        model.held.shift()!.release();
      }
      for (const run of runs)
        expect(await runEnded(d, run.agent, run.run)).toMatchObject({ status: "FINISHED" });
      expect(model.maxInFlight).toBe(1);
      expect(waitSeen).toBe(true);
      // Nothing is left held or waiting once both are done.
      expect(sql(d, "SELECT count(*) FROM cairn.model_leases")).toEqual(["0"]);
      expect(sql(d, "SELECT count(*) FROM cairn.model_waits")).toEqual(["0"]);
    },
  );

  test(
    pgTitle(
      "a 429 with Retry-After seen by one worker holds back the other worker's next request to that provider key and model until the Retry-After has passed",
    ),
    async () => {
      const RETRY_AFTER_S = 5;
      const arrivals: { run: string; n: number; at: number }[] = [];
      const counts = new Map<string, number>();
      let releaseB: () => void = () => {};
      const bHeld = new Promise<void>((resolve) => {
        releaseB = resolve;
      });
      let bArrived = false;
      let answered429 = false;
      const d = await serving.deploy({
        respond: async (request) => {
          const run = runNameOf(request);
          const n = (counts.get(run) ?? 0) + 1;
          counts.set(run, n);
          arrivals.push({ run, n, at: request.receivedAt });
          if (run === "b" && n === 1) {
            bArrived = true;
            await bHeld;
            return reply().tool("Write", { file_path: "b.md", content: "b\n" });
          }
          if (run === "a" && n === 1) {
            // Both workers have a request in flight when the provider says 429 to one of them.
            await waitFor("b's first request", () => bArrived || undefined);
            answered429 = true;
            return httpError(429, { retryAfter: RETRY_AFTER_S, errorType: "rate_limit_error" });
          }
          return reply().text(`done ${run}`);
        },
      });
      const runs = [await createRun(d, "a"), await createRun(d, "b")];
      d.startWorker("w1", ["--concurrency", "1", "--takeover-after", "2"]);
      d.startWorker("w2", ["--concurrency", "1", "--takeover-after", "2"]);
      await waitFor("the 429", () => answered429 || undefined);
      // b's worker goes on once a's worker has noted the 429 (or, without that, after both workers beat twice).
      await Promise.race([
        waitFor("the 429's pause", () => hasRow(d, "cairn.model_pauses", "until > now()") || undefined),
        workersBeat(d, ["w1", "w2"], 2),
      ]);
      releaseB();
      for (const run of runs)
        expect(await runEnded(d, run.agent, run.run)).toMatchObject({ status: "FINISHED" });
      const a1 = arrivals.find((arrival) => arrival.run === "a" && arrival.n === 1)!;
      const b2 = arrivals.find((arrival) => arrival.run === "b" && arrival.n === 2)!;
      // A lower bound, which a slow machine only makes easier to meet: b's next request waited for
      // the pause the 429 set, which began after a's request arrived.
      expect(b2.at - a1.at).toBeGreaterThanOrEqual(RETRY_AFTER_S * 1000);
      // a's own retry went through once the pause was over.
      expect(arrivals.filter((arrival) => arrival.run === "a").length).toBe(2);
    },
  );
  test(
    pgTitle(
      "cancel reaches the running step: the shell command a run's Bash call started, and its child, are gone when the run's stream ends aborted",
    ),
    async () => {
      // A duration no other process on the machine has: the marker of the step's processes.
      const marker = `sleep 987.${process.pid}`;
      const d = await serving.deploy({ steps: [reply().tool("Bash", { command: `${marker}; true` })] });
      d.startWorker("w1");
      const { agent, run } = await createRun(d, "cancel");
      try {
        await waitFor("the step's shell command to run", () => processesWith(marker).length > 0 || undefined);
        const cancelled = await d.request("POST", `/v1/agents/${agent}/runs/${run}/cancel`);
        expect(cancelled.json.status).toBe("CANCELLED");
        const events = await readStream(d, `/v1/agents/${agent}/runs/${run}/stream`);
        expect(events.at(-1)).toMatchObject({ event: "run_end", data: { aborted: true } });
        expect(processesWith(marker)).toEqual([]);
      } finally {
        // A failed test leaves no sleep of its own behind.
        for (const line of processesWith(marker)) signalPid(Number.parseInt(line, 10));
      }
    },
  );
  test(
    pgTitle(
      "cairn serve without --workers, given the workers' limits, says once on stderr that they do not apply to it",
    ),
    async () => {
      const d = await serving.deploy({ steps: [] }, ["--max-running", "2"]);
      expect((await d.request("GET", "/v1/me")).status).toBe(200);
      const stderr = await d.stopApi();
      expect(stderr.match(/are the workers' limits; this cairn serve runs no worker/g)).toHaveLength(1);
    },
  );
  test(
    pgTitle(
      "--model-limits requestsPerMinute 1 for one model, shared by two workers: the second run's request waits for the minute's window (cairn.model_waits), and goes once the window is cleared",
    ),
    async () => {
      const model = heldModel();
      const d = await serving.deploy({ respond: model.respond });
      const limits = { "anthropic/claude-haiku-5-5": { requestsPerMinute: 1 } };
      const args = ["--concurrency", "1", "--model-limits", JSON.stringify(limits)];
      d.startWorker("w1", args);
      d.startWorker("w2", args);
      const haiku = { model: { id: "claude-haiku-5-5" } };
      const a = await createRun(d, "a", haiku);
      await waitFor("a's request", () => model.held.length > 0 || undefined);
      model.held.shift()!.release();
      expect(await runEnded(d, a.agent, a.run)).toMatchObject({ status: "FINISHED" });
      const b = await createRun(d, "b", haiku);
      const outcome = await waitFor("b to wait for the minute's window, or send its request", () => {
        if (hasRow(d, "cairn.model_waits", "reason = '1 requests a minute of anthropic/claude-haiku-5-5'"))
          return "waiting";
        return model.held.length > 0 ? "sent" : undefined;
      });
      expect(outcome).toBe("waiting");
      expect(model.arrivals.map((arrival) => arrival.run)).toEqual(["a"]);
      // An operator clearing the window (as the minute passing does) lets b's request go.
      sql(d, "DELETE FROM cairn.model_request_starts");
      await waitFor("b's request", () => model.held.length > 0 || undefined);
      model.held.shift()!.release();
      expect(await runEnded(d, b.agent, b.run)).toMatchObject({ status: "FINISHED" });
      expect(model.arrivals.map((arrival) => arrival.run)).toEqual(["a", "b"]);
    },
  );
  test(
    pgTitle(
      "a worker started with other queue limits than the workers before it says once on stderr that it changed them for every worker",
    ),
    async () => {
      const d = await serving.deploy({ steps: [] });
      const first = d.startWorker("w1", ["--concurrency", "1"]);
      let firstErr = "";
      first.stderr!.on("data", (chunk) => {
        firstErr += chunk;
      });
      await waitFor(
        "w1's queue registration",
        () => hasRow(d, "dbos.queues", "name = 'cairn-runs' AND worker_concurrency = 1") || undefined,
      );
      const second = d.startWorker("w2", ["--concurrency", "3", "--max-running", "6"]);
      let secondErr = "";
      second.stderr!.on("data", (chunk) => {
        secondErr += chunk;
      });
      await waitFor("w2's notice", () => secondErr.includes("\n") || undefined);
      expect(secondErr).toBe(
        "cairn worker: the run queue's limits are one set for all workers, kept in the database: this worker changed them (--concurrency 1 → 3, --max-running 0 → 6) for every worker; give every worker the same values\n",
      );
      expect(firstErr).toBe("");
    },
  );
});
