// Interactive modes side by side (`--peers`, never in CI): cairn, Claude Code, Codex and pi each run
// as a user runs them — on a pseudo-terminal, no arguments — against the same scripted model server,
// round after round in the same bench run, for the figures of issue 30: first frame (ready for
// input), bytes, CPU and screen clears per streamed text delta, keystroke → echo, and clears through
// three resizes. First-run dialogs (onboarding, theme, API-key approval, folder trust) are answered
// by pre-seeding each peer's own config files in a temporary HOME, never by typing into them.
// A figure a peer cannot give is a row `unavailable` with the reason (docs/performance.md).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cliEntry, loadTesting, row, serverEnv, tempWorkspace, unavailable } from "../lib/harness.mjs";
import { lengthenTranscript } from "../lib/seed-history.mjs";
import { median, round2 } from "../lib/stats.mjs";
import {
  countClears,
  endsOnAlternateScreen,
  loadPty,
  openTerminal,
  sleep,
  treeCpuMs,
  treeRssMb,
} from "../lib/terminal.mjs";
import {
  claudeCode,
  codex,
  ensurePeersInstalled,
  PEER_VERSIONS,
  PEERS_DIR,
  packageDir,
  packageJson,
  peerEnv,
} from "./peers.mjs";

/** @typedef {import("../run.mjs").Context} Context */
/** @typedef {{ url: string, requests: { path: string, body: unknown }[] }} Server */

/** Text deltas of the streamed answer (16 characters each, the scripted server's chunk), 3 ms apart. */
const DELTAS = 400;
const CHUNK = 16;
const KEYSTROKES = 30;
/** Messages of the seeded history the long session is resumed with (a turn is two). */
const HISTORY = 1000;
/** Words that end the answers, waited for on the screen: each its own, so a resumed history never holds the one awaited. */
const WARM_END = "WARMDONE";
const WARM_AGAIN = "WARMAGAIN";
const STREAM_END = "STREAMDONE";

/** The paced answer: paragraphs of about four rows, a blank line between (as in interactive.mjs). */
function streamedText() {
  const paragraph = `${"the streamed answer goes on in words of ordinary length ".repeat(7)}\n\n`;
  const body = paragraph.repeat(Math.ceil((DELTAS * CHUNK) / paragraph.length)).slice(0, DELTAS * CHUNK);
  return `${body}\n\n${STREAM_END}`;
}

/** The deltas the scripted server streams it in. */
const STREAM_DELTAS = Math.ceil(streamedText().length / CHUNK);

/**
 * The texts of the last user message of a request (Anthropic and Chat `messages`, Responses
 * `input`), each trimmed: a prompt typed by the user is one of them as it was typed, while a
 * side request (a title, a topic check) quotes it inside its own instructions.
 * @param {any} body @returns {string[]}
 */
export function userTexts(body) {
  const list = body?.messages ?? body?.input;
  if (!Array.isArray(list)) return typeof list === "string" ? [list.trim()] : [];
  const content = list.filter((message) => message?.role === "user").at(-1)?.content;
  if (typeof content === "string") return [content.trim()];
  if (!Array.isArray(content)) return [];
  return content.map((block) => (typeof block?.text === "string" ? block.text.trim() : ""));
}

/**
 * How an agent is started here.
 * @typedef {object} InteractiveAgent
 * @property {string} id
 * @property {string} name
 * @property {string} version
 * @property {string} ready a word on its screen once the prompt box is drawn and it takes input
 * @property {string[]} resume the arguments that open the workspace's last session
 * @property {string} how what was done to start it, for the docs
 * @property {(server: Server, home: string, cwd: string) => { launch: { command: string, args: string[], launcher: string }, env: NodeJS.ProcessEnv }} prepare
 */

/** @type {InteractiveAgent} */
const cairnAgent = {
  id: "cairn",
  name: "cairn",
  version: JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")).version,
  ready: "(shift+tab)",
  resume: ["--continue"],
  how: "the built CLI (`node dist/cli/bin.cjs`), ANTHROPIC_BASE_URL",
  prepare(server, home) {
    return {
      launch: { command: process.execPath, args: [cliEntry()], launcher: "node dist/cli/bin.cjs" },
      env: { ...serverEnv(server), CAIRN_HOME: join(home, ".cairn") },
    };
  },
};

