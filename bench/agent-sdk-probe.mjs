// Runs in its own process for the agent-SDK scenario: time from query() to its first message through
// the official `@anthropic-ai/claude-agent-sdk` (which spawns cairn's CLI and speaks the agent-SDK
// protocol to it) and through cairn's own in-process query(), alternated in one loop against one
// scripted server. Prints one JSON object on stdout.
//
//   node bench/agent-sdk-probe.mjs <distDir> <runs>
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const distDir = resolve(process.argv[2] ?? fileURLToPath(new URL("../dist", import.meta.url)));
const DIST = pathToFileURL(`${distDir}/`);
const runs = Number(process.argv[3] ?? 7);
const print = (/** @type {Record<string, unknown>} */ value) =>
  process.stdout.write(`${JSON.stringify(value)}\n`);

/** @type {any} */
let official;
try {
  official = await import("@anthropic-ai/claude-agent-sdk");
} catch (error) {
  print({ status: "unavailable", reason: `@anthropic-ai/claude-agent-sdk not installed (${error})` });
  process.exit(0);
}
const { query } = await import(new URL("index.js", DIST).href);
const { startScriptedServer, reply } = await import(new URL("testing/index.js", DIST).href);

const cwd = mkdtempSync(join(tmpdir(), "cairn-bench-agent-sdk-"));
const home = mkdtempSync(join(tmpdir(), "cairn-bench-agent-sdk-home-"));
const server = await startScriptedServer({ steps: [] });
const env = {
  PATH: process.env.PATH ?? "",
  CAIRN_HOME: home,
  ANTHROPIC_BASE_URL: server.url,
  ANTHROPIC_API_KEY: "bench-key",
};

/** Milliseconds from calling `start` to its first message; the run is then drained. */
async function firstMessage(/** @type {() => AsyncIterable<Record<string, unknown>>} */ start) {
  server.append(reply().text("Hi."));
  const began = performance.now();
  const iterator = start()[Symbol.asyncIterator]();
  const first = await iterator.next();
  const ms = performance.now() - began;
  // The official SDK frames each turn with session_state_changed: look for the result itself.
  let result = first.value?.type === "result" ? first.value : undefined;
  for (let next = await iterator.next(); !next.done; next = await iterator.next())
    if (next.value?.type === "result") result = next.value;
  if (result?.result !== "Hi.") throw new Error(`ended with ${JSON.stringify(result).slice(0, 200)}`);
  return { ms, type: `${first.value?.type}/${first.value?.subtype ?? ""}` };
}

try {
  const viaOfficial = [];
  const inProcess = [];
  const firstTypes = new Set();
  for (let i = 0; i <= runs; i++) {
    const a = await firstMessage(() =>
      official.query({
        prompt: "Say hi",
        options: {
          pathToClaudeCodeExecutable: join(distDir, "cli/main.js"),
          executable: "node",
          cwd,
          env,
          persistSession: false,
          stderr: (/** @type {string} */ line) => process.stderr.write(`cairn: ${line}`),
        },
      }),
    );
    const b = await firstMessage(() =>
      query({ prompt: "Say hi", options: { cwd, env, persistSession: false } }),
    );
    firstTypes.add(a.type);
    // The first pair warms both paths up (module loading); it is not counted.
    if (i === 0) continue;
    viaOfficial.push(a.ms);
    inProcess.push(b.ms);
  }
  print({ status: "ok", viaOfficial, inProcess, firstTypes: [...firstTypes] });
} finally {
  await server.close();
  rmSync(cwd, { recursive: true, force: true });
  rmSync(home, { recursive: true, force: true });
}
