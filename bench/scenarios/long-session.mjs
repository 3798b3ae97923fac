// Long sessions (docs/context.md): what one compaction costs outside the model, and the memory of a
// 1,000-turn session that compacts all along.
import { pathToFileURL } from "node:url";
import { cliEntry, distFile, loadTesting, row, serverEnv, tempWorkspace } from "../lib/harness.mjs";
import { measurePeakRss } from "../lib/processes.mjs";

/** @typedef {import("../run.mjs").Context} Context */

const WINDOW = 32_768;
/** 40 KB: 500 lines of 80 characters. */
const FILE = Array.from({ length: 500 }, (_, i) => `line ${i} `.padEnd(79, "x")).join("\n");

/** A provider that answers at once with a prepared summary: what is measured is cairn's own work. */
function instantProvider() {
  const events = [
    {
      type: "message_start",
      message: {
        id: "msg_bench",
        type: "message",
        role: "assistant",
        model: "bench",
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 1, output_tokens: 1 },
      },
    },
    { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
    {
      type: "content_block_delta",
      index: 0,
      delta: { type: "text_delta", text: "Goal: read files. ".repeat(50) },
    },
    { type: "content_block_stop", index: 0 },
    { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 200 } },
    { type: "message_stop" },
  ];
  return {
    wire: "anthropic-messages",
    displayName: "bench",
    apiKeySource: "none",
    async stream() {
      return {
        events: (async function* () {
          yield* events;
        })(),
      };
    },
  };
}

/** A history at the threshold of a 32k window: a prompt and three 40 KB reads. */
function historyAtThreshold() {
  /** @type {unknown[]} */
  const history = [{ role: "user", content: "Read the files." }];
  for (let n = 0; n < 3; n++) {
    const id = `toolu_${n}`;
    history.push({
      role: "assistant",
      content: [{ type: "tool_use", id, name: "Read", input: { file_path: `f${n}.txt` } }],
    });
    history.push({ role: "user", content: [{ type: "tool_result", tool_use_id: id, content: FILE }] });
  }
  return history;
}

export const compactionCost = {
  id: "compaction-cost",
  title: "one compaction, time outside the model",
  /** @param {Context} ctx */
  async run(ctx) {
    const [{ compactHistory }, { ContextMeter }, { DEFAULT_RETRY_POLICY }] = await Promise.all(
      ["engine/compaction.js", "engine/context-meter.js", "engine/retry.js"].map(
        (file) => import(pathToFileURL(distFile(file)).href),
      ),
    );
    const provider = instantProvider();
    /** @type {number[]} */
    const times = [];
    for (let i = 0; i < ctx.warmup + ctx.runs * 10; i++) {
      const history = historyAtThreshold();
      const meter = new ContextMeter({ contextWindow: WINDOW }, 16_384, "system prompt", []);
      const started = performance.now();
      const compaction = compactHistory(history, {
        trigger: "auto",
        instructions: null,
        keepTokens: 6_000,
        provider,
        providerModel: "bench",
        system: "system prompt",
        tools: [],
        maxTokens: 16_384,
        turn: 1,
        signal: new AbortController().signal,
        retryPolicy: DEFAULT_RETRY_POLICY,
        meter,
      });
      let step = await compaction.next();
      while (!step.done) step = await compaction.next();
      if (!step.value) throw new Error("the bench history was not compacted");
      if (i >= ctx.warmup) times.push(performance.now() - started);
    }
    return row({
      id: this.id,
      title: this.title,
      unit: "ms",
      values: times,
      target: { text: "≤ 5 ms", kind: "max", value: 5 },
      note: "a 120 KB history summarised by a model that answers at once (no HTTP)",
    });
  },
};

export const longSessionRss = {
  id: "rss-1000-turns",
  title: "peak RSS, 1,000-turn session compacting all along",
  /** @param {Context} ctx */
  async run(ctx) {
    const { startScriptedServer, reply } = await loadTesting();
    const turns = ctx.quick ? [50, 100] : [100, 1_000];
    /** @type {Record<string, number>} */
    const byTurns = {};
    /** @type {number[]} */
    const peaks = [];
    let method = "";
    for (const count of turns) {
      let read = 0;
      const server = await startScriptedServer({
        contextWindow: WINDOW,
        respond: (/** @type {{ body: { messages: { content: unknown }[] } }} */ request) => {
          const last = JSON.stringify(request.body.messages.at(-1)?.content ?? "");
          if (last.includes("about to be compacted")) return reply().text(`Read ${read} files so far.`);
          read += 1;
          return read <= count
            ? reply().tool("Read", { file_path: `f${read % 10}.txt` })
            : reply().text("done");
        },
      });
      try {
        const cwd = tempWorkspace(
          Object.fromEntries(Array.from({ length: 10 }, (_, n) => [`f${n}.txt`, FILE])),
        );
        const args = ["-p", "Read the files", "--context-window", String(WINDOW), "--output-format", "json"];
        const {
          run,
          peakMB,
          method: how,
        } = await measurePeakRss([cliEntry(), ...args], {
          env: serverEnv(server),
          cwd,
        });
        if (run.code !== 0) throw new Error(`cairn exited ${run.code}: ${run.stderr}`);
        method = how;
        byTurns[String(count)] = Number(peakMB.toFixed(1));
        if (count === turns.at(-1)) peaks.push(peakMB);
      } finally {
        await server.close();
      }
    }
    return row({
      id: this.id,
      title: this.title,
      unit: "MB",
      values: peaks,
      target: { text: "≤ 200 MB, flat in the number of turns", kind: "max", value: 200 },
      details: { peakMBByTurns: byTurns, method },
      note: "40 KB read per turn against a 32,768-token window",
    });
  },
};
