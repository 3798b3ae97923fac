import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll } from "vitest";
import {
  type ScriptedServer,
  type ScriptedServerOptions,
  startScriptedServer,
} from "../../src/testing/index.js";
import { CLI, cleanEnv } from "../conformance/pm/helpers.js";
import {
  findPostgresBinaries,
  postgresSkipReason,
  startThrowawayPostgres,
  type ThrowawayPostgres,
} from "../helpers/postgres.js";

/**
 * `cairn serve` and `cairn worker` as a user runs them: the built CLI as child processes, a
 * throwaway PostgreSQL cluster (test/helpers/postgres.ts), the scripted model server over HTTP.
 * Where PostgreSQL is not installed the tests skip, with the reason in their names.
 */
export const PG_SKIP = postgresSkipReason();
export const pgTitle = (title: string): string => (PG_SKIP ? `${title} (skipped: ${PG_SKIP})` : title);

/** How long a wait for a condition may last before the test gives up: a bound, not a measurement. */
const WAIT_LIMIT_MS = 120_000;

export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined> | T | undefined,
): Promise<T> {
  const deadline = Date.now() + WAIT_LIMIT_MS;
  while (true) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export type Deployment = {
  pg: ThrowawayPostgres;
  databaseUrl: string;
  model: ScriptedServer;
  env: NodeJS.ProcessEnv;
  api: string;
  /** The `cairn serve` process answering at `api`. */
  apiProcess: ChildProcess;
  key: string;
  workers: Map<string, ChildProcess>;
  /** Starts (or starts again) the worker of this name. */
  startWorker(id: string, args?: string[]): ChildProcess;
  /** SIGKILLs the worker of this name and waits for it to be gone. */
  killWorker(id: string): Promise<void>;
  // biome-ignore lint/suspicious/noExplicitAny: the API's JSON answers, which the tests' expectations check.
  request(method: string, path: string, body?: unknown, key?: string): Promise<{ status: number; json: any }>;
  /** Stops the API as a user does (SIGTERM) and answers what it printed on stderr in its life. */
  stopApi(): Promise<string>;
  stop(): Promise<void>;
};

/** A database, the model server, the API (`cairn serve --port 0`) and an API key; workers on demand. */
export async function startDeployment(
  model: Pick<ScriptedServerOptions, "steps" | "respond">,
  pg?: ThrowawayPostgres,
  /** More flags of `cairn serve` (`--rate-limit 3`). */
  serveArgs: string[] = [],
): Promise<Deployment> {
  const database = pg ?? (await startThrowawayPostgres());
  // A database of its own in the cluster: no other deployment's worker takes its runs.
  const name = `cairn_${Math.random().toString(36).slice(2, 10)}`;
  psql(database.url, `CREATE DATABASE ${name}`);
  const databaseUrl = database.url.replace(/\/postgres$/, `/${name}`);
  const server = await startScriptedServer(model);
  const env = cleanEnv({
    ANTHROPIC_BASE_URL: server.url,
    ANTHROPIC_API_KEY: "test",
    DATABASE_URL: databaseUrl,
  });
  const created = spawnSync(process.execPath, [CLI, "serve", "create-key", "tests"], {
    env,
    encoding: "utf8",
  });
  if (created.status !== 0) throw new Error(`create-key failed: ${created.stderr}`);
  const key = created.stdout.trim();
  const api = spawn(process.execPath, [CLI, "serve", "--port", "0", ...serveArgs], {
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  api.stderr!.on("data", (chunk) => {
    stderr += chunk;
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    api.stdout!.on("data", (chunk) => {
      out += chunk;
      if (out.includes("\n")) resolve(out.trim());
    });
    api.on("exit", () => reject(new Error(`cairn serve exited: ${stderr}`)));
  });
  const workers = new Map<string, ChildProcess>();
  const deployment: Deployment = {
    pg: database,
    databaseUrl,
    model: server,
    env,
    api: url,
    apiProcess: api,
    key,
    workers,
    startWorker(id, args = []) {
      const child = spawn(process.execPath, [CLI, "worker", "--id", id, ...args], {
        env,
        stdio: ["ignore", "ignore", "pipe"],
      });
      child.stderr!.on("data", (chunk) => process.stderr.write(`[${id}] ${chunk}`));
      workers.set(id, child);
      return child;
    },
    async killWorker(id) {
      const child = workers.get(id);
      if (!child || child.exitCode !== null || child.signalCode !== null) return;
      const gone = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGKILL");
      await gone;
    },
    async request(method, path, body, as = key) {
      const response = await fetch(`${url}${path}`, {
        method,
        headers: {
          authorization: `Basic ${Buffer.from(`${as}:`).toString("base64")}`,
          ...(body !== undefined ? { "content-type": "application/json" } : {}),
        },
        ...(body !== undefined ? { body: typeof body === "string" ? body : JSON.stringify(body) } : {}),
      });
      const text = await response.text();
      return { status: response.status, json: text ? JSON.parse(text) : undefined };
    },
    async stopApi() {
      if (api.exitCode === null && api.signalCode === null) {
        const gone = new Promise((resolve) => api.once("exit", resolve));
        api.kill("SIGTERM");
        await gone;
      }
      return stderr;
    },
    async stop() {
      // Stopped as a user stops them (SIGTERM), so each clears its scratch directory.
      for (const child of workers.values()) {
        if (child.exitCode !== null || child.signalCode !== null) continue;
        const gone = new Promise((resolve) => child.once("exit", resolve));
        child.kill("SIGTERM");
        await gone;
      }
      api.kill("SIGKILL");
      await server.close();
      if (!pg) await database.stop();
    },
  };
  return deployment;
}

/** Runs SQL against the deployment's database (psql of the same PostgreSQL installation). */
export function sql(deployment: Deployment, query: string): string[] {
  return psql(deployment.databaseUrl, query);
}

function psql(url: string, query: string): string[] {
  const found = findPostgresBinaries();
  if ("missing" in found) throw new Error(found.missing);
  const result = spawnSync(join(found.bin, "psql"), [url, "-AtXc", query], { encoding: "utf8" });
  if (result.status !== 0) throw new Error(`psql: ${result.stderr}`);
  return result.stdout.split("\n").filter((line) => line !== "");
}

/**
 * What differs between two executions of one scenario in a transcript record: times, ids (a
 * prompt's `userMessageId` too), the workspace's path, and the tokens and cost (the system prompt
 * names the workspace, whose path differs in length).
 */
const VOLATILE_FIELDS = new Set([
  ...["ts", "uuids", "sessionId", "cwd", "createdAt", "messageId", "userMessageId"],
  ...["durationMs", "durationApiMs", "usage", "costUsd", "totalCostUsd", "modelUsage", "modelCostUsd"],
]);

/** A transcript line as a JSON record without what differs between executions. */
export function comparableRecord(line: string, workspace?: string): Record<string, unknown> {
  return JSON.parse(workspace ? line.replaceAll(workspace, "<workspace>") : line, (name, value) =>
    VOLATILE_FIELDS.has(name) ? undefined : value,
  );
}

/** A run's stored transcript lines as JSON records, without what differs between executions. */
export function normalizedTranscript(
  deployment: Deployment,
  sessionId: string,
  workspace?: string,
): unknown[] {
  return sql(
    deployment,
    `SELECT line FROM cairn.transcript_lines WHERE session_id = '${sessionId}' ORDER BY line_no`,
  ).map((line) => comparableRecord(line, workspace));
}

/** Reads a run's SSE stream as cairn's events (`?events=cairn`): until it ends, or after `limit` events (then the connection is dropped). */
export async function readStream(
  deployment: Deployment,
  path: string,
  options: { lastEventId?: number; limit?: number } = {},
): Promise<{ id: number; event: string; data: unknown }[]> {
  const controller = new AbortController();
  // cairn's own event vocabulary (the default is the reference's frames, which name fewer events).
  const response = await fetch(`${deployment.api}${path}${path.includes("?") ? "&" : "?"}events=cairn`, {
    headers: {
      authorization: `Bearer ${deployment.key}`,
      ...(options.lastEventId !== undefined ? { "last-event-id": String(options.lastEventId) } : {}),
    },
    signal: controller.signal,
  });
  if (response.status !== 200) throw new Error(`stream answered ${response.status}`);
  const events: { id: number; event: string; data: unknown }[] = [];
  const decoder = new TextDecoder();
  let buffer = "";
  const reader = response.body!.getReader();
  while (options.limit === undefined || events.length < options.limit) {
    const { done, value } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let end = buffer.indexOf("\n\n");
    while (end !== -1 && (options.limit === undefined || events.length < options.limit)) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const fields = Object.fromEntries(
        frame
          .split("\n")
          .map((line) => [line.slice(0, line.indexOf(":")), line.slice(line.indexOf(":") + 2)]),
      );
      // The closing frames (`result`, `done`) carry no id: they are not stored events.
      if (fields.id !== undefined)
        events.push({ id: Number(fields.id), event: fields.event!, data: JSON.parse(fields.data!) });
      end = buffer.indexOf("\n\n");
    }
  }
  controller.abort();
  return events;
}

/** Issues one more API key on the deployment's database (`cairn serve create-key`). */
export function createKey(deployment: Deployment, name: string): string {
  const created = spawnSync(process.execPath, [CLI, "serve", "create-key", name], {
    env: deployment.env,
    encoding: "utf8",
  });
  if (created.status !== 0) throw new Error(`create-key failed: ${created.stderr}`);
  return created.stdout.trim();
}

/** Starts one more `cairn serve --port 0` on the deployment's database; resolves with its URL. */
export async function startServe(
  deployment: Deployment,
  args: string[] = [],
): Promise<{ url: string; process: ChildProcess }> {
  const child = spawn(process.execPath, [CLI, "serve", "--port", "0", ...args], {
    env: deployment.env,
    stdio: ["ignore", "pipe", "inherit"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (chunk) => {
      out += chunk;
      if (out.includes("\n")) resolve(out.trim());
    });
    child.on("exit", () => reject(new Error("cairn serve exited")));
  });
  return { url, process: child };
}

/**
 * The lifecycle every serve test file shares: one throwaway PostgreSQL cluster for the file (none
 * where PostgreSQL is absent: the tests skip), and each deployment a test starts stopped after it.
 */
export function servingOnThrowawayPostgres(): {
  /** The file's cluster (undefined where PostgreSQL is absent). */
  readonly pg: ThrowawayPostgres | undefined;
  /** `startDeployment` on the file's cluster, stopped after the test. */
  deploy(model: Pick<ScriptedServerOptions, "steps" | "respond">, serveArgs?: string[]): Promise<Deployment>;
} {
  let pg: ThrowawayPostgres | undefined;
  const started: Deployment[] = [];
  beforeAll(async () => {
    if (!PG_SKIP) pg = await startThrowawayPostgres();
  }, 60_000);
  afterEach(async () => {
    for (const deployment of started.splice(0)) await deployment.stop();
  });
  afterAll(async () => {
    await pg?.stop();
  });
  return {
    get pg() {
      return pg;
    },
    async deploy(model, serveArgs = []) {
      const deployment = await startDeployment(model, pg, serveArgs);
      // Stopped once, whether the test stopped it already or not.
      const stop = deployment.stop.bind(deployment);
      let stopped: Promise<void> | undefined;
      deployment.stop = () => (stopped ??= stop());
      started.push(deployment);
      return deployment;
    },
  };
}

/** Waits for a v1 run to end (FINISHED, ERROR or CANCELLED) and answers it. */
export const runEnded = (d: Deployment, agentId: string, runId: string) =>
  waitFor(`run ${runId} to end`, async () => {
    const run = await d.request("GET", `/v1/agents/${agentId}/runs/${runId}`);
    return ["FINISHED", "ERROR", "CANCELLED"].includes(run.json.status) ? run.json : undefined;
  });
