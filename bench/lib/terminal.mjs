// Any agent's interactive mode on a pseudo-terminal (node-pty), for the side-by-side interactive rows
// (bench/scenarios/peers-interactive.mjs): every byte it writes, waits on what a user would see, and
// the CPU and memory of its whole process tree (a launcher and the binary it starts count together).
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

/** node-pty, or why there is no pseudo-terminal here. */
export function loadPty() {
  try {
    return /** @type {typeof import("@lydell/node-pty")} */ (require("@lydell/node-pty"));
  } catch (error) {
    return { reason: error instanceof Error ? error.message : String(error) };
  }
}

// CSI (ESC [ … final byte), OSC (ESC ] … BEL or ST), DCS/APC/PM (… ST), other two-byte escapes, and
// the stray control characters the renderers write (SI/SO, BEL).
const ESCAPES =
  /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[P_^][^\x1b]*\x1b\\|\x1b[()][0-9A-Za-z]|\x1b[ -/]*[0-~]|[\x07\x0e\x0f]/g;

/**
 * The text a terminal shows for `output`, without its escape sequences. Cursor moves are dropped,
 * so words a renderer separates by moving the cursor (instead of writing a space) run together:
 * look for single words in it.
 * @param {string} output
 */
export function visibleText(output) {
  return output.replace(ESCAPES, "");
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
 * Starts `command` on a pseudo-terminal and records what it writes.
 * @param {typeof import("@lydell/node-pty")} pty
 * @param {{ command: string, args: string[] }} launch
 * @param {{ env: NodeJS.ProcessEnv, cwd: string, cols?: number, rows?: number, label: string }} options
 */
export function openTerminal(pty, launch, options) {
  const started = performance.now();
  const term = pty.spawn(launch.command, launch.args, {
    name: "xterm-256color",
    cols: options.cols ?? 100,
    rows: options.rows ?? 30,
    cwd: options.cwd,
    env: /** @type {Record<string, string>} */ ({ ...options.env, TERM: "xterm-256color" }),
  });
  let output = "";
  let bytes = 0;
  let firstByteAt = Number.NaN;
  let exited = false;
  /** @type {{ from: number, test: (text: string) => boolean, resolve: (at: number) => void }[]} */
  let waits = [];
  term.onExit(() => {
    exited = true;
  });
  term.onData((data) => {
    const now = performance.now();
    if (Number.isNaN(firstByteAt)) firstByteAt = now;
    output += data;
    bytes += Buffer.byteLength(data);
    waits = waits.filter((wait) => {
      if (!wait.test(visibleText(output.slice(wait.from)))) return true;
      wait.resolve(now);
      return false;
    });
  });
  /**
   * Resolves with the time `word` first shows (in the visible text written after `from`, an output
   * length); rejects after `timeoutMs` with the screen's last words.
   */
  const waitFor = (/** @type {string} */ word, from = output.length, timeoutMs = 60_000) =>
    /** @type {Promise<number>} */ (
      new Promise((resolve, reject) => {
        const test = (/** @type {string} */ text) => text.includes(word);
        if (test(visibleText(output.slice(from)))) return resolve(performance.now());
        const timer = setTimeout(() => {
          const tail = visibleText(output).replace(/\s+/g, " ").slice(-300);
          reject(
            new Error(
              `no ${JSON.stringify(word)} from ${options.label} in ${timeoutMs / 1000} s${exited ? " (it exited)" : ""}; last: ${tail}`,
            ),
          );
        }, timeoutMs);
        waits.push({
          from,
          test,
          resolve: (at) => {
            clearTimeout(timer);
            resolve(at);
          },
        });
      })
    );
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
    get firstByteAt() {
      return firstByteAt;
    },
    close() {
      // The whole tree: a launcher's child would outlive it.
      for (const pid of processTree(term.pid).reverse()) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {}
      }
    },
  };
}

/** @param {number} ms */
export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
