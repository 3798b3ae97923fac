#!/usr/bin/env node
/**
 * kill -9 loop for session transcripts.
 *
 *   node scripts/kill-loop.mjs [--iterations 200] [--sessions 3] [--max-delay 300] [--json]
 *
 * Each iteration starts a writer process (test/sessions/kill-child.ts, bundled with esbuild) that
 * resumes one of a few sessions and appends engine events as fast as it can, kills it with SIGKILL
 * after a random delay, then loads the transcript in a fresh process and checks that it loads, that
 * the history is valid for the model API (every tool_use answered, roles alternate) and that no line
 * in the middle is reported corrupt. The next iteration resumes the same transcript, so every crash
 * is also followed by a resume. Exits 1 on the first failure.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

function option(name, fallback) {
  const index = process.argv.indexOf(`--${name}`);
  return index === -1 ? fallback : Number(process.argv[index + 1]);
}

const iterations = option("iterations", 200);
const sessions = option("sessions", 3);
const maxDelay = option("max-delay", 300);
const json = process.argv.includes("--json");

const work = mkdtempSync(path.join(os.tmpdir(), "cairn-kill-loop-"));
const child = path.join(work, "kill-child.mjs");
const cairnHome = path.join(work, "home");
const cwd = path.join(work, "project");

await build({
  entryPoints: [path.join(root, "test/sessions/kill-child.ts")],
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  outfile: child,
  logLevel: "silent",
  banner: {
    js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
  },
});

function run(args, { killAfterReady } = {}) {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [child, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    let timer;
    proc.stdout.on("data", (chunk) => {
      stdout += chunk;
      if (killAfterReady !== undefined && !timer && stdout.includes("ready\n"))
        timer = setTimeout(() => proc.kill("SIGKILL"), killAfterReady);
    });
    proc.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    proc.on("error", reject);
    proc.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

const results = [];
let failure;
try {
  for (let i = 0; i < iterations && !failure; i += 1) {
    const sessionId = `kill-session-${i % sessions}`;
    const delay = Math.floor(Math.random() * maxDelay);
    const writer = await run(["write", cairnHome, cwd, sessionId], { killAfterReady: delay });
    if (writer.signal !== "SIGKILL") {
      failure = `iteration ${i}: the writer was not killed (code ${writer.code}): ${writer.stderr}`;
      break;
    }
    const check = await run(["check", cairnHome, cwd, sessionId]);
    if (check.code !== 0) {
      failure = `iteration ${i}: ${sessionId} does not load: ${check.stderr}`;
      break;
    }
    const loaded = JSON.parse(check.stdout);
    const bad = loaded.warnings.filter((w) => w.kind === "corrupt" || w.kind === "unknown");
    if (loaded.problems.length > 0 || bad.length > 0)
      failure = `iteration ${i}: ${sessionId}: ${JSON.stringify({ problems: loaded.problems, warnings: bad })}`;
    results.push({
      iteration: i,
      sessionId,
      delay,
      messages: loaded.messages,
      runs: loaded.runs,
      warnings: loaded.warnings.map((w) => w.kind),
    });
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

const summary = {
  iterations: results.length,
  kills: results.length,
  tornLines: results.filter((r) => r.warnings.includes("torn")).length,
  repairs: results.filter((r) => r.warnings.includes("repaired")).length,
  historyRepairs: results.filter((r) => r.warnings.includes("history")).length,
  maxMessages: Math.max(0, ...results.map((r) => r.messages)),
  failure: failure ?? null,
};
if (json) process.stdout.write(`${JSON.stringify(summary)}\n`);
else {
  process.stdout.write(
    `${summary.kills} kills, ${summary.tornLines} torn last lines, ${summary.repairs} repaired on resume, ` +
      `${summary.historyRepairs} histories with unanswered tool calls closed, up to ${summary.maxMessages} messages\n`,
  );
  process.stdout.write(failure ? `FAILED: ${failure}\n` : `${summary.kills} passed, 0 failed\n`);
}
process.exit(failure ? 1 : 0);