/** @type {InteractiveAgent} */
const claudeCodeAgent = {
  id: "claude-code",
  name: "Claude Code",
  version: PEER_VERSIONS[claudeCode.pkg],
  // The footer's "(shift+tab to cycle)", drawn with the prompt box.
  ready: "shift+tab",
  resume: ["--continue"],
  how: "~/.claude.json seeded: hasCompletedOnboarding, theme, the key's last 20 characters in customApiKeyResponses.approved, the workspace's hasTrustDialogAccepted",
  prepare(server, home, cwd) {
    const env = peerEnv(home, claudeCode.setup(server, home));
    const key = String(env.ANTHROPIC_API_KEY);
    // Without these it shows the theme picker, then its onboarding calls api.anthropic.com and stops
    // at "Unable to connect to Anthropic services"; then the "use this API key?" and trust dialogs.
    writeFileSync(
      join(home, ".claude.json"),
      JSON.stringify({
        hasCompletedOnboarding: true,
        theme: "dark",
        customApiKeyResponses: { approved: [key.slice(-20)], rejected: [] },
        projects: { [cwd]: { hasTrustDialogAccepted: true, hasCompletedProjectOnboarding: true } },
      }),
    );
    return { launch: claudeCode.resolve(), env };
  },
};

/** @type {InteractiveAgent} */
const codexAgent = {
  id: "codex",
  name: "Codex",
  version: PEER_VERSIONS[codex.pkg],
  // The composer's prompt mark, drawn once the loading screen is replaced by the input box.
  ready: "›",
  resume: ["resume", "--last"],
  how: "$CODEX_HOME/config.toml as for `codex exec` (custom Responses provider, analytics and plugins off) plus check_for_update_on_startup = false; no dialog in a folder that is not a git repository",
  prepare(server, home) {
    const env = peerEnv(home, codex.setup(server, home));
    const config = join(String(env.CODEX_HOME), "config.toml");
    writeFileSync(config, `check_for_update_on_startup = false\n${readFileSync(config, "utf8")}`);
    return { launch: codex.resolve(), env };
  },
};

const PI = "@mariozechner/pi-coding-agent";

/** @type {InteractiveAgent} */
const piAgent = {
  id: "pi",
  name: "pi",
  version: PEER_VERSIONS[PI],
  // The footer names the model once the editor is drawn.
  ready: "bench-model",
  resume: ["--continue"],
  how: "~/.pi/agent/models.json: a provider `bench` (api anthropic-messages, baseUrl the server) with one model; settings.json makes it the default; PI_OFFLINE=1 (no update check or telemetry at start)",
  prepare(server, home) {
    const agentDir = join(home, ".pi", "agent");
    mkdirSync(agentDir, { recursive: true });
    writeFileSync(
      join(agentDir, "models.json"),
      JSON.stringify({
        providers: {
          bench: {
            baseUrl: server.url,
            api: "anthropic-messages",
            apiKey: "bench-key",
            models: [{ id: "bench-model", contextWindow: 200_000 }],
          },
        },
      }),
    );
    writeFileSync(
      join(agentDir, "settings.json"),
      JSON.stringify({
        defaultProvider: "bench",
        defaultModel: "bench-model",
        enableInstallTelemetry: false,
      }),
    );
    const bin = packageJson(PI)?.bin;
    const script = typeof bin === "string" ? bin : bin?.pi;
    if (typeof script !== "string") throw new Error(`${PI} has no \`pi\` bin`);
    return {
      launch: { command: process.execPath, args: [join(packageDir(PI), script)], launcher: `node ${script}` },
      env: peerEnv(home, { PI_OFFLINE: "1" }),
    };
  },
};

export const INTERACTIVE_AGENTS = [cairnAgent, claudeCodeAgent, codexAgent, piAgent].filter(
  // BENCH_AGENTS=cairn,codex narrows a run while working on the bench itself.
  (agent) => !process.env.BENCH_AGENTS || process.env.BENCH_AGENTS.split(",").includes(agent.id),
);

/** Peers that were looked at and cannot be pointed at the scripted server, with why. */
export const NOT_MEASURED = [
  {
    id: "gemini-cli",
    name: "Gemini CLI 0.61.0 (@google/gemini-cli)",
    reason:
      "it speaks only the Gemini API (GOOGLE_GEMINI_BASE_URL moves it to another host, still :streamGenerateContent), which the scripted server does not serve; it has no Anthropic or OpenAI-compatible provider",
  },
];

