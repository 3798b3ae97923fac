import { type ChildProcess, spawn } from "node:child_process";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { ConfigFileError } from "../config/files.js";
import { ConfigError } from "../providers/types.js";
import { EXIT, UsageError } from "../util/exit-codes.js";
import type { Interrupts } from "../util/signals.js";

/** Requests a minute per API key, unless --rate-limit says otherwise. */
const DEFAULT_RATE_LIMIT = 600;

export const SERVE_HELP = `Usage: cairn serve [options]
       cairn serve create-key <name> [--database-url URL]
       cairn serve export <session-id | agent-id> [--database-url URL]
       cairn serve import <session-id> [--database-url URL]
       cairn worker [--database-url URL] [--id NAME] [--concurrency N] [--key-concurrency N]
                    [--max-running N] [--model-limits JSON] [--takeover-after S]
                    [--workspaces DIR] [--workspace-remote URL]

Runs the Cloud Agents API (v1, and v0 with its signed webhooks; docs/serve.md) over PostgreSQL,
and with --workers the workers that run the agents' turns as durable jobs: a worker killed at any
point loses nothing. An agent's workspace is a git repository (https, ssh, file:// URL, or a local
path with a ref) that a worker clones, or a local directory worked in place.

Options:
  --port <n>            port of the HTTP API (default 8080; 0: any free port)
  --host <address>      address to listen on (default 127.0.0.1)
  --database-url <url>  PostgreSQL database (default: $DATABASE_URL)
  --workers <n>         also run n workers in this command, restarted when they die (default 0)
  --workspaces <dir>    where each agent gets its directory: the clone of its repository, or an
                        empty one (default: cairn-workspaces in the system's temporary folder);
                        a worker on another machine clones into the same path there
  --rate-limit <n>      requests a minute one API key may make before it gets 429 with Retry-After
                        (default ${DEFAULT_RATE_LIMIT}; 0: no limit); shared by all serve processes
  -h, --help            this help

Limits of the workers (given to cairn serve --workers, which hands them to its workers, or to
each cairn worker; give every worker of a deployment the same values):
  --key-concurrency <n> runs of one API key under way at once over all workers, so one key's
                        queue does not hold back another's (default 0: no such limit)
  --max-running <n>     runs under way at once over the whole deployment (default 0: no such
                        limit). Queued runs start by their priority (the API's "priority",
                        0-100, higher first), then in the order they were queued
  --model-limits <json | file>
                        model requests in flight at once and started a minute, by provider or
                        provider/model, counted over all workers in the database, e.g.
                        '{"anthropic": {"concurrency": 8}, "anthropic/claude-sonnet-5-5":
                        {"requestsPerMinute": 50}}'. Whatever the limits, a 429 from a provider
                        holds back every worker's requests of that key to that model for its
                        Retry-After (2 s without one)

Worker options (cairn worker):
  --id <name>           the worker's name, unique among live workers (default worker-1)
  --concurrency <n>     runs the worker drives at once (default 4)
  --takeover-after <s>  seconds without a heartbeat after which a worker is dead and a live
                        worker takes over its runs (default 30)
  --workspaces <dir>    where this worker keeps agents' clones (default: the directory the API
                        chose for each agent)
  --workspace-remote <url>
                        (also serve --workers; default $CAIRN_WORKSPACE_REMOTE) a git remote every
                        worker can push to and fetch from: each agent's run branch is pushed there
                        after every tool step that changed files, so a worker on another machine
                        continues from it (default: the agent's own repository, for an agent
                        launched with target.branchName; otherwise nothing is pushed)

cairn serve prints the API's URL on stdout once it listens. create-key prints a new API key
(the HTTP Basic user name, or Bearer token, of the API's requests). export writes a session stored
in the database (an agent's conversation) into the local transcript store, $CAIRN_HOME/sessions,
and prints its path: then \`cairn -p --resume <session-id>\` and \`cairn report <session-id>\` open
it. import stores a local session's new turns back into the database (the agent's next run
continues from them).
`;

function databaseUrlOf(value: string | undefined, env: NodeJS.ProcessEnv): string {
  const url = value ?? env.DATABASE_URL;
  if (!url) throw new UsageError("cairn serve needs a database: --database-url or DATABASE_URL");
  return url;
}

function positiveInt(name: string, value: string | undefined, fallback: number, min = 0): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min)
    throw new UsageError(`${name} must be an integer of at least ${min}, not ${value}`);
  return n;
}

