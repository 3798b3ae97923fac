// Peers (`--peers`, never in CI): the `one-line` answer through other coding agents installed from
// npm, against the same scripted model server, for the side-by-side table (docs/performance.md).
// Claude Code speaks the Anthropic Messages API (`ANTHROPIC_BASE_URL`); Codex speaks the OpenAI
// Responses API through a custom model provider in its config.toml. pi (only in the interactive
// rows, bench/scenarios/peers-interactive.mjs) speaks Anthropic Messages through a custom provider
// in its models.json. The peers are not dependencies
// of the project: the pinned versions below are installed into .tmp/peers/ (git-ignored) the first
// time, and a row says `unavailable` with the reason when the install or a peer fails.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  cleanEnv,
  loadTesting,
  pairedWithBaseline,
  parseLines,
  ROOT,
  resultOf,
  row,
  tempWorkspace,
  unavailable,
} from "../lib/harness.mjs";
import { timeProcess } from "../lib/processes.mjs";
import { median, round2 } from "../lib/stats.mjs";

/** @typedef {import("../run.mjs").Context} Context */

/** The peers' versions, pinned: a newer release is a deliberate change of this line (and of the docs' figures). */
export const PEER_VERSIONS = {
  "@anthropic-ai/claude-code": "2.1.332",
  "@openai/codex": "0.171.0",
  "@mariozechner/pi-coding-agent": "0.73.1",
};

export const PEERS_DIR = join(ROOT, ".tmp/peers");
const PROMPT = "What is the answer?";
const ANSWER = "Hello! The answer is 42.";

/** @param {string} pkg */
export function packageDir(pkg) {
  return join(PEERS_DIR, "node_modules", pkg);
}

/** @param {string} pkg @returns {Record<string, any> | undefined} */
export function packageJson(pkg) {
  try {
    return JSON.parse(readFileSync(join(packageDir(pkg), "package.json"), "utf8"));
  } catch {
    return undefined;
  }
}

/** @param {string} text */
function lastLines(text, count = 3) {
  const lines = text
    .trim()
    .split("\n")
    .filter((line) => !line.includes("A complete log of this run"));
  return lines.slice(-count).join(" | ").slice(0, 400);
}

/** @type {Promise<string | undefined> | undefined} */
let installing;

/**
 * Installs the pinned peers into .tmp/peers/ unless they are there already (once per bench run).
 * Resolves with undefined when they are, or with why not. Both are installed in one command: an
 * install without a package.json prunes whatever it was not asked for.
 * @param {(message: string) => void} log
 */
export function ensurePeersInstalled(log) {
  installing ??= (async () => {
    const stale = Object.entries(PEER_VERSIONS).filter(
      ([pkg, version]) => packageJson(pkg)?.version !== version,
    );
    if (stale.length === 0) return undefined;
    const specs = Object.entries(PEER_VERSIONS).map(([pkg, version]) => `${pkg}@${version}`);
    log(`peers: npm install --no-save --prefix .tmp/peers ${specs.join(" ")}`);
    mkdirSync(PEERS_DIR, { recursive: true });
    try {
      const run = await timeProcess(
        process.platform === "win32" ? "npm.cmd" : "npm",
        ["install", "--no-save", "--no-audit", "--no-fund", "--prefix", PEERS_DIR, ...specs],
        { env: process.env, timeoutMs: 600_000 },
      );
      if (run.code !== 0) return `npm install exited ${run.code ?? run.signal}: ${lastLines(run.stderr)}`;
    } catch (error) {
      return `npm install failed: ${error instanceof Error ? error.message : String(error)}`;
    }
    const missing = stale.filter(([pkg, version]) => packageJson(pkg)?.version !== version);
    if (missing.length > 0) return `npm install did not install ${missing.map(([pkg]) => pkg).join(", ")}`;
    return undefined;
  })();
  return installing;
}

/**
 * How to start a peer: the command and its leading arguments.
 * @typedef {{ command: string, args: string[], launcher: string }} Launch
 */

