// Any agent's interactive mode on a pseudo-terminal (node-pty), for the side-by-side interactive rows
// (bench/scenarios/peers-interactive.mjs): every byte it writes, waits on what a user would see, and
// the CPU and memory of its whole process tree (a launcher and the binary it starts count together).
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { homedir } from "node:os";

const require = createRequire(import.meta.url);

/** node-pty, or why there is no pseudo-terminal here. */
export function loadPty() {
  try {
    return /** @type {typeof import("@lydell/node-pty")} */ (require("@lydell/node-pty"));
  } catch (error) {
    return { reason: error instanceof Error ? error.message : String(error) };
  }
}

/** How many times `output` clears the screen (ESC[2J) and the scrollback (ESC[3J). @param {string} output */
export function countClears(output) {
  return { screen: output.split("\x1b[2J").length - 1, scrollback: output.split("\x1b[3J").length - 1 };
}

/**
 * Whether `output` leaves the terminal on the alternate screen (where the conversation does not go
 * into the terminal's own scrollback): the last switch it wrote was to it.
 * @param {string} output
 */
export function endsOnAlternateScreen(output) {
  const switches = [...output.matchAll(/\x1b\[\?(?:1049|1047|47)([hl])/g)];
  return switches.at(-1)?.[1] === "h";
}

/** The pids of `pid` and all its descendants (Linux). @param {number} pid @returns {number[]} */
function processTree(pid) {
  const all = [pid];
  for (let i = 0; i < all.length; i++) {
    let tasks = [];
    try {
      tasks = readdirSync(`/proc/${all[i]}/task`);
    } catch {
      continue;
    }
    for (const task of tasks) {
      try {
        const children = readFileSync(`/proc/${all[i]}/task/${task}/children`, "utf8").trim();
        if (children) all.push(...children.split(" ").map(Number));
      } catch {}
    }
  }
  return all;
}

/**
 * Processes started with `HOME` set to `home`: what an agent left running on its own, such as a
 * daemon that detached from its terminal (Codex's app-server), which `processTree` no longer finds.
 * @param {string} home
 */
function processesOfHome(home) {
  /** @type {number[]} */
  const found = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${entry}/environ`, "latin1").split("\0").includes(`HOME=${home}`))
        found.push(Number(entry));
    } catch {}
  }
  return found;
}

/** `/proc/<pid>/stat`'s fields after the command name, or undefined once it exited. @param {number} pid */
function statFields(pid) {
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  } catch {
    return undefined;
  }
}

/** CPU time (user + system, 10 ms clock ticks) the process tree of `pid` used so far, in ms. @param {number} pid */
export function treeCpuMs(pid) {
  let ticks = 0;
  for (const each of processTree(pid)) {
    const fields = statFields(each);
    if (fields) ticks += Number(fields[11]) + Number(fields[12]);
  }
  return ticks * 10;
}

/** Resident memory of the process tree of `pid`, in MB. @param {number} pid */
export function treeRssMb(pid) {
  let kb = 0;
  for (const each of processTree(pid)) {
    try {
      const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${each}/status`, "utf8"));
      if (match) kb += Number(match[1]);
    } catch {}
  }
  return kb / 1024;
}

/**
 * Starts `command` on a pseudo-terminal and records what it writes, read by a virtual terminal
 * (xterm.js, headless) so that waits are on what the screen shows, however a renderer gets it
 * there (whole lines, cursor moves between words, only the cells that changed).
 * @param {typeof import("@lydell/node-pty")} pty
 * @param {{ command: string, args: string[] }} launch
 * @param {{ env: NodeJS.ProcessEnv, cwd: string, cols?: number, rows?: number, label: string }} options
 */
