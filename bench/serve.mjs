// The `cairn serve` bench (docs/serve.md, "Bench"): queues many runs against the scripted model
// server, with N `cairn worker` processes on one PostgreSQL, and reports throughput, the time from
// enqueue to the first step under way (p50, p99) and to finish (p50, p95, p99, max), and the
// database's size. Not part of `npm run bench`: 1,000 runs take minutes.
//
//   npm run build && node bench/serve.mjs [--runs 1000] [--workers 4] [--concurrency 4]
//                                         [--kill-every S] [--baseline] [--database-url URL] [--json FILE]
//
// --kill-every S: chaos, a random worker SIGKILLed every S seconds and started again under its
// name; reports, per kill, the time until the runs it had under way were finished elsewhere or by it.
// --baseline: also the same runs as plain `cairn -p` processes, `--workers` of them at once (as
// `xargs -P <workers>` would run them).
//
// Without --database-url it makes a throwaway cluster from the machine's PostgreSQL binaries
// (/usr/lib/postgresql/*/bin; as root, run as the `postgres` user) and removes it afterwards.
// Each run: a model call answered with a Write, the edit, a second model call answered with text.
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { BENCH_CAIRN_HOME, cliEntry, loadTesting } from "./lib/harness.mjs";

const { values } = parseArgs({
  options: {
    runs: { type: "string", default: "1000" },
    workers: { type: "string", default: "4" },
    concurrency: { type: "string", default: "4" },
    "database-url": { type: "string" },
    "kill-every": { type: "string" },
    baseline: { type: "boolean", default: false },
    json: { type: "string" },
  },
});
const RUNS = Number(values.runs);
const WORKERS = Number(values.workers);
const CONCURRENCY = Number(values.concurrency);
const log = (message) => process.stderr.write(`${message}\n`);

const cluster = values["database-url"] ? undefined : await startCluster();
const adminUrl = values["database-url"] ?? cluster.url;
const psqlBin = values["database-url"] ? "psql" : join(cluster.bin, "psql");
const psql = (url, query) => {
  const result = spawnSync(psqlBin, [url, "-AtXc", query], { encoding: "utf8" });
  if (result.status !== 0) throw new Error(`psql: ${result.stderr}`);
  return result.stdout.trim();
};
const name = `cairn_bench_${Date.now()}`;
psql(adminUrl, `CREATE DATABASE ${name}`);
const databaseUrl = adminUrl.replace(/\/[^/?]+(\?|$)/, `/${name}$1`);

const { startScriptedServer, reply } = await loadTesting();
const model = await startScriptedServer({
  respond: (request) => {
    const answered = request.body.messages.filter((message) => message.role === "assistant").length;
    return answered === 0
      ? reply().text("Writing.").tool("Write", { file_path: "notes.txt", content: "note" }, "toolu_1")
      : reply().text("Done.");
  },
});
const workspaces = mkdtempSync(join(tmpdir(), "cairn-bench-serve-"));
const env = {
  PATH: process.env.PATH,
  HOME: process.env.HOME,
  CAIRN_HOME: BENCH_CAIRN_HOME,
  ANTHROPIC_BASE_URL: model.url,
  ANTHROPIC_API_KEY: "bench",
  DATABASE_URL: databaseUrl,
};
const cli = cliEntry();
const created = spawnSync(process.execPath, [cli, "serve", "create-key", "bench"], { env, encoding: "utf8" });
if (created.status !== 0) throw new Error(`create-key: ${created.stderr}`);
const key = created.stdout.trim();
const children = [];
const api = spawn(
  process.execPath,
  [cli, "serve", "--port", "0", "--workspaces", workspaces, "--rate-limit", "0"],
  {
    env,
    stdio: ["ignore", "pipe", "inherit"],
  },
);
children.push(api);
const url = await new Promise((resolve) => {
  let out = "";
  api.stdout.on("data", (chunk) => {
    out += chunk;
    if (out.includes("\n")) resolve(out.trim());
  });
});
const workers = new Map();
const startWorker = (id) => {
  const child = spawn(process.execPath, [cli, "worker", "--id", id, "--concurrency", String(CONCURRENCY)], {
    env,
    stdio: ["ignore", "ignore", "inherit"],
  });
  workers.set(id, child);
  children.push(child);
};
for (let i = 1; i <= WORKERS; i++) startWorker(`bench-${i}`);