/**
 * One peer.
 * @typedef {object} Peer
 * @property {string} id
 * @property {string} name
 * @property {keyof typeof PEER_VERSIONS} pkg
 * @property {string} endpoint the scripted server's path it must call
 * @property {() => Launch} resolve throws when the installed package cannot run here
 * @property {(server: { url: string }, home: string) => NodeJS.ProcessEnv} setup writes its config, returns its env
 * @property {string[]} args the one-line run's arguments
 * @property {(stdout: string) => void} check throws unless the output holds the answer
 */

/** @type {Peer} */
export const claudeCode = {
  id: "peer-claude-code",
  name: "Claude Code",
  pkg: "@anthropic-ai/claude-code",
  endpoint: "/v1/messages",
  resolve() {
    // Older releases shipped cli.js (run with node); this one a native executable per platform, in
    // an optional dependency (the file the postinstall puts at bin/claude.exe).
    const cli = join(packageDir(this.pkg), "cli.js");
    if (existsSync(cli)) return { command: process.execPath, args: [cli], launcher: "node cli.js" };
    const platform = `${this.pkg}-${process.platform}-${process.arch}`;
    for (const pkg of [platform, `${platform}-musl`]) {
      const binary = join(packageDir(pkg), process.platform === "win32" ? "claude.exe" : "claude");
      if (existsSync(binary)) return { command: binary, args: [], launcher: `native (${pkg})` };
    }
    throw new Error(`no Claude Code executable for ${process.platform}-${process.arch} in .tmp/peers`);
  },
  setup(server) {
    return {
      ANTHROPIC_BASE_URL: server.url,
      ANTHROPIC_API_KEY: "bench-key",
      // The umbrella switch (auto-updater, bug command, error reporting, telemetry), and each of them.
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      DISABLE_AUTOUPDATER: "1",
      DISABLE_ERROR_REPORTING: "1",
      DISABLE_TELEMETRY: "1",
    };
  },
  args: ["-p", PROMPT, "--output-format", "stream-json", "--verbose"],
  check(stdout) {
    const result = resultOf(stdout);
    if (typeof result.result !== "string" || !result.result.includes("42"))
      throw new Error(`wrong answer: ${JSON.stringify(result.result)}`);
  },
};

/** @type {Peer} */
export const codex = {
  id: "peer-codex",
  name: "Codex",
  pkg: "@openai/codex",
  endpoint: "/v1/responses",
  resolve() {
    // What `codex` on PATH runs after `npm i -g @openai/codex`: a Node launcher that spawns the
    // platform's native binary (one Node start included, as for its users).
    const bin = packageJson(this.pkg)?.bin;
    const script = typeof bin === "string" ? bin : bin?.codex;
    if (typeof script !== "string") throw new Error("@openai/codex has no `codex` bin");
    return {
      command: process.execPath,
      args: [join(packageDir(this.pkg), script)],
      launcher: `node ${script}`,
    };
  },
  setup(server, home) {
    const codexHome = join(home, ".codex");
    mkdirSync(codexHome, { recursive: true });
    // A custom provider on the Responses wire (Codex appends /responses to base_url). Analytics off
    // and plugins off: with them on, every start contacts ab.chatgpt.com, chatgpt.com and GitHub.
    writeFileSync(
      join(codexHome, "config.toml"),
      [
        'model_provider = "cairn-bench"',
        "",
        "[analytics]",
        "enabled = false",
        "",
        "[features]",
        "plugins = false",
        "",
        "[model_providers.cairn-bench]",
        'name = "cairn bench scripted server"',
        `base_url = "${server.url}/v1"`,
        'env_key = "CAIRN_BENCH_KEY"',
        'wire_api = "responses"',
        "",
      ].join("\n"),
    );
    return { CODEX_HOME: codexHome, CAIRN_BENCH_KEY: "bench-key" };
  },
  args: ["exec", "--skip-git-repo-check", "--json", PROMPT],
  check(stdout) {
    const lines = parseLines(stdout);
    const failed = lines.find((line) => line.type === "turn.failed" || line.type === "error");
    if (failed) throw new Error(`run failed: ${JSON.stringify(failed).slice(0, 300)}`);
    const answered = lines.some((line) => {
      const item = /** @type {{ type?: string, text?: string } | undefined} */ (line.item);
      return line.type === "item.completed" && item?.type === "agent_message" && item.text?.includes("42");
    });
    if (!answered || !lines.some((line) => line.type === "turn.completed"))
      throw new Error(`no answer in: ${stdout.slice(-400)}`);
  },
};