function positiveNumber(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`${name} must be a positive number, not ${value}`);
  return n;
}

/**
 * `cairn serve` or `cairn worker`: returns the exit code, having said what went wrong in one line on
 * stderr (usage and configuration mistakes exit 2). It runs apart from the CLI's bundle, whose error
 * classes are not this module's (src/util/import-apart.ts), so it tells them itself.
 */
export async function runServeCommand(
  command: "serve" | "worker",
  argv: string[],
  version: string,
  interrupts: Interrupts,
  env: NodeJS.ProcessEnv,
): Promise<number> {
  try {
    return await (command === "serve" ? runServe : runWorker)(argv, version, interrupts, env);
  } catch (error) {
    // An interrupted run ends the entry's way (its last line, 130/143).
    if (interrupts.exitCode !== undefined) throw error;
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`cairn: ${message.replace(/\s*[\r\n]+\s*/g, " ").trim()}\n`);
    const usage =
      error instanceof UsageError || error instanceof ConfigError || error instanceof ConfigFileError;
    return usage ? EXIT.usage : EXIT.failure;
  }
}

/** `cairn serve …`: the API (and its workers), or `create-key`. */
export async function runServe(
  argv: string[],
  version: string,
  interrupts: Interrupts,
  env: NodeJS.ProcessEnv,
): Promise<number> {
  const { values, positionals } = parseOrUsage(argv, {
    port: { type: "string" },
    host: { type: "string" },
    "database-url": { type: "string" },
    workers: { type: "string" },
    workspaces: { type: "string" },
    "rate-limit": { type: "string" },
    "key-concurrency": { type: "string" },
    "max-running": { type: "string" },
    "model-limits": { type: "string" },
    "workspace-remote": { type: "string" },
    help: { type: "boolean", short: "h" },
  });
  if (values.help) {
    process.stdout.write(SERVE_HELP);
    return 0;
  }
  const databaseUrl = databaseUrlOf(values["database-url"] as string | undefined, env);
  if (positionals[0] === "create-key") {
    const name = positionals[1];
    if (!name || positionals.length > 2) throw new UsageError("cairn serve create-key takes one name");
    const { openPool, migrate } = await import("../durable/database.js");
    const { createApiKey } = await import("./api-keys.js");
    const pool = await openPool(databaseUrl, 1);
    try {
      await migrate(pool);
      process.stdout.write(`${await createApiKey(pool, name)}\n`);
    } finally {
      await pool.end();
    }
    return 0;
  }
  if (positionals[0] === "export" || positionals[0] === "import") {
    const id = positionals[1];
    if (!id || positionals.length > 2) throw new UsageError(`cairn serve ${positionals[0]} takes one id`);
    const { transferSession } = await import("./transfer-session.js");
    process.stdout.write(`${await transferSession(positionals[0], id, databaseUrl, env)}\n`);
    return 0;
  }
  if (positionals.length > 0) throw new UsageError(`cairn serve takes no argument ${positionals[0]}`);
  const workers = positiveInt("--workers", values.workers as string | undefined, 0);
  const keyConcurrency = positiveInt("--key-concurrency", values["key-concurrency"] as string | undefined, 0);
  const maxRunning = positiveInt("--max-running", values["max-running"] as string | undefined, 0);
  // Handed to each worker as given: the limits are the deployment's, the same on every worker.
  const workerArgs = [
    ...(keyConcurrency ? ["--key-concurrency", String(keyConcurrency)] : []),
    ...(maxRunning ? ["--max-running", String(maxRunning)] : []),
    ...(values["workspace-remote"] ? ["--workspace-remote", values["workspace-remote"] as string] : []),
    ...(values["model-limits"] !== undefined
      ? ["--model-limits", JSON.stringify(await modelLimitsOf(values["model-limits"] as string))]
      : []),
  ];
  if (values["workspace-remote"] && workers === 0)
    throw new UsageError(
      "--workspace-remote is the workers' setting: give it with --workers, or to each cairn worker",
    );
  if (workers === 0 && workerArgs.length > 0)
    process.stderr.write(
      "cairn: --key-concurrency, --max-running and --model-limits are the workers' limits; this cairn serve runs no worker (--workers 0), so give them to each cairn worker\n",
    );
  const { startApi } = await import("./api.js");
  const api = await startApi({
    databaseUrl,
    port: positiveInt("--port", values.port as string | undefined, 8080),
    host: (values.host as string | undefined) ?? "127.0.0.1",
    workspaces: (values.workspaces as string | undefined) ?? join(tmpdir(), "cairn-workspaces"),
    version,
    rateLimit: positiveInt("--rate-limit", values["rate-limit"] as string | undefined, DEFAULT_RATE_LIMIT),
  });
  const supervised = Array.from({ length: workers }, (_, i) =>
    superviseWorker(`worker-${i + 1}`, databaseUrl, env, workerArgs),
  );
  process.stdout.write(`${api.url}\n`);
  await new Promise<void>((resolve) =>
    interrupts.signal.addEventListener("abort", () => resolve(), { once: true }),
  );
  for (const worker of supervised) worker.stop();
  await api.stop();
  return interrupts.exitCode ?? 0;
}