/** Chaos: kills a random worker every `seconds` and starts it again; the recovery of each kill. */
function chaos(seconds) {
  const recoveries = [];
  const pendingChecks = [];
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
      if (stopped) break;
      const id = `bench-${1 + Math.floor(Math.random() * WORKERS)}`;
      const held = psql(
        databaseUrl,
        `SELECT string_agg(workflow_uuid, ' ') FROM dbos.workflow_status WHERE status = 'PENDING' AND executor_id = '${id}'`,
      )
        .split(" ")
        .filter(Boolean);
      const child = workers.get(id);
      const killedAt = Date.now();
      await new Promise((resolve) => {
        child.once("exit", resolve);
        child.kill("SIGKILL");
      });
      startWorker(id);
      if (held.length === 0) continue;
      const list = held.map((run) => `'${run}'`).join(",");
      pendingChecks.push(
        (async () => {
          while (true) {
            const left = Number(
              psql(
                databaseUrl,
                `SELECT count(*) FROM cairn.runs WHERE id IN (${list}) AND status IN ('CREATING', 'RUNNING')`,
              ),
            );
            if (left === 0) break;
            await new Promise((resolve) => setTimeout(resolve, 200));
          }
          recoveries.push((Date.now() - killedAt) / 1000);
        })(),
      );
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      await Promise.all(pendingChecks);
      return recoveries.sort((a, b) => a - b);
    },
  };
}

