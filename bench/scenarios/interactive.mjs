// The interactive mode on a pseudo-terminal (docs/interactive.md, docs/performance.md): its first
// frame beside print mode's start-up, and a long scripted session (1,000 messages, resizes) for
// keystroke echo, bytes and CPU per text delta, screen clears and memory growth.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import {
  cliEntry,
  loadTesting,
  row,
  runCli,
  serverEnv,
  tempWorkspace,
  unavailable,
} from "../lib/harness.mjs";
import { median } from "../lib/stats.mjs";

/** @typedef {import("../run.mjs").Context} Context */

const require = createRequire(import.meta.url);
const FOOTER = "(shift+tab)";
const END_FRAME = "\x1b[?2026l";

/** node-pty, or why there is no pseudo-terminal here. */
function loadPty() {
  try {
    return /** @type {typeof import("@lydell/node-pty")} */ (require("@lydell/node-pty"));
  } catch (error) {
    return { reason: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * `cairn` on a pseudo-terminal: every byte it writes, and waits on them.
 * @param {typeof import("@lydell/node-pty")} pty
 * @param {NodeJS.ProcessEnv} env
 * @param {string} cwd
 */
function openCairn(pty, env, cwd, cols = 100, rows = 30, terminal = "xterm-256color") {
  const started = performance.now();
  const term = pty.spawn(process.execPath, [cliEntry()], {
    name: terminal,
    cols,
    rows,
    cwd,
    env: /** @type {Record<string, string>} */ ({ ...env, TERM: terminal }),
  });
  let output = "";
  let bytes = 0;
  /** @type {{ from: number, needle: string, resolve: (at: number) => void }[]} */
  let waits = [];
  term.onData((data) => {
    output += data;
    bytes += Buffer.byteLength(data);
    const now = performance.now();
    waits = waits.filter((wait) => {
      if (output.indexOf(wait.needle, wait.from) === -1) return true;
      wait.resolve(now);
      return false;
    });
  });
  /** Resolves (with the time it came) once `needle` is written after `from` (an output length). */
  const waitFor = (/** @type {string} */ needle, from = output.length) =>
    new Promise((resolve, reject) => {
      if (output.indexOf(needle, from) !== -1) return resolve(performance.now());
      const timer = setTimeout(
        () => reject(new Error(`bench: no ${JSON.stringify(needle)} from cairn`)),
        60_000,
      );
      waits.push({
        from,
        needle,
        resolve: (at) => {
          clearTimeout(timer);
          resolve(at);
        },
      });
    });
  return {
    term,
    started,
    waitFor,
    get output() {
      return output;
    },
    get bytes() {
      return bytes;
    },
    close() {
      try {
        term.kill("SIGKILL");
      } catch {}
    },
  };
}

/** Resident memory of a process, in MB (Linux). @param {number} pid */
function rssMb(pid) {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return match ? Number(match[1]) / 1024 : Number.NaN;
}

/** CPU time a process used so far, in ms (Linux; clock ticks of 10 ms). @param {number} pid */
function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

export const interactiveFirstFrame = {
  id: "interactive-first-frame",
  title: "interactive: first frame of `cairn` on a terminal (print mode's one-line answer beside it)",
  /** @param {Context} ctx */
  async run(ctx) {
    const pty = loadPty();
    if ("reason" in pty)
      return unavailable(this.id, this.title, `no pseudo-terminal: ${pty.reason}`, undefined);
    const { startScriptedServer, reply } = await loadTesting();
    const server = await startScriptedServer({ steps: [] });
    try {
      const cwd = tempWorkspace();
      const env = serverEnv(server);
      const frame = async () => {
        const cairn = openCairn(pty, env, cwd);
        try {
          const at = await cairn.waitFor(FOOTER, 0);
          // Left as a user leaves (Ctrl+D): the code cache is kept as after any run.
          const exited = new Promise((resolve) => cairn.term.onExit(resolve));
          cairn.term.write("\x04");
          await exited;
          return at - cairn.started;
        } finally {
          cairn.close();
        }
      };
      const print = async () => {
        server.append(reply().text("Hello! The answer is 42."));
        return (await runCli(["-p", "What is the answer?"], { env, cwd })).ms;
      };
      for (let i = 0; i < ctx.warmup; i++) {
        await frame();
        await print();
      }
      /** @type {number[]} */
      const frames = [];
      /** @type {number[]} */
      const prints = [];
      for (let i = 0; i < ctx.runs; i++) {
        frames.push(await frame());
        prints.push(await print());
      }
      const printMedian = median(prints);
      const result = row({
        id: this.id,
        title: this.title,
        unit: "ms",
        values: frames,
        target: { text: "≤ print mode's one-line answer + 10 ms", kind: "max", value: printMedian + 10 },
        details: { printModeMedianMs: Math.round(printMedian * 10) / 10, printModeTimes: prints },
        note: "spawn to the first frame (the footer drawn) on a pseudo-terminal; print mode: spawn to exit of `cairn -p` with a one-line answer, in the same run",
      });
      return result;
    } finally {
      await server.close();
    }
  },
};

/**
 * `cairn` on a pseudo-terminal (`terminal` is its TERM) against a scripted server that answers what
 * is appended to it; or why there is no pseudo-terminal here.
 * @param {string} terminal
 */
async function openSession(terminal) {
  const pty = loadPty();
  if ("reason" in pty) return { reason: `no pseudo-terminal: ${pty.reason}` };
  const { startScriptedServer, reply } = await loadTesting();
  const server = await startScriptedServer({ steps: [] });
  const cairn = openCairn(pty, serverEnv(server), tempWorkspace(), 100, 30, terminal);
  return { server, reply, cairn };
}

/** The answer to prompt `n` of a long session: a short markdown paragraph, then `Done n.` */
const answer = (/** @type {number} */ n) =>
  `Answer **${n}**: the build is *fine*, see \`npm test\`.\n\nDone ${n}.`;

/** Messages in the session before each measurement (a turn is two: the prompt and the answer). */
const MESSAGES = 1000;
const DELTAS = 400;
const KEYSTROKES = 60;

export const interactiveLongSession = {
  id: "interactive-long-session",
  title: "interactive: a long scripted session (1,000 messages, resizes)",
  async run() {
    const session = await openSession("xterm-256color");
    if ("reason" in session) return unavailable(this.id, this.title, session.reason, undefined);
    const { server, reply, cairn } = session;
    const pid = cairn.term.pid;
    try {
      await cairn.waitFor(FOOTER, 0);
      /** One turn: a prompt typed, its answer (a short markdown paragraph) on the screen. */
      const turn = async (/** @type {number} */ n) => {
        server.append(reply().text(answer(n)));
        const from = cairn.output.length;
        cairn.term.write(`Prompt ${n}\r`);
        await cairn.waitFor(`Done ${n}.`, from);
      };
      let rss50 = Number.NaN;
      /** @type {{ bytes: number, cpu: number } | undefined} */
      let perDelta;
      for (let n = 1; n <= MESSAGES / 2; n++) {
        await turn(n);
        if (n % 50 === 0) {
          // A width change (redraws the live region) and a height-only one (nothing).
          cairn.term.resize(n % 100 === 0 ? 100 : 80, 30);
          cairn.term.resize(n % 100 === 0 ? 100 : 80, n % 100 === 0 ? 30 : 40);
        }
        if (n === 25) rss50 = rssMb(pid);
        if (n === 250) {
          // 500 messages of history: a paced answer of DELTAS text deltas, each its own frame.
          // Paragraphs of about four rows, as models write them, a blank line between.
          const paragraph = `${"the streamed answer goes on in words of ordinary length ".repeat(7)}\n\n`;
          const text = paragraph.repeat(Math.ceil((DELTAS * 16) / paragraph.length)).slice(0, DELTAS * 16);
          server.append(reply().text(`${text}\n\nStreamed done.`).delayPerEvent(3));
          const from = cairn.output.length;
          const bytesBefore = cairn.bytes;
          const cpuBefore = cpuMs(pid);
          cairn.term.write("Stream now\r");
          await cairn.waitFor("Streamed done.", from);
          perDelta = { bytes: (cairn.bytes - bytesBefore) / DELTAS, cpu: (cpuMs(pid) - cpuBefore) / DELTAS };
        }
      }
      const rss1000 = rssMb(pid);
      // Keystroke → echo: a key typed, the frame that shows it written.
      /** @type {number[]} */
      const echoes = [];
      for (let i = 0; i < KEYSTROKES; i++) {
        const from = cairn.output.length;
        const sent = performance.now();
        cairn.term.write(i % 20 === 19 ? "\x15" : "x"); // Ctrl+U now and then: the input stays short
        echoes.push((await cairn.waitFor(END_FRAME, from)) - sent);
      }
      const output = cairn.output;
      const clears = output.split("\x1b[2J").length - 1 + output.split("\x1b[3J").length - 1;
      return [
        row({
          id: "interactive-keystroke-echo",
          title: "interactive: keystroke → echo, 1,000 messages of history",
          unit: "ms",
          values: echoes,
          target: { text: "median ≤ 16 ms", kind: "max", value: 16 },
          note: "from writing a key to the pseudo-terminal to the end of the frame that shows it",
        }),
        row({
          id: "interactive-bytes-per-delta",
          title: "interactive: bytes written per text delta, 500 messages of history",
          unit: "B",
          values: [perDelta?.bytes ?? Number.NaN],
          target: { text: "≤ 200 B", kind: "max", value: 200 },
        }),
        row({
          id: "interactive-cpu-per-delta",
          title: "interactive: CPU per text delta (the whole process), 500 messages of history",
          unit: "ms",
          values: [perDelta?.cpu ?? Number.NaN],
          target: { text: "≤ 1 ms", kind: "max", value: 1 },
          note: "user + system time of cairn's process over a paced answer, divided by its deltas (10 ms clock ticks)",
        }),
        row({
          id: "interactive-clears",
          title: "interactive: screen or scrollback clears (ESC[2J, ESC[3J) in the session, 20 resizes",
          unit: "count",
          values: [clears],
          target: { text: "0", kind: "max", value: 0 },
        }),
        row({
          id: "interactive-rss-growth",
          title: "interactive: RSS growth from message 50 to message 1,000",
          unit: "MB",
          values: [rss1000 - rss50],
          target: { text: "≤ 10 MB", kind: "max", value: 10 },
          details: { rssAt50Mb: Math.round(rss50), rssAt1000Mb: Math.round(rss1000) },
        }),
      ];
    } finally {
      cairn.close();
      await server.close();
    }
  },
};

export const interactiveLineModeSession = {
  id: "interactive-line-mode-rss-growth",
  title: "interactive, line mode (TERM=dumb): RSS growth from message 50 to message 1,000",
  async run() {
    const session = await openSession("dumb");
    if ("reason" in session) return unavailable(this.id, this.title, session.reason, undefined);
    const { server, reply, cairn } = session;
    const pid = cairn.term.pid;
    try {
      let rss50 = Number.NaN;
      for (let n = 1; n <= MESSAGES / 2; n++) {
        server.append(reply().text(answer(n)));
        const from = cairn.output.length;
        // The first prompt is read once the mode is up (line mode draws nothing to wait for).
        cairn.term.write(`Prompt ${n}\r`);
        await cairn.waitFor("Done.\r", from);
        if (n === 25) rss50 = rssMb(pid);
      }
      const rss1000 = rssMb(pid);
      return row({
        id: this.id,
        title: this.title,
        unit: "MB",
        values: [rss1000 - rss50],
        target: { text: "≤ 10 MB", kind: "max", value: 10 },
        details: { rssAt50Mb: Math.round(rss50), rssAt1000Mb: Math.round(rss1000) },
        note: "`--screen-reader` / TERM=dumb: 500 prompts typed, each answer's closing `Done.` line waited for",
      });
    } finally {
      cairn.close();
      await server.close();
    }
  },
};