/**
 * One session of `agent`: start, a warm-up turn, a paced answer of DELTAS text deltas, KEYSTROKES
 * keys typed, three resizes.
 * @param {typeof import("@lydell/node-pty")} pty @param {InteractiveAgent} agent @param {Server} server
 * @param {{ home?: string, cwd?: string, resume?: boolean, seedOnly?: boolean }} [options] a HOME
 * and workspace of the caller's (kept); `resume` starts it on the workspace's last session;
 * `seedOnly` ends the session after its first turn
 */
export async function session(pty, agent, server, options = {}) {
  const home = options.home ?? mkdtempSync(join(PEERS_DIR, "home-"));
  const cwd = options.cwd ?? tempWorkspace();
  const { launch, env } = agent.prepare(server, home, cwd);
  const args = [...launch.args, ...(options.resume ? agent.resume : [])];
  const screen = openTerminal(pty, { command: launch.command, args }, { env, cwd, label: agent.name });
  const pid = screen.term.pid;
  try {
    const readyAt = await screen.waitFor(agent.ready);
    // The text first, the Enter once it shows: a key that arrives with text in one read is taken
    // for part of a paste by some input boxes.
    const submit = async (/** @type {string} */ text, beforeEnter = () => {}) => {
      screen.term.write(text);
      await screen.waitFor(text, 10_000);
      await sleep(100);
      beforeEnter();
      screen.term.write("\r");
    };
    await sleep(300);
    // A resumed session's history holds the first prompt and answer already: its warm-up is another.
    const [warmPrompt, warmEnd] = options.resume ? ["Warm up again", WARM_AGAIN] : ["Warm up", WARM_END];
    await submit(warmPrompt);
    await screen.waitFor(warmEnd);
    // Time for the agent to write its transcript.
    if (options.seedOnly) {
      await sleep(1500);
      return undefined;
    }
    await sleep(500);
    const requestsBefore = server.requests.length;
    let bytesBefore = 0;
    let cpuBefore = 0;
    let outputBefore = 0;
    // From the Enter that sends it: typing the prompt is not the answer's cost.
    await submit("Stream now", () => {
      bytesBefore = screen.bytes;
      cpuBefore = treeCpuMs(pid);
      outputBefore = screen.output.length;
    });
    await screen.waitFor(STREAM_END);
    const streamed = screen.output.slice(outputBefore);
    const perDelta = {
      bytes: (screen.bytes - bytesBefore) / STREAM_DELTAS,
      cpu: (treeCpuMs(pid) - cpuBefore) / STREAM_DELTAS,
      clears: countClears(streamed),
      requests: server.requests.length - requestsBefore,
    };
    await sleep(500);
    const rssMb = treeRssMb(pid);
    /** @type {number[]} */
    const echoes = [];
    for (let i = 0; i < KEYSTROKES; i++) {
      const echoed = screen.waitForOneMore("z");
      const sent = performance.now();
      screen.term.write("z");
      echoes.push((await echoed) - sent);
      await sleep(30);
    }
    const beforeResizes = screen.output.length;
    for (const [cols, rows] of [
      [80, 30],
      [100, 30],
      [100, 40],
    ]) {
      screen.resize(cols, rows);
      await sleep(400);
    }
    return {
      firstFrame: readyAt - screen.started,
      firstByte: screen.firstByteAt - screen.started,
      perDelta,
      echoes,
      rssMb,
      resizeClears: countClears(screen.output.slice(beforeResizes)),
      sessionClears: countClears(screen.output),
      alternateScreen: endsOnAlternateScreen(screen.output),
      launcher: launch.launcher,
    };
  } finally {
    screen.close();
    if (!options.home) rmSync(home, { recursive: true, force: true });
  }
}

/**
 * The same session on a long history: a one-turn session of the agent's own, its transcript
 * lengthened to HISTORY messages (bench/lib/seed-history.mjs), then resumed.
 * @param {typeof import("@lydell/node-pty")} pty @param {InteractiveAgent} agent @param {Server} server
 */