export function openTerminal(pty, launch, options) {
  const cols = options.cols ?? 100;
  const rows = options.rows ?? 30;
  const { Terminal } = /** @type {typeof import("@xterm/headless")} */ (require("@xterm/headless"));
  const screen = new Terminal({ cols, rows, scrollback: 1000, allowProposedApi: true });
  const started = performance.now();
  const term = pty.spawn(launch.command, launch.args, {
    name: "xterm-256color",
    cols,
    rows,
    cwd: options.cwd,
    env: /** @type {Record<string, string>} */ ({ ...options.env, TERM: "xterm-256color" }),
  });
  let output = "";
  let bytes = 0;
  let firstByteAt = Number.NaN;
  let exited = false;
  /** The rows on the screen, wrapped rows joined. */
  const shown = () => {
    const buffer = screen.buffer.active;
    let text = "";
    for (let i = buffer.baseY; i < buffer.baseY + screen.rows; i++) {
      const line = buffer.getLine(i);
      if (!line) continue;
      text += (line.isWrapped ? "" : "\n") + line.translateToString(true);
    }
    return text;
  };
  /** @type {{ test: (text: string) => boolean, resolve: (at: number) => void }[]} */
  let waits = [];
  term.onExit(() => {
    exited = true;
  });
  term.onData((data) => {
    // The time the bytes came, not the time the virtual terminal is done with them.
    const now = performance.now();
    if (Number.isNaN(firstByteAt)) firstByteAt = now;
    output += data;
    bytes += Buffer.byteLength(data);
    screen.write(data, () => {
      if (waits.length === 0) return;
      const text = shown();
      waits = waits.filter((wait) => {
        if (!wait.test(text)) return true;
        wait.resolve(now);
        return false;
      });
    });
  });
  /**
   * Resolves with the time of the bytes after which `test` holds for the screen; rejects after
   * `timeoutMs` with the screen's last words.
   */
  const waitUntil = (
    /** @type {(text: string) => boolean} */ test,
    /** @type {string} */ what,
    timeoutMs = 60_000,
  ) =>
    /** @type {Promise<number>} */ (
      new Promise((resolve, reject) => {
        if (test(shown())) return resolve(performance.now());
        const timer = setTimeout(() => {
          waits = waits.filter((wait) => wait.test !== test);
          const tail = shown().replace(/\s+/g, " ").slice(-300);
          reject(
            new Error(
              `no ${what} from ${options.label} in ${timeoutMs / 1000} s${exited ? " (it exited)" : ""}; the screen: ${tail}`,
            ),
          );
        }, timeoutMs);
        waits.push({
          test,
          resolve: (at) => {
            clearTimeout(timer);
            resolve(at);
          },
        });
      })
    );
  /** How many times `text` is on the screen now. @param {string} text */
  const countShown = (text) => shown().split(text).length - 1;
  return {
    term,
    started,
    /** Waits until `word` is on the screen. */
    waitFor: (/** @type {string} */ word, timeoutMs = 60_000) =>
      waitUntil((text) => text.includes(word), JSON.stringify(word), timeoutMs),
    /** Waits until `word` is on the screen once more than now (a typed key's echo). */
    waitForOneMore: (/** @type {string} */ word, timeoutMs = 10_000) => {
      const now = countShown(word);
      return waitUntil(
        (text) => text.split(word).length - 1 > now,
        `echo of ${JSON.stringify(word)}`,
        timeoutMs,
      );
    },
    resize(/** @type {number} */ c, /** @type {number} */ r) {
      term.resize(c, r);
      screen.resize(c, r);
    },
    get output() {
      return output;
    },
    get bytes() {
      return bytes;
    },
    get firstByteAt() {
      return firstByteAt;
    },
    close() {
      // The whole tree (a launcher's child would outlive it) and whatever detached from it.
      // Only a HOME of the bench's own: never the user's, whose every process has it.
      const home = options.env.HOME;
      const own = home !== undefined && home !== homedir() && home !== process.env.HOME;
      const left = own ? processesOfHome(home) : [];
      for (const pid of [...processTree(term.pid).reverse(), ...left]) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {}
      }
      screen.dispose();
    },
  };
}

/** @param {number} ms */
export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
