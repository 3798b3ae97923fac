// Runs in its own process (so its memory figures are its own) for the SDK scenario: how soon the
// first message of an in-process query() arrives, and whether 1,000 concurrent queries against one
// scripted server each get their own answer, with the memory each query costs. Prints one JSON
// object on stdout.
//
//   node --expose-gc bench/sdk-probe.mjs <distDir> <sequentialQueries> <concurrentQueries>
//
// The scripted server runs in a child process (this file again, with --serve): it keeps every
// request it received, system prompt and tool schemas included, and that is the bench's memory, not
// the SDK's. The child tells which step answered which prompt, over IPC.
import { fork } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

function print(/** @type {Record<string, unknown>} */ value) {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

const mb = (/** @type {number} */ bytes, digits = 1) => Number((bytes / 1e6).toFixed(digits));

if (process.argv[2] === "--serve") await serve(process.argv[3] ?? "");
else await main();

/** The child: the scripted server, answering the parent's requests over IPC. */
async function serve(/** @type {string} */ distDir) {
  const { startScriptedServer, reply } = await import(pathToFileURL(`${distDir}/testing/index.js`).href);
  const server = await startScriptedServer({ steps: [] });
  let seen = 0;
  process.on("message", async (/** @type {any} */ message) => {
    if (message.op === "append") {
      for (const text of message.texts) server.append(reply().text(text));
      process.send?.({ op: "appended" });
    } else if (message.op === "requests") {
      // Which step each model request (named by its first user message) received, since the last ask.
      const requests = server.requests.slice(seen).map((/** @type {any} */ request) => {
        const content = request.body?.messages?.[0]?.content;
        const text =
          typeof content === "string"
            ? content
            : Array.isArray(content)
              ? content.map((/** @type {any} */ block) => block.text ?? "").join("")
              : "";
        return { text, stepIndex: request.stepIndex };
      });
      seen = server.requests.length;
      process.send?.({ op: "requests", requests });
    } else if (message.op === "close") {
      await server.close();
      process.disconnect();
    }
  });
  process.send?.({ op: "ready", url: server.url });
}

async function main() {
  const distDir = process.argv[2] ?? fileURLToPath(new URL("../dist", import.meta.url));
  const sequential = Number(process.argv[3] ?? 20);
  const concurrent = Number(process.argv[4] ?? 1000);

  /** @type {(params: { prompt: string, options?: Record<string, unknown> }) => AsyncIterable<Record<string, unknown>>} */
  let query;
  try {
    ({ query } = await import(pathToFileURL(`${distDir}/index.js`).href));
    if (typeof query !== "function") throw new Error("dist/index.js exports no query()");
  } catch (error) {
    print({
      status: "unavailable",
      reason: `SDK not available: ${error instanceof Error ? error.message : error}`,
    });
    return;
  }

  const child = fork(fileURLToPath(import.meta.url), ["--serve", distDir], {
    stdio: ["ignore", "ignore", "inherit", "ipc"],
    execArgv: [],
  });
  /** @type {((message: any) => void)[]} */
  const waiting = [];
  child.on("message", (message) => waiting.shift()?.(message));
  const next = () => new Promise((resolve) => waiting.push(resolve));
  const ask = (/** @type {Record<string, unknown>} */ message) => {
    const answer = next();
    child.send(message);
    return answer;
  };
  const { url } = /** @type {{ url: string }} */ (await next());
  const append = (/** @type {string[]} */ texts) => ask({ op: "append", texts });

  const cwd = mkdtempSync(join(tmpdir(), "cairn-bench-sdk-"));
  const options = {
    cwd,
    apiKey: "bench-key",
    baseURL: url,
    env: { PATH: process.env.PATH ?? "" },
    // Measures the engine, not transcript files (and writes nothing to the user's ~/.cairn).
    persistSession: false,
    maxTurns: 2,
  };

  try {
    // First message: time from the query() call to the first message it yields. The first query of
    // the process also pays for lazily loaded modules; it is reported apart as "cold". These
    // queries are also the warm-up of the memory baseline below.
    /** @type {number[]} */
    const firstMessageMs = [];
    /** @type {string[]} */
    const firstTypes = [];
    await append(Array.from({ length: sequential }, (_, i) => `sequential answer ${i}`));
    for (let i = 0; i < sequential; i++) {
      const started = performance.now();
      const q = query({ prompt: `sequential question ${i}`, options });
      const iterator = q[Symbol.asyncIterator]();
      const first = await iterator.next();
      firstMessageMs.push(performance.now() - started);
      firstTypes.push(`${first.value?.type}/${first.value?.subtype ?? ""}`);
      let last = first.value;
      for (let step = await iterator.next(); !step.done; step = await iterator.next()) last = step.value;
      if (last?.type !== "result" || last.result !== `sequential answer ${i}`) {
        throw new Error(`sequential query ${i} ended with ${JSON.stringify(last).slice(0, 300)}`);
      }
    }
    await ask({ op: "requests" }); // forget the sequential requests

    // All at once. The server hands out its steps in the order requests arrive, so each answer names
    // its step; afterwards each query's result must be the answer of the step its own request got.
    const stepBase = sequential; // steps 0..sequential-1 answered the sequential queries
    await append(Array.from({ length: concurrent }, (_, k) => `concurrent answer for step ${k}`));

    // Baseline: after the warm-up queries (the provider is loaded) and a full collection.
    const gc = /** @type {(() => void) | undefined} */ (globalThis.gc);
    gc?.();
    const before = process.memoryUsage();
    const maxRssBefore = process.resourceUsage().maxRSS * 1024;
    let peakRss = before.rss;
    let peakHeap = before.heapUsed;
    let samples = 0;
    const sample = () => {
      const now = process.memoryUsage();
      samples += 1;
      if (now.rss > peakRss) peakRss = now.rss;
      if (now.heapUsed > peakHeap) peakHeap = now.heapUsed;
    };
    const sampler = setInterval(sample, 5);

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
    clearInterval(sampler);
    sample();
    // The kernel's high-water mark catches a peak between two samples (it is the process's, and the
    // warm-up's peak is below the baseline's maxRSS, reported too).
    const maxRss = process.resourceUsage().maxRSS * 1024;
    if (maxRss > peakRss) peakRss = maxRss;
    const atEnd = process.memoryUsage();
    // What stays once the queries are over (a leak shows here).
    gc?.();
    const afterGc = process.memoryUsage();

    const { requests } = /** @type {{ requests: { text: string, stepIndex: number | null }[] }} */ (
      await ask({ op: "requests" })
    );
    const expected = new Map();
    for (const request of requests) {
      expected.set(
        request.text,
        `concurrent answer for step ${(request.stepIndex ?? Number.NaN) - stepBase}`,
      );
    }
    let crossTalk = 0;
    const sessionIds = new Set();
    for (const outcome of outcomes) {
      if (outcome.result?.result !== expected.get(outcome.prompt) || outcome.sessions.size !== 1)
        crossTalk += 1;
      for (const id of outcome.sessions) sessionIds.add(id);
    }
    print({
      status: "ok",
      firstMessageMs,
      firstMessageTypes: [...new Set(firstTypes)],
      concurrent: {
        queries: concurrent,
        completed: outcomes.filter((o) => o.result?.subtype === "success").length,
        crossTalk,
        distinctSessions: sessionIds.size,
        modelRequests: requests.length,
        wallMs: Number(concurrentMs.toFixed(1)),
        msPerQuery: Number((concurrentMs / concurrent).toFixed(3)),
      },
      memoryMB: {
        gcBeforeBaseline: gc !== undefined,
        baselineRss: mb(before.rss),
        baselineHeapUsed: mb(before.heapUsed),
        maxRssBeforeRun: mb(maxRssBefore),
        peakRss: mb(peakRss),
        peakHeapUsed: mb(peakHeap),
        samples,
        rssAtEnd: mb(atEnd.rss),
        heapUsedAtEnd: mb(atEnd.heapUsed),
        rssAfterGc: mb(afterGc.rss),
        heapUsedAfterGc: mb(afterGc.heapUsed),
        rssPerQuery: mb((peakRss - before.rss) / concurrent, 3),
        heapPerQuery: mb((peakHeap - before.heapUsed) / concurrent, 3),
        heapRetainedPerQuery: mb((afterGc.heapUsed - before.heapUsed) / concurrent, 3),
      },
    });
  } finally {
    child.send({ op: "close" });
    rmSync(cwd, { recursive: true, force: true });
  }
}