async function longSession(pty, agent, server) {
  const home = mkdtempSync(join(PEERS_DIR, "home-"));
  const cwd = tempWorkspace();
  try {
    await session(pty, agent, server, { home, cwd, seedOnly: true });
    lengthenTranscript(home, { prompt: "Warm up", answer: WARM_END, messages: HISTORY });
    const before = server.requests.length;
    const measured = /** @type {Measured} */ (await session(pty, agent, server, { home, cwd, resume: true }));
    // What the agent sent with the streamed prompt: the history must have come along.
    const sent = server.requests
      .slice(before)
      .map((request) => /** @type {any} */ (request.body))
      .filter((body) => userTexts(body).includes("Stream now"))
      .map((body) => (body?.messages ?? body?.input)?.length ?? 0);
    if (sent.length === 0 || Math.max(...sent) < HISTORY)
      throw new Error(`the resumed session sent ${Math.max(0, ...sent)} messages, not the ${HISTORY} seeded`);
    return { ...measured, messagesSent: Math.max(...sent) };
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

/** @typedef {NonNullable<Awaited<ReturnType<typeof session>>>} Measured */

/** @param {{ screen: number, scrollback: number }} clears */
const total = (clears) => clears.screen + clears.scrollback;

/**
 * The rows of the long-history sessions, or one `unavailable` row with why.
 * @param {InteractiveAgent} agent @param {string} label
 * @param {{ sessions: Measured[], long: (Measured & { messagesSent: number })[], longFailed?: string }} result
 * @param {string} note
 */
function longRows(agent, label, result, note) {
  const id = `interactive-${agent.id}-history`;
  if (result.longFailed || result.long.length === 0)
    return [
      unavailable(
        id,
        `${label}: ${HISTORY} messages of history`,
        result.longFailed ?? "not measured",
        undefined,
      ),
    ];
  const long = result.long;
  const history = `${HISTORY} messages of history (resumed)`;
  return [
    row({
      id: `${id}-keystroke-echo`,
      title: `${label}: keystroke → echo, ${history}`,
      unit: "ms",
      values: long.flatMap((s) => s.echoes),
      details: {
        messagesSentWithThePrompt: [...new Set(long.map((s) => s.messagesSent))],
        resumeToReadyMs: long.map((s) => Math.round(s.firstFrame)),
        resumeArgs: agent.resume,
      },
      note,
    }),
    row({
      id: `${id}-bytes-per-delta`,
      title: `${label}: bytes written per text delta, ${history}`,
      unit: "B",
      values: long.map((s) => s.perDelta.bytes),
      note,
    }),
    row({
      id: `${id}-cpu-per-delta`,
      title: `${label}: CPU per text delta, ${history}`,
      unit: "ms",
      values: long.map((s) => s.perDelta.cpu),
      note,
    }),
    row({
      id: `${id}-clears`,
      title: `${label}: clears in the session, ${history}`,
      unit: "count",
      values: long.map((s) => total(s.sessionClears)),
      details: { bySession: long.map((s) => s.sessionClears) },
      note,
    }),
    row({
      id: `${id}-rss`,
      title: `${label}: RSS after the streamed answer, ${history} less a new session's`,
      unit: "MB",
      values: long.map((s, i) => s.rssMb - (result.sessions[i]?.rssMb ?? Number.NaN)),
      details: {
        rssMbWithHistory: long.map((s) => Math.round(s.rssMb)),
        rssMbNewSession: result.sessions.map((s) => Math.round(s.rssMb)),
      },
      note,
    }),
  ];
}

export const interactivePeers = {
  id: "interactive-peers",
  title: "interactive modes side by side: cairn, Claude Code, Codex, pi (same server, same run)",
  /** @param {Context} ctx */
  async run(ctx) {
    const pty = loadPty();
    if ("reason" in pty)
      return unavailable(this.id, this.title, `no pseudo-terminal: ${pty.reason}`, undefined);
    const installFailed = await ensurePeersInstalled(ctx.log);
    const { startScriptedServer, reply } = await loadTesting();
    const text = streamedText();
    const server = await startScriptedServer({
      steps: [],
      // The agent's own turn (the typed prompt is the last user message) gets the scripted answer;
      // anything it sends beside it (a title, a topic check) a short one.
      respond: (/** @type {{ body: any }} */ request) => {
        const texts = userTexts(request.body);
        if (texts.includes("Stream now")) return reply().text(text).delayPerEvent(3);
        if (texts.includes("Warm up")) return reply().text(`Warm answer. ${WARM_END}`);
        if (texts.includes("Warm up again")) return reply().text(`Warm answer. ${WARM_AGAIN}`);
        return reply().text("ok");
      },
    });
    mkdirSync(PEERS_DIR, { recursive: true });
    /** @typedef {{ sessions: Measured[], long: (Measured & { messagesSent: number })[], failed?: string, longFailed?: string }} AgentResults */
    /** @type {Map<string, AgentResults>} */
    const results = new Map(INTERACTIVE_AGENTS.map((agent) => [agent.id, { sessions: [], long: [] }]));
    try {
      for (let round = 0; round < ctx.warmup + ctx.runs; round++) {
        // Round after round, each agent in turn: a busy spell of the machine hits all of them.
        for (const agent of INTERACTIVE_AGENTS) {
          const result = /** @type {AgentResults} */ (results.get(agent.id));
          if (result.failed) continue;
          if (agent !== cairnAgent && installFailed) {
            result.failed = installFailed;
            continue;
          }
          try {
            const measured = /** @type {Measured} */ (await session(pty, agent, server));
            if (round >= ctx.warmup) result.sessions.push(measured);
            ctx.log(
              `${agent.id} round ${round + 1}: first frame ${Math.round(measured.firstFrame)} ms, ${Math.round(measured.perDelta.bytes)} B/delta, echo ${round2(median(measured.echoes))} ms`,
            );
          } catch (error) {
            result.failed = `${agent.name} failed: ${error instanceof Error ? error.message : String(error)}`;
            ctx.log(`${agent.id} unavailable: ${result.failed}`);
            continue;
          }
          if (result.longFailed) continue;
          try {
            const measured = await longSession(pty, agent, server);
            if (round >= ctx.warmup) result.long.push(measured);
            ctx.log(
              `${agent.id} round ${round + 1}, ${HISTORY} messages: ${Math.round(measured.perDelta.bytes)} B/delta, echo ${round2(median(measured.echoes))} ms`,
            );
          } catch (error) {
            result.longFailed = `${agent.name} with a long history failed: ${error instanceof Error ? error.message : String(error)}`;
            ctx.log(`${agent.id} long history unavailable: ${result.longFailed}`);
          }
        }
      }
    } finally {
      await server.close();
    }
    /** @type {Record<string, unknown>[]} */
    const rows = [];
    for (const agent of INTERACTIVE_AGENTS) {
      const result = /** @type {AgentResults} */ (results.get(agent.id));
      const id = `interactive-${agent.id}`;
      const label = `${agent.name} ${agent.version}`;
      if (result.failed || result.sessions.length === 0) {
        rows.push(
          unavailable(id, `${label}: interactive`, result.failed ?? "no session measured", undefined),
        );
        continue;
      }
      const sessions = result.sessions;
      const details = {
        version: agent.version,
        launcher: sessions[0].launcher,
        setup: agent.how,
        alternateScreen: sessions[0].alternateScreen,
        modelRequestsDuringStream: [...new Set(sessions.map((s) => s.perDelta.requests))],
      };
      const note = "a peer for comparison: no target";
      rows.push(
        row({
          id: `${id}-first-frame`,
          title: `${label}: spawn → ready for input on a terminal`,
          unit: "ms",
          values: sessions.map((s) => s.firstFrame),
          details: { ...details, firstByteMs: sessions.map((s) => round2(s.firstByte)), ready: agent.ready },
          note,
        }),
        row({
          id: `${id}-bytes-per-delta`,
          title: `${label}: bytes written per text delta (${STREAM_DELTAS} deltas, 3 ms apart)`,
          unit: "B",
          values: sessions.map((s) => s.perDelta.bytes),
          note,
        }),
        row({
          id: `${id}-cpu-per-delta`,
          title: `${label}: CPU per text delta (its process tree, 10 ms ticks)`,
          unit: "ms",
          values: sessions.map((s) => s.perDelta.cpu),
          details: { rssAfterStreamMb: sessions.map((s) => Math.round(s.rssMb)) },
          note,
        }),
        row({
          id: `${id}-clears-streaming`,
          title: `${label}: screen/scrollback clears (ESC[2J, ESC[3J) while the answer streamed`,
          unit: "count",
          values: sessions.map((s) => total(s.perDelta.clears)),
          details: { bySession: sessions.map((s) => s.perDelta.clears) },
          note,
        }),
        row({
          id: `${id}-clears-session`,
          title: `${label}: clears in the whole session (start, two turns, ${KEYSTROKES} keys, 3 resizes)`,
          unit: "count",
          values: sessions.map((s) => total(s.sessionClears)),
          details: {
            bySession: sessions.map((s) => s.sessionClears),
            duringResizes: sessions.map((s) => s.resizeClears),
          },
          note,
        }),
        row({
          id: `${id}-keystroke-echo`,
          title: `${label}: keystroke → echo (the typed letter on the screen), short history`,
          unit: "ms",
          values: sessions.flatMap((s) => s.echoes),
          note,
        }),
      );
      rows.push(...longRows(agent, label, result, note));
    }
    for (const peer of NOT_MEASURED) {
      rows.push(unavailable(`interactive-${peer.id}`, `${peer.name}: interactive`, peer.reason, undefined));
    }
    return rows;
  },
};
