// Whole-process scenarios: the CLI from spawn to exit against the scripted model server.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  cleanEnv,
  cliEntry,
  loadTesting,
  pairedWithBaseline,
  resultOf,
  row,
  runCli,
  serverEnv,
  tempWorkspace,
} from "../lib/harness.mjs";
import { measurePeakRss } from "../lib/processes.mjs";
import { median } from "../lib/stats.mjs";

/** @typedef {import("../run.mjs").Context} Context */

export const version = {
  id: "version",
  title: "cairn --version",
  /** @param {Context} ctx */
  async run(ctx) {
    const paired = await pairedWithBaseline(ctx, () => runCli(["--version"]));
    return row({
      id: this.id,
      title: this.title,
      unit: "ms",
      values: paired.times,
      base: paired.base,
      target: { text: "own ≤ 10 ms", kind: "overhead-max", value: 10 },
    });
  },
};

export const oneLine = {
  id: "one-line",
  title: "one-line answer (-p, stream-json, no tools)",
  /** @param {Context} ctx */
  async run(ctx) {
    const { startScriptedServer, reply } = await loadTesting();
    const server = await startScriptedServer({ steps: [] });
    try {
      const cwd = tempWorkspace();
      const env = serverEnv(server);
      const once = async () => {
        server.append(reply().text("Hello! The answer is 42."));
        const run = await runCli(["-p", "What is the answer?", "--output-format", "stream-json"], {
          env,
          cwd,
        });
        if (resultOf(run.stdout).result !== "Hello! The answer is 42.") throw new Error("wrong answer");
        return run;
      };
      const paired = await pairedWithBaseline(ctx, once);
      return row({
        id: this.id,
        title: this.title,
        unit: "ms",
        values: paired.times,
        base: paired.base,
        target: { text: "own ≤ 40 ms", kind: "overhead-max", value: 40 },
      });
    } finally {
      await server.close();
    }
  },
};

const NOTES = `${"Lighthouse watches a folder and prints one line per change.\n".repeat(40)}`;
const SUMMARY = "Lighthouse: a folder watcher that prints one line per change.\n";

/** The three model turns of the read-then-write task. @param {typeof import("../../dist/testing/index.js").reply} reply */
function threeTurnSteps(reply) {
  return [
    reply().text("I'll read notes.txt first.").tool("Read", { file_path: "notes.txt" }),
    reply().text("Now I'll write the summary.").tool("Write", { file_path: "summary.txt", content: SUMMARY }),
    reply().text("Done: summary.txt holds a one-line summary of notes.txt."),
  ];
}

/** One run of the three-turn task in a fresh workspace; checks the file was really written. */
async function threeTurnOnce(
  /** @type {import("../../dist/testing/index.js").ScriptedServer} */ server,
  /** @type {typeof import("../../dist/testing/index.js").reply} */ reply,
  /** @type {(args: string[], opts: { env: NodeJS.ProcessEnv, cwd: string }) => Promise<{ ms: number, stdout: string }>} */ exec,
) {
  const cwd = tempWorkspace({ "notes.txt": NOTES });
  server.append(...threeTurnSteps(reply));
  const run = await exec(["-p", "Summarise notes.txt into summary.txt", "--output-format", "stream-json"], {
    env: serverEnv(server),
    cwd,
  });
  const result = resultOf(run.stdout);
  if (result.num_turns !== 3) throw new Error(`expected 3 turns, got ${result.num_turns}`);
  const summary = join(cwd, "summary.txt");
  if (!existsSync(summary) || readFileSync(summary, "utf8") !== SUMMARY)
    throw new Error("summary.txt not written");
  return run;
}

export const threeTurn = {
  id: "three-turn",
  title: "three-turn read-then-write task",
  /** @param {Context} ctx */
  async run(ctx) {
    const { startScriptedServer, reply } = await loadTesting();
    const server = await startScriptedServer({ steps: [] });
    try {
      const paired = await pairedWithBaseline(ctx, () => threeTurnOnce(server, reply, runCli));
      return row({
        id: this.id,
        title: this.title,
        unit: "ms",
        values: paired.times,
        base: paired.base,
        target: { text: "own ≤ 60 ms", kind: "overhead-max", value: 60 },
      });
    } finally {
      await server.close();
    }
  },
};

export const peakRss = {
  id: "rss-three-turn",
  title: "peak RSS, three-turn task",
  /** @param {Context} ctx */
  async run(ctx) {
    const { startScriptedServer, reply } = await loadTesting();
    const server = await startScriptedServer({ steps: [] });
    try {
      /** @type {number[]} */
      const peaks = [];
      /** @type {number[]} */
      const nodePeaks = [];
      let method = "";
      const exec = async (
        /** @type {string[]} */ args,
        /** @type {{ env: NodeJS.ProcessEnv, cwd: string }} */ opts,
      ) => {
        const { run, peakMB, method: how } = await measurePeakRss([cliEntry(), ...args], opts);
        method = how;
        if (run.code !== 0) throw new Error(`cairn exited ${run.code}: ${run.stderr}`);
        peaks.push(peakMB);
        return run;
      };
      for (let i = 0; i < ctx.warmup + ctx.runs; i++) {
        await threeTurnOnce(server, reply, exec);
        nodePeaks.push((await measurePeakRss(["-e", "0"], { env: cleanEnv() })).peakMB);
      }
      const counted = peaks.slice(ctx.warmup);
      return row({
        id: this.id,
        title: this.title,
        unit: "MB",
        values: counted,
        target: { text: "≤ 60 MB", kind: "max", value: 60 },
        details: { nodeBaselinePeakMB: Number(median(nodePeaks.slice(ctx.warmup)).toFixed(1)), method },
      });
    } finally {
      await server.close();
    }
  },
};
