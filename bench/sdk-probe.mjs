// Runs in its own process (so its memory figures are its own) for the SDK scenario: how soon the
// first message of an in-process query() arrives, and whether 100 concurrent queries against one
// scripted server each get their own answer. Prints one JSON object on stdout.
//
//   node bench/sdk-probe.mjs <distDir> <sequentialQueries> <concurrentQueries>
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const DIST = pathToFileURL(`${process.argv[2] ?? fileURLToPath(new URL("../dist", import.meta.url))}/`);
const sequential = Number(process.argv[3] ?? 20);
const concurrent = Number(process.argv[4] ?? 100);

function print(/** @type {Record<string, unknown>} */ value) {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

const mib = (/** @type {number} */ bytes) => Number((bytes / 1e6).toFixed(1));

/** @type {(params: { prompt: string, options?: Record<string, unknown> }) => AsyncIterable<Record<string, unknown>>} */
let query;
try {
  ({ query } = await import(new URL("index.js", DIST).href));
  if (typeof query !== "function") throw new Error("dist/index.js exports no query()");
} catch (error) {
  print({
    status: "unavailable",
    reason: `SDK not available: ${error instanceof Error ? error.message : error}`,
  });
  process.exit(0);
}
const { startScriptedServer, reply } = await import(new URL("testing/index.js", DIST).href);

const cwd = mkdtempSync(join(tmpdir(), "cairn-bench-sdk-"));
const server = await startScriptedServer({ steps: [] });
const options = {
  cwd,
  apiKey: "bench-key",
  baseURL: server.url,
  env: { PATH: process.env.PATH ?? "" },
  // Measures the engine, not transcript files (and writes nothing to the user's ~/.cairn).
  persistSession: false,
  maxTurns: 2,
};
const rssBefore = process.memoryUsage().rss;

try {
  // First message: time from the query() call to the first message it yields. The first query of
  // the process also pays for lazily loaded modules; it is reported apart as "cold".
  /** @type {number[]} */
  const firstMessageMs = [];
  /** @type {string[]} */
  const firstTypes = [];
  for (let i = 0; i < sequential; i++) {
    server.append(reply().text(`sequential answer ${i}`));
    const started = performance.now();
    const q = query({ prompt: `sequential question ${i}`, options });
    const iterator = q[Symbol.asyncIterator]();
    const first = await iterator.next();
    firstMessageMs.push(performance.now() - started);
    firstTypes.push(`${first.value?.type}/${first.value?.subtype ?? ""}`);
    let last = first.value;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) last = next.value;
    if (last?.type !== "result" || last.result !== `sequential answer ${i}`) {
      throw new Error(`sequential query ${i} ended with ${JSON.stringify(last).slice(0, 300)}`);
    }
  }

  // 100 at once. The server hands out its steps in the order requests arrive, so each answer names
  // its step; afterwards each query's result must be the answer of the step its own request got.
  const mark = server.requests.length;
  for (let k = 0; k < concurrent; k++) server.append(reply().text(`concurrent answer for step ${k}`));
  const stepBase = sequential; // steps 0..sequential-1 answered the sequential queries
  const started = performance.now();
  const outcomes = await Promise.all(
    Array.from({ length: concurrent }, async (_, i) => {
      const prompt = `concurrent question ${i}`;
      /** @type {Record<string, unknown> | undefined} */
      let result;
      const sessions = new Set();
      for await (const message of query({ prompt, options })) {
        sessions.add(message.session_id);
        if (message.type === "result") result = message;
      }
      return { prompt, result, sessions };
    }),
  );
  const concurrentMs = performance.now() - started;
  const expected = new Map();
  for (const request of server.requests.slice(mark)) {
    const body = /** @type {{ messages?: { content: unknown }[] }} */ (request.body);
    const content = body.messages?.[0]?.content;
    const text =
      typeof content === "string"
        ? content
        : Array.isArray(content)
          ? content.map((block) => block.text ?? "").join("")
          : "";
    expected.set(text, `concurrent answer for step ${(request.stepIndex ?? Number.NaN) - stepBase}`);
  }
  let crossTalk = 0;
  const sessionIds = new Set();
  for (const outcome of outcomes) {
    if (outcome.result?.result !== expected.get(outcome.prompt) || outcome.sessions.size !== 1)
      crossTalk += 1;
    for (const id of outcome.sessions) sessionIds.add(id);
  }
  const memory = process.memoryUsage();
  print({
    status: "ok",
    firstMessageMs,
    firstMessageTypes: [...new Set(firstTypes)],
    concurrent: {
      queries: concurrent,
      completed: outcomes.filter((o) => o.result?.subtype === "success").length,
      crossTalk,
      distinctSessions: sessionIds.size,
      wallMs: Number(concurrentMs.toFixed(1)),
    },
    memoryMB: {
      rssBeforeQueries: mib(rssBefore),
      rssAfter: mib(memory.rss),
      heapUsedAfter: mib(memory.heapUsed),
      peakRss: mib(process.resourceUsage().maxRSS * 1024),
    },
  });
} finally {
  await server.close();
  rmSync(cwd, { recursive: true, force: true });
}