/**
 * The environment of a peer's run: the bench's clean one without anything of the caller's that
 * would configure a peer (its own variables, XDG directories), HOME a temporary directory.
 * @param {string} home @param {NodeJS.ProcessEnv} extra
 */
export function peerEnv(home, extra) {
  const env = cleanEnv();
  for (const name of Object.keys(env)) {
    if (/^(CLAUDE_|CODEX_|PI_|XDG_)/.test(name) || name === "CAIRN_HOME") delete env[name];
  }
  return { ...env, HOME: home, ...extra };
}

/** @param {number[]} counts */
function perRun(counts) {
  const distinct = [...new Set(counts)];
  return distinct.length === 1 ? distinct[0] : counts;
}

/** The one-line scenario through `peer`. @param {Peer} peer */
function peerScenario(peer) {
  const version = PEER_VERSIONS[peer.pkg];
  return {
    id: peer.id,
    title: `${peer.name} ${version}: one-line answer (same server)`,
    /** @param {Context} ctx */
    async run(ctx) {
      const skip = (/** @type {string} */ reason) => {
        ctx.log(`${this.id} unavailable: ${reason}`);
        return unavailable(this.id, this.title, reason, undefined);
      };
      const reason = await ensurePeersInstalled(ctx.log);
      if (reason) return skip(reason);
      /** @type {Launch} */
      let launch;
      try {
        launch = peer.resolve();
      } catch (error) {
        return skip(error instanceof Error ? error.message : String(error));
      }
      // Under .tmp/peers, not the OS temp dir: Codex skips part of its start-up for a home in /tmp.
      const home = mkdtempSync(join(PEERS_DIR, "home-"));
      const { startScriptedServer, reply } = await loadTesting();
      // Every request of a run gets the answer (a peer may send more than one: titles, warm-ups).
      const server = await startScriptedServer({ steps: [], respond: () => reply().text(ANSWER) });
      try {
        const cwd = tempWorkspace();
        const env = peerEnv(home, peer.setup(server, home));
        /** @type {{ all: number, model: number, bodyKB: number, modelId: unknown }[]} */
        const seen = [];
        const once = async () => {
          const before = server.requests.length;
          const run = await timeProcess(launch.command, [...launch.args, ...peer.args], {
            env,
            cwd,
            timeoutMs: 60_000,
          });
          if (run.code !== 0)
            throw new Error(`exited ${run.code ?? run.signal}: ${lastLines(run.stderr || run.stdout)}`);
          peer.check(run.stdout);
          const requests = server.requests.slice(before);
          const model = requests.filter((r) => r.path.split("?")[0] === peer.endpoint);
          if (model.length === 0) throw new Error(`answered without calling ${peer.endpoint}`);
          seen.push({
            all: requests.length,
            model: model.length,
            bodyKB: JSON.stringify(model[0].body).length / 1000,
            modelId: /** @type {{ model?: unknown }} */ (model[0].body)?.model,
          });
          return run;
        };
        const paired = await pairedWithBaseline(ctx, once);
        const timed = seen.slice(ctx.warmup);
        return row({
          id: this.id,
          title: this.title,
          unit: "ms",
          values: paired.times,
          base: paired.base,
          details: {
            package: peer.pkg,
            version,
            launcher: launch.launcher,
            modelRequestsPerRun: perRun(timed.map((s) => s.model)),
            requestsPerRun: perRun(timed.map((s) => s.all)),
            firstRequestKB: round2(median(timed.map((s) => s.bodyKB))),
            model: timed[0]?.modelId,
          },
          note: "a peer for comparison: no target",
        });
      } catch (error) {
        return skip(`${peer.name} failed: ${error instanceof Error ? error.message : String(error)}`);
      } finally {
        await server.close();
        rmSync(home, { recursive: true, force: true });
      }
    },
  };
}

export const claudeCodeOneLine = peerScenario(claudeCode);
export const codexOneLine = peerScenario(codex);