/**
 * One worker process of `cairn serve --workers`, started again under the same name whenever it
 * dies: DBOS resumes a worker's unfinished runs when a worker of that name starts.
 */
function superviseWorker(
  id: string,
  databaseUrl: string,
  env: NodeJS.ProcessEnv,
  extraArgs: string[],
): { stop(): void } {
  let child: ChildProcess | undefined;
  let stopping = false;
  const start = () => {
    child = spawn(process.execPath, [process.argv[1]!, "worker", "--id", id, ...extraArgs], {
      stdio: ["ignore", "ignore", "inherit"],
      env: { ...env, DATABASE_URL: databaseUrl },
    });
    child.on("exit", () => {
      if (!stopping) setTimeout(start, 200);
    });
  };
  start();
  return {
    stop() {
      stopping = true;
      child?.kill("SIGTERM");
    },
  };
}

/** `cairn worker …`: one worker, until it is interrupted. */
export async function runWorker(
  argv: string[],
  version: string,
  interrupts: Interrupts,
  env: NodeJS.ProcessEnv,
): Promise<number> {
  const { values, positionals } = parseOrUsage(argv, {
    "database-url": { type: "string" },
    id: { type: "string" },
    concurrency: { type: "string" },
    "key-concurrency": { type: "string" },
    "max-running": { type: "string" },
    "model-limits": { type: "string" },
    "takeover-after": { type: "string" },
    workspaces: { type: "string" },
    "workspace-remote": { type: "string" },
    help: { type: "boolean", short: "h" },
  });
  if (values.help) {
    process.stdout.write(SERVE_HELP);
    return 0;
  }
  if (positionals.length > 0) throw new UsageError(`cairn worker takes no argument ${positionals[0]}`);
  const { startWorker } = await import("../durable/worker.js");
  const worker = await startWorker({
    databaseUrl: databaseUrlOf(values["database-url"] as string | undefined, env),
    env,
    id: (values.id as string | undefined) ?? "worker-1",
    concurrency: positiveInt("--concurrency", values.concurrency as string | undefined, 4, 1),
    keyConcurrency: positiveInt("--key-concurrency", values["key-concurrency"] as string | undefined, 0),
    maxRunning: positiveInt("--max-running", values["max-running"] as string | undefined, 0),
    notice: (message) => process.stderr.write(`cairn worker: ${message}\n`),
    ...(values["model-limits"] !== undefined
      ? { modelLimits: await modelLimitsOf(values["model-limits"] as string) }
      : {}),
    takeoverAfterMs:
      1000 * positiveNumber("--takeover-after", values["takeover-after"] as string | undefined, 30),
    version,
    ...(values.workspaces ? { workspaces: resolve(values.workspaces as string) } : {}),
    ...workspaceRemoteOf(values["workspace-remote"] as string | undefined, env),
  });
  await new Promise<void>((resolve) =>
    interrupts.signal.addEventListener("abort", () => resolve(), { once: true }),
  );
  await worker.stop();
  return interrupts.exitCode ?? 0;
}

/** `--model-limits`, checked before anything starts (a mistake is a usage error, exit 2). */
async function modelLimitsOf(text: string) {
  const { parseModelLimits } = await import("../durable/model-limits.js");
  return parseModelLimits(text, (message) => new UsageError(message));
}

/** `--workspace-remote`, else `CAIRN_WORKSPACE_REMOTE`; an empty value is none. */
function workspaceRemoteOf(value: string | undefined, env: NodeJS.ProcessEnv): { workspaceRemote?: string } {
  const remote = value ?? env.CAIRN_WORKSPACE_REMOTE;
  return remote ? { workspaceRemote: remote } : {};
}

type ArgSpec = Record<string, { type: "string" | "boolean"; short?: string }>;

function parseOrUsage(argv: string[], options: ArgSpec) {
  try {
    return parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}
