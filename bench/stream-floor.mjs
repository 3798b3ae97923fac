// How fast can any Node 20 process on this machine stream 20,000 deltas to stdout? (A diagnostic;
// not part of the suite.)
//
//   npm run build && node bench/stream-floor.mjs [rounds]
//
// Times, as the stream-20k scenario does (the server's first byte → the `result` line read from
// stdout), fresh processes that do ever more of the work cairn must do, alternating round after
// round, and then cairn itself:
//
//   read     fetch() the scripted stream and read its body, nothing else
//   sse      + decode Server-Sent Events (cairn's decoder, src/providers/sse.ts)
//   parse    + JSON.parse every event
//   write    + one stdout line per delta built around JSON.stringify, written per network chunk
//   cairn    the CLI: -p … --output-format stream-json --stream-partial-output
//
// `write` is the floor for any design that must parse and re-serialise each delta: what cairn's
// own layers (engine, retries, transcript, projection) add is the gap between it and `cairn`.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { cleanEnv, distFile, loadTesting } from "./lib/harness.mjs";
import { recordRequests } from "./lib/server-probe.mjs";
import { median } from "./lib/stats.mjs";

const rounds = Number(process.argv[2] ?? 9);
const DELTAS = 20_000;
const WORDS = "the quick brown fox jumps over a lazy dog while cairn streams every token ";
const TEXT = WORDS.repeat(Math.ceil((DELTAS * 16) / WORDS.length)).slice(0, DELTAS * 16);

/** The floor process: fetch, then `MODE` of the work per event. */
const floorSource = `
  const mode = process.env.FLOOR_MODE;
  const { SseDecoder } = await import(${JSON.stringify(pathToFileURL(distFile("providers/sse.js")).href)});
  const response = await fetch(process.env.ANTHROPIC_BASE_URL + "/v1/messages", {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": "k", "anthropic-version": "2023-06-01" },
    body: JSON.stringify({ model: "m", max_tokens: 1, stream: true, messages: [{ role: "user", content: "hi" }] }),
  });
  const HEAD = '{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":';
  let output = "";
  const decoder = new SseDecoder((_name, data) => {
    if (mode === "sse") return;
    const event = JSON.parse(data);
    if (mode === "parse" || event.type !== "content_block_delta") return;
    output += HEAD + JSON.stringify(event.delta.text) + '}]},"session_id":"s","timestamp_ms":1}\\n';
  });
  const reader = response.body.getReader();
  while (true) {
    const { done, value } = await reader.read();
    if (done) break;
    if (mode !== "read") decoder.push(value);
    if (output !== "") process.stdout.write(output);
    output = "";
  }
  process.stdout.write('{"type":"result"}\\n');
`;

const variants = [
  ...["read", "sse", "parse", "write"].map((mode) => ({
    name: mode,
    args: ["--input-type=module", "-e", floorSource],
    env: { FLOOR_MODE: mode },
  })),
  {
    name: "cairn",
    args: [
      distFile("cli/main.js"),
      "-p",
      "Stream",
      "--output-format",
      "stream-json",
      "--stream-partial-output",
    ],
    env: {},
  },
];

const { startScriptedServer, reply } = await loadTesting();
const server = await startScriptedServer({ steps: [], chunkSize: 16 });
const cwd = mkdtempSync(join(tmpdir(), "cairn-bench-floor-"));

/** One run: deltas per second from the server's first byte to the result line on stdout. */
function once(/** @type {(typeof variants)[number]} */ variant) {
  return new Promise((resolve, reject) => {
    server.append(reply().text(TEXT));
    const probe = recordRequests();
    let resultAt = Number.NaN;
    let tail = "";
    const child = spawn(process.execPath, variant.args, {
      cwd,
      env: cleanEnv({ ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: server.url, ...variant.env }),
      stdio: ["ignore", "pipe", "inherit"],
    });
    child.stdout.on("data", (/** @type {Buffer} */ chunk) => {
      const at = performance.now();
      const seen = tail + chunk.toString("latin1");
      if (Number.isNaN(resultAt) && seen.includes('{"type":"result"')) resultAt = at;
      tail = seen.slice(-32);
    });
    child.on("close", (code) => {
      probe.stop();
      if (code !== 0 || Number.isNaN(resultAt)) return reject(new Error(`${variant.name} exited ${code}`));
      resolve(DELTAS / ((resultAt - (probe.records[0]?.firstByteAt ?? Number.NaN)) / 1000));
    });
  });
}

try {
  /** @type {Map<string, number[]>} */
  const rates = new Map(variants.map((variant) => [variant.name, []]));
  for (const variant of variants) await once(variant); // warm-up
  for (let round = 0; round < rounds; round++) {
    for (const variant of variants) rates.get(variant.name)?.push(await once(variant));
  }
  for (const [name, values] of rates) {
    const sorted = [...values].sort((a, b) => a - b);
    process.stdout.write(
      `${name.padEnd(6)} ${Math.round(median(values)).toLocaleString("en").padStart(9)} deltas/s  (min ${Math.round(sorted[0]).toLocaleString("en")}, max ${Math.round(sorted.at(-1) ?? 0).toLocaleString("en")})\n`,
    );
  }
} finally {
  await server.close();
  rmSync(cwd, { recursive: true, force: true });
}
