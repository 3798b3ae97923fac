// Resuming a session of 10,000 messages (and 1,000 / 5,000, to show the growth is linear).
//
// Ready for the sessions work (issue 6): it switches itself on when `cairn --help` lists `--resume`.
// It makes a real one-turn session with the CLI under a temporary CAIRN_HOME, then grows that
// transcript to N messages by repeating its message records (fresh ids per copy), and checks that
// the resumed run really sent N messages to the model before it trusts a figure. Resume cost =
// median(resumed run) − median(the same run without --resume), paired in the same loop.
import { copyFileSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cleanEnv, loadTesting, row, runCli, tempWorkspace, unavailable } from "../lib/harness.mjs";
import { median, round2 } from "../lib/stats.mjs";

/** @typedef {import("../run.mjs").Context} Context */

const ID = "session-resume-10k";
const TITLE = "resume a session of 10,000 messages";
const TARGET = /** @type {const} */ ({ text: "≤ 200 ms, linear", kind: "max", value: 200 });
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

/** Every *.jsonl file under `dir`, newest first. @param {string} dir */
function transcripts(dir) {
  /** @type {string[]} */
  const found = [];
  const walk = (/** @type {string} */ d) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const path = join(d, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".jsonl")) found.push(path);
    }
  };
  walk(dir);
  return found.sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
}

/**
 * Grows a transcript to about `messages` message records: the header lines are kept, the records
 * that carry the conversation's messages are repeated with every id other than the session's made
 * fresh per copy. @returns {number} message records written
 */
function growTranscript(
  /** @type {string} */ file,
  /** @type {string} */ sessionId,
  /** @type {number} */ messages,
) {
  const lines = readFileSync(file, "utf8").split("\n").filter(Boolean);
  const isMessage = (/** @type {string} */ line) => /"role":"(user|assistant)"/.test(line);
  const head = lines.filter((line) => !isMessage(line));
  const body = lines.filter(isMessage);
  if (body.length === 0) throw new Error(`no message records recognised in ${file}`);
  const out = [...head];
  for (let copy = 0; out.length - head.length < messages; copy++) {
    for (const line of body) {
      out.push(
        line.replace(UUID, (id) =>
          id === sessionId ? id : `${id.slice(0, 24)}${copy.toString(16).padStart(12, "0")}`,
        ),
      );
    }
  }
  writeFileSync(file, `${out.join("\n")}\n`);
  return out.length - head.length;
}

export const sessionResume = {
  id: ID,
  title: TITLE,
  /** @param {Context} ctx */
  async run(ctx) {
    const help = await runCli(["--help"]);
    if (!help.stdout.includes("--resume")) {
      return unavailable(ID, TITLE, "sessions are not built yet (`cairn --help` lists no --resume)", TARGET);
    }
    const { startScriptedServer, reply } = await loadTesting();
    const server = await startScriptedServer({ steps: [] });
    const home = tempWorkspace();
    const cwd = tempWorkspace();
    const env = cleanEnv({
      ANTHROPIC_API_KEY: "bench-key",
      ANTHROPIC_BASE_URL: server.url,
      CAIRN_HOME: home,
    });
    const sizes = ctx.quick ? [200] : [1_000, 5_000, 10_000];
    try {
      server.append(reply().text("Seed answer."));
      const seed = await runCli(["-p", "Seed question", "--output-format", "json"], { env, cwd });
      const sessionId = String(JSON.parse(seed.stdout).session_id);
      const file = transcripts(home).find((path) => readFileSync(path, "utf8").includes(sessionId));
      if (!file) throw new Error(`no transcript for session ${sessionId} under CAIRN_HOME`);
      const pristine = `${file}.bench-seed`;
      copyFileSync(file, pristine);

      /** @type {Record<string, { resumeMs: number, freshMs: number, costMs: number }>} */
      const bySize = {};
      /** @type {number[]} */
      let costs10k = [];
      for (const size of sizes) {
        copyFileSync(pristine, file);
        const written = growTranscript(file, sessionId, size);
        const grown = `${file}.bench-${size}`;
        copyFileSync(file, grown);
        /** @type {number[]} */
        const resumed = [];
        /** @type {number[]} */
        const fresh = [];
        for (let i = 0; i < ctx.warmup + ctx.runs; i++) {
          copyFileSync(grown, file);
          server.append(reply().text("Resumed answer."));
          const r = await runCli(["-p", "Go on", "--resume", sessionId, "--output-format", "json"], {
            env,
            cwd,
          });
          const sent =
            /** @type {{ messages?: unknown[] }} */ (server.requests.at(-1)?.body)?.messages?.length ?? 0;
          if (sent < written)
            throw new Error(`resumed run sent ${sent} messages, the transcript holds ${written}`);
          server.append(reply().text("Fresh answer."));
          const f = await runCli(["-p", "Go on", "--output-format", "json"], { env, cwd });
          if (i < ctx.warmup) continue;
          resumed.push(r.ms);
          fresh.push(f.ms);
        }
        const cost = median(resumed) - median(fresh);
        bySize[String(written)] = {
          resumeMs: round2(median(resumed)) ?? 0,
          freshMs: round2(median(fresh)) ?? 0,
          costMs: round2(cost) ?? 0,
        };
        costs10k = resumed.map((ms, i) => ms - fresh[i]);
      }
      return row({
        id: ID,
        title: sizes.at(-1) === 10_000 ? TITLE : `resume a session of ${sizes.at(-1)} messages`,
        unit: "ms",
        values: costs10k,
        target: TARGET,
        details: { bySize },
        note: "resume cost = resumed run − the same run without --resume (paired)",
      });
    } finally {
      await server.close();
    }
  },
};
