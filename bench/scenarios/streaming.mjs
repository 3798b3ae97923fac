// Streaming: how fast text deltas go from the model's socket to cairn's stdout, and how soon each
// one is written when the model is slow.
import { loadTesting, parseLines, resultOf, row, runCli, serverEnv, tempWorkspace } from "../lib/harness.mjs";
import { recordRequests } from "../lib/server-probe.mjs";
import { median, percentile, round2 } from "../lib/stats.mjs";

/** @typedef {import("../run.mjs").Context} Context */

const CHUNK = 16;
const WORDS = "the quick brown fox jumps over a lazy dog while cairn streams every token ";

/** ASCII text of exactly `deltas` chunks of CHUNK characters. @param {number} deltas */
function textOf(deltas) {
  const length = deltas * CHUNK;
  return WORDS.repeat(Math.ceil(length / WORDS.length)).slice(0, length);
}

const PARTIAL_ARGS = ["--output-format", "stream-json", "--stream-partial-output"];

/** A partial-output delta line: an assistant line with timestamp_ms and no model_call_id (PM-28). */
function isDeltaLine(/** @type {Record<string, unknown>} */ line) {
  return line.type === "assistant" && "timestamp_ms" in line && !("model_call_id" in line);
}

/** Calls `onLine(line, at)` for each complete stdout line as it arrives. */
function lineSplitter(/** @type {(line: string, at: number) => void} */ onLine) {
  let pending = "";
  return (/** @type {Buffer} */ chunk, /** @type {number} */ at) => {
    const text = pending + chunk.toString("utf8");
    let start = 0;
    for (let end = text.indexOf("\n"); end !== -1; end = text.indexOf("\n", start)) {
      onLine(text.slice(start, end), at);
      start = end + 1;
    }
    pending = text.slice(start);
  };
}

export const stream20k = {
  id: "stream-20k",
  title: "20,000 text deltas, --stream-partial-output",
  /** @param {Context} ctx */
  async run(ctx) {
    const deltas = ctx.quick ? 2_000 : 20_000;
    const text = textOf(deltas);
    const { startScriptedServer, reply } = await loadTesting();
    const server = await startScriptedServer({ steps: [], chunkSize: CHUNK });
    const cwd = tempWorkspace();
    /** @type {number[]} */
    const rates = [];
    /** @type {number[]} */
    const spans = [];
    /** @type {number[]} */
    const totals = [];
    try {
      for (let i = 0; i < ctx.warmup + ctx.runs; i++) {
        server.append(reply().text(text));
        const probe = recordRequests();
        let resultAt = Number.NaN;
        let tail = "";
        const run = await runCli(["-p", "Stream a long answer", ...PARTIAL_ARGS], {
          env: serverEnv(server),
          cwd,
          onStdout(chunk, at) {
            // The result line is the last one; look for it across chunk boundaries.
            const seen = tail + chunk.toString("latin1");
            if (Number.isNaN(resultAt) && seen.includes('{"type":"result"')) resultAt = at;
            tail = seen.slice(-32);
          },
        });
        probe.stop();
        const lines = parseLines(run.stdout);
        const deltaLines = lines.filter(isDeltaLine);
        const rebuilt = deltaLines
          .map(
            (line) =>
              /** @type {{ message: { content: { text: string }[] } }} */ (line).message.content[0].text,
          )
          .join("");
        if (deltaLines.length !== deltas || rebuilt !== text || resultOf(run.stdout).result !== text) {
          throw new Error(`expected ${deltas} delta lines rebuilding the text, got ${deltaLines.length}`);
        }
        const firstByteAt = probe.records[0]?.firstByteAt ?? Number.NaN;
        const span = resultAt - firstByteAt;
        if (i < ctx.warmup) continue;
        spans.push(span);
        rates.push(deltas / (span / 1000));
        totals.push(run.ms);
      }
    } finally {
      await server.close();
    }
    return row({
      id: this.id,
      title: deltas === 20_000 ? this.title : `${deltas} text deltas, --stream-partial-output`,
      unit: "deltas/s",
      values: rates,
      target: { text: "≥ 300,000 deltas/s", kind: "min", value: 300_000 },
      details: {
        deltas,
        chunkChars: CHUNK,
        firstByteToResultMs: round2(median(spans)),
        processWallMs: round2(median(totals)),
      },
    });
  },
};

export const slowStream = {
  id: "slow-delta-latency",
  title: "slow model: each delta to stdout",
  /** @param {Context} ctx */
  async run(ctx) {
    const deltas = 30;
    const delayMs = 10;
    const text = textOf(deltas);
    const { startScriptedServer, reply } = await loadTesting();
    const server = await startScriptedServer({ steps: [], chunkSize: CHUNK });
    const cwd = tempWorkspace();
    /** @type {number[]} */
    const latencies = [];
    try {
      for (let i = 0; i < ctx.warmup + ctx.runs; i++) {
        server.append(reply().text(text).delayPerEvent(delayMs));
        const probe = recordRequests({ trackDeltas: true });
        /** @type {number[]} */
        const arrivals = [];
        await runCli(["-p", "Answer slowly", ...PARTIAL_ARGS], {
          env: serverEnv(server),
          cwd,
          onStdout: lineSplitter((line, at) => {
            if (line.startsWith('{"type":"assistant"') && isDeltaLine(JSON.parse(line))) arrivals.push(at);
          }),
        });
        probe.stop();
        const writes = probe.records[0]?.deltaWrites ?? [];
        if (writes.length !== deltas || arrivals.length !== deltas) {
          throw new Error(
            `expected ${deltas} deltas, server wrote ${writes.length}, stdout had ${arrivals.length}`,
          );
        }
        if (i < ctx.warmup) continue;
        for (let k = 0; k < deltas; k++) latencies.push(arrivals[k] - writes[k]);
      }
    } finally {
      await server.close();
    }
    return row({
      id: this.id,
      title: this.title,
      unit: "ms",
      values: latencies,
      // Issue 19: "delta-to-stdout latency under 1 ms" (the median of every delta of every run).
      target: { text: "median < 1 ms", kind: "below", value: 1 },
      details: {
        deltas,
        delayPerDeltaMs: delayMs,
        p95Ms: round2(percentile(latencies, 95)),
        maxMs: round2(Math.max(...latencies)),
      },
      note: "server's write of a delta → its line read from cairn's stdout; all deltas of all runs",
    });
  },
};