try {
  log(`queueing ${RUNS} runs on ${WORKERS} workers × ${CONCURRENCY} …`);
  const authorization = `Basic ${Buffer.from(`${key}:`).toString("base64")}`;
  let next = 0;
  const enqueue = async () => {
    while (next < RUNS) {
      const task = ++next;
      const response = await fetch(`${url}/v1/agents`, {
        method: "POST",
        headers: { authorization, "content-type": "application/json" },
        body: JSON.stringify({ prompt: { text: `bench task ${task}` } }),
      });
      if (response.status !== 200)
        throw new Error(`enqueue answered ${response.status}: ${await response.text()}`);
    }
  };
  const chaotic = values["kill-every"] ? chaos(Number(values["kill-every"])) : undefined;
  const enqueueStart = Date.now();
  await Promise.all(Array.from({ length: 8 }, enqueue));
  log(`queued in ${((Date.now() - enqueueStart) / 1000).toFixed(1)} s; waiting for the runs …`);
  while (true) {
    const left = Number(
      psql(databaseUrl, "SELECT count(*) FROM cairn.runs WHERE status IN ('CREATING', 'RUNNING')"),
    );
    if (left === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  const recoveries = chaotic ? await chaotic.stop() : undefined;
  const [finished, failed] = psql(
    databaseUrl,
    "SELECT count(*) FILTER (WHERE status = 'FINISHED') || ' ' || count(*) FILTER (WHERE status <> 'FINISHED') FROM cairn.runs",
  )
    .split(" ")
    .map(Number);
  // Times from the database's clock: a run's creation (enqueue) and its last update (its end).
  const [span, p50, p95, max] = psql(
    databaseUrl,
    `SELECT extract(epoch FROM max(updated_at) - min(created_at)) || ' ' ||
            percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM updated_at - created_at)) || ' ' ||
            percentile_cont(0.95) WITHIN GROUP (ORDER BY extract(epoch FROM updated_at - created_at)) || ' ' ||
            max(extract(epoch FROM updated_at - created_at)) FROM cairn.runs`,
  )
    .split(" ")
    .map(Number);
  // Enqueue → the run's first step under way (DBOS's own start time of the run's first checkpointed
  // step, the model call right after its `run_start` event): how long a run waits in the queue before
  // a client following its stream sees it move.
  const [firstP50, firstP99, finishP99] = psql(
    databaseUrl,
    `WITH first_step AS (
       SELECT workflow_uuid, min(started_at_epoch_ms) / 1000.0 AS at FROM dbos.operation_outputs
       WHERE started_at_epoch_ms IS NOT NULL GROUP BY workflow_uuid)
     SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY f.at - extract(epoch FROM r.created_at)) || ' ' ||
            percentile_cont(0.99) WITHIN GROUP (ORDER BY f.at - extract(epoch FROM r.created_at)) || ' ' ||
            percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM r.updated_at - r.created_at))
     FROM cairn.runs r JOIN first_step f ON f.workflow_uuid = r.id`,
  )
    .split(" ")
    .map(Number);
  const bytes = Number(psql(databaseUrl, `SELECT pg_database_size('${name}')`));
  const cairnBytes = Number(
    psql(
      databaseUrl,
      "SELECT sum(pg_total_relation_size(c.oid)) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname IN ('cairn', 'dbos') AND c.relkind = 'r'",
    ),
  );
  const results = {
    runs: RUNS,
    workers: WORKERS,
    concurrency: CONCURRENCY,
    finished,
    failed,
    seconds: Number(span.toFixed(1)),
    runsPerSecond: Number((RUNS / span).toFixed(2)),
    runsPerMinute: Math.round((RUNS / span) * 60),
    latencySeconds: {
      p50: Number(p50.toFixed(2)),
      p95: Number(p95.toFixed(2)),
      p99: Number(finishP99.toFixed(2)),
      max: Number(max.toFixed(2)),
    },
    enqueueToFirstStepSeconds: { p50: Number(firstP50.toFixed(2)), p99: Number(firstP99.toFixed(2)) },
    databaseMb: Number((bytes / 1e6).toFixed(1)),
    tablesKbPerRun: Number((cairnBytes / 1e3 / RUNS).toFixed(1)),
    modelRequests: model.requests.length,
    ...(recoveries
      ? {
          kills: recoveries.length,
          killToRunsFinishedSeconds: {
            p50: Number((recoveries[Math.floor(recoveries.length / 2)] ?? 0).toFixed(2)),
            max: Number((recoveries.at(-1) ?? 0).toFixed(2)),
          },
        }
      : {}),
    ...(values.baseline ? { baseline: await baseline() } : {}),
  };
  process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
  if (values.json) writeFileSync(values.json, `${JSON.stringify(results, null, 2)}\n`);
} finally {
  for (const child of children) child.kill("SIGTERM");
  await Promise.all(
    children.map(
      (child) =>
        new Promise((resolve) =>
          child.exitCode !== null || child.signalCode !== null ? resolve() : child.once("exit", resolve),
        ),
    ),
  );
  await model.close();
  rmSync(workspaces, { recursive: true, force: true });
  if (cluster) cluster.stop();
}

/**
 * The same runs as plain `cairn -p` processes (JSONL transcripts in the bench's $CAIRN_HOME),
 * `--workers` of them at once, against the same model server.
 */
async function baseline() {
  log(`baseline: ${RUNS} cairn -p, ${WORKERS} at once …`);
  const times = [];
  let next = 0;
  const one = async () => {
    while (next < RUNS) {
      const task = ++next;
      const cwd = mkdtempSync(join(workspaces, "p-"));
      const started = Date.now();
      const code = await new Promise((resolve) => {
        const child = spawn(
          process.execPath,
          [cli, "-p", `bench task ${task}`, "--permission-mode", "bypassPermissions"],
          { cwd, env, stdio: ["ignore", "ignore", "inherit"] },
        );
        child.once("exit", resolve);
      });
      if (code !== 0) throw new Error(`cairn -p exited ${code}`);
      times.push((Date.now() - started) / 1000);
    }
  };
  const start = Date.now();
  await Promise.all(Array.from({ length: WORKERS }, one));
  const seconds = (Date.now() - start) / 1000;
  times.sort((a, b) => a - b);
  return {
    seconds: Number(seconds.toFixed(1)),
    runsPerSecond: Number((RUNS / seconds).toFixed(2)),
    runsPerMinute: Math.round((RUNS / seconds) * 60),
    perRunSeconds: {
      p50: Number(times[Math.floor(times.length / 2)].toFixed(2)),
      p95: Number(times[Math.floor(times.length * 0.95)].toFixed(2)),
      p99: Number(times[Math.floor(times.length * 0.99)].toFixed(2)),
    },
  };
}

/** A throwaway PostgreSQL cluster (as test/helpers/postgres.ts makes them). */
async function startCluster() {
  const root = "/usr/lib/postgresql";
  const version = existsSync(root)
    ? readdirSync(root)
        .filter((v) => existsSync(join(root, v, "bin", "initdb")))
        .sort((a, b) => Number(b) - Number(a))[0]
    : undefined;
  if (!version) throw new Error("no PostgreSQL binaries in /usr/lib/postgresql: give --database-url");
  const bin = join(root, version, "bin");
  const dir = mkdtempSync(join(tmpdir(), "cairn-bench-pg-"));
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    chownSync(
      dir,
      Number(execFileSync("id", ["-u", "postgres"])),
      Number(execFileSync("id", ["-g", "postgres"])),
    );
    chmodSync(dir, 0o700);
  }
  const run = (command, args) => {
    const [file, argv] = asRoot
      ? ["runuser", ["-u", "postgres", "--", join(bin, command), ...args]]
      : [join(bin, command), args];
    const result = spawnSync(file, argv, { encoding: "utf8" });
    if (result.status !== 0) throw new Error(`${command}: ${result.stderr || result.stdout}`);
  };
  const data = join(dir, "data");
  run("initdb", ["-D", data, "-U", "cairn", "--auth=trust", "--no-sync", "-E", "UTF8"]);
  const port = await new Promise((resolve) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
  // fsync stays on: the figures are a durable deployment's.
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=200`;
  run("pg_ctl", ["-D", data, "-l", join(dir, "log"), "-o", options, "-w", "start"]);
  return {
    bin,
    url: `postgresql://cairn@127.0.0.1:${port}/postgres`,
    stop() {
      try {
        run("pg_ctl", ["-D", data, "-m", "fast", "-w", "stop"]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
