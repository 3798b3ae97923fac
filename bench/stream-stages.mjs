// Where a streamed text delta's time goes, layer by layer (a diagnostic; not part of the suite):
//
//   npm run build && node bench/stream-stages.mjs [rounds]
//
// 20,000 deltas from the scripted model server (in a child process, so its work is not counted)
// are consumed in this process by ever more of cairn's pipeline: the official client's own event
// stream (for reference), the provider's batches, the idle timeout, callModel, the agent loop, and
// the stream-json projection as the CLI runs it; last, the per-event stream the SDK reads. Each line
// is the CPU time of this process per delta (median of the rounds; and of the first run, in a
// process that has not run that code yet): the difference between two lines is what a layer costs. It imports tsc's unbundled modules from dist/, so it follows the
// source layout; adjust the imports when modules move.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { pathToFileURL } from "node:url";
import { distFile } from "./lib/harness.mjs";
import { median } from "./lib/stats.mjs";

const rounds = Number(process.argv[2] ?? 7);
const DELTAS = 20_000;
const mod = (/** @type {string} */ path) => import(pathToFileURL(distFile(path)).href);

const serverSource = `
  const { startScriptedServer, reply } = await import(${JSON.stringify(pathToFileURL(distFile("testing/index.js")).href)});
  const text = "the quick brown fox jumps over a lazy dog ".repeat(${DELTAS}).slice(0, ${DELTAS * 16});
  const server = await startScriptedServer({ steps: [], chunkSize: 16 });
  for (let i = 0; i < 1000; i++) server.append(reply().text(text));
  process.stdout.write(server.url + "\\n");
  process.stdin.on("end", () => server.close().then(() => process.exit(0)));
  process.stdin.resume();
`;
const server = spawn(process.execPath, ["--input-type=module", "-e", serverSource], {
  stdio: ["pipe", "pipe", "inherit"],
});
const [chunk] = await once(server.stdout, "data");
const url = String(chunk).trim();

try {
  const { default: Anthropic } = await import("@anthropic-ai/sdk");
  const { AnthropicProvider } = await mod("providers/anthropic.js");
  const { batchesOf } = await mod("engine/event-batches.js");
  const { callModel } = await mod("engine/model-call.js");
  const { DEFAULT_RETRY_POLICY, withIdleTimeout } = await mod("engine/retry.js");
  const { runAgentLoop, runAgentLoopBatches } = await mod("engine/loop.js");
  const { projectionFor } = await mod("cli/formats/select.js");

  const provider = new AnthropicProvider({
    model: "m",
    displayName: "m",
    apiKey: "bench-key",
    apiKeySource: "env",
    baseURL: url,
    maxRetries: 0,
  });
  const request = {
    model: "m",
    system: "s",
    messages: [{ role: "user", content: "hi" }],
    tools: [],
    maxTokens: 100,
  };
  const signal = new AbortController().signal;
  const loopOptions = () => ({
    sessionId: "s",
    cwd: process.cwd(),
    provider,
    model: "m",
    providerModel: "m",
    system: "s",
    tools: [],
    history: [],
    prompt: "hi",
    signal,
  });
  const drain = async (/** @type {AsyncIterable<unknown>} */ events) => {
    for await (const _ of events);
  };

  /** @type {[string, () => Promise<void>][]} */
  const stages = [
    [
      "official client's Stream, events iterated",
      async () => {
        const client = new Anthropic({ apiKey: "bench-key", baseURL: url, maxRetries: 0 });
        const messages = [{ role: /** @type {const} */ ("user"), content: "hi" }];
        const { data } = await client.messages
          .create({ model: "m", max_tokens: 10, stream: true, messages })
          .withResponse();
        await drain(data);
      },
    ],
    ["provider, one batch per chunk", async () => drain(batchesOf(await provider.stream(request, signal)))],
    [
      "provider, one event at a time (events)",
      async () => drain((await provider.stream(request, signal)).events),
    ],
    [
      "+ idle timeout (withIdleTimeout)",
      async () =>
        drain(withIdleTimeout(batchesOf(await provider.stream(request, signal)), 120_000, () => {})),
    ],
    [
      "+ callModel (assembler, dedupe, events)",
      () => drain(callModel(provider, request, 1, signal, DEFAULT_RETRY_POLICY)),
    ],
    ["+ agent loop (runAgentLoopBatches)", () => drain(runAgentLoopBatches(loopOptions()))],
    [
      "+ stream-json partial projection (as the CLI)",
      async () => {
        const projection = projectionFor("stream-json", true, []);
        for await (const batch of runAgentLoopBatches(loopOptions())) {
          let output = "";
          for (const event of batch) output += projection.project(event);
          if (output.length === 0) continue;
        }
      },
    ],
    ["agent loop, one event at a time (runAgentLoop, the SDK's)", () => drain(runAgentLoop(loopOptions()))],
  ];
  process.stdout.write(`${"".padEnd(58)} warm µs/delta   first run\n`);
  for (const [name, run] of stages) {
    const first = process.cpuUsage();
    await run(); // warm-up, reported as the first run
    const firstUsed = process.cpuUsage(first);
    /** @type {number[]} */
    const cpu = [];
    for (let i = 0; i < rounds; i++) {
      const before = process.cpuUsage();
      await run();
      const used = process.cpuUsage(before);
      cpu.push((used.user + used.system) / 1000);
    }
    const perDelta = (median(cpu) * 1000) / DELTAS;
    const firstPerDelta = (firstUsed.user + firstUsed.system) / DELTAS;
    process.stdout.write(
      `${name.padEnd(58)} ${perDelta.toFixed(2).padStart(6)} (${Math.round(1e6 / perDelta)
        .toLocaleString("en")
        .padStart(9)}/s)  ${firstPerDelta.toFixed(2).padStart(6)}\n`,
    );
  }
} finally {
  server.stdin.end();
}
