// Grep over a generated tree of 100,000 files: cairn's Grep tool against ripgrep run directly, with
// the JS fallback beside it. The tree is generated once under the OS temp dir and reused.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { distFile, row, unavailable } from "../lib/harness.mjs";
import { timeProcess } from "../lib/processes.mjs";
import { median, round2 } from "../lib/stats.mjs";

/** @typedef {import("../run.mjs").Context} Context */

const TREE = { version: 1, dirs: 100, subdirs: 10, filesPerDir: 100, needleEvery: 997 };
const PATTERN = "needle_[0-9]+_marker";
const TARGET = /** @type {const} */ ({ text: "≤ 1.2× rg run directly", kind: "ratio-max", value: 1.2 });

function expectedMatches(/** @type {number} */ files) {
  return Math.floor((files - 1) / TREE.needleEvery) + 1;
}

/** A source-like file; every `needleEvery`-th one holds the needle. @param {number} n */
function fileText(n) {
  const lines = [`// file ${n}`, `import { helper${n % 37} } from "./helper-${n % 37}.js";`, ""];
  for (let i = 0; i < 8; i++) {
    lines.push(`export function f${n}_${i}(value) { return helper${n % 37}(value + ${i * n}); }`);
  }
  if (n % TREE.needleEvery === 0) lines.push(`// needle_${n}_marker`);
  return `${lines.join("\n")}\n`;
}

/** Generates the tree once (about 100,000 files, 40 MB) and returns its root and file count. */
export function ensureTree(/** @type {(message: string) => void} */ log) {
  const total = TREE.dirs * TREE.subdirs * TREE.filesPerDir;
  const root = join(tmpdir(), `cairn-bench-grep-${total}-v${TREE.version}`);
  const marker = join(root, ".cairn-bench-tree.json");
  if (existsSync(marker) && readFileSync(marker, "utf8") === JSON.stringify(TREE)) return { root, total };
  log(`generating ${total.toLocaleString("en")} files under ${root} (once; reused by later runs)`);
  const building = `${root}.building-${process.pid}`;
  rmSync(building, { recursive: true, force: true });
  let n = 0;
  for (let d = 0; d < TREE.dirs; d++) {
    for (let s = 0; s < TREE.subdirs; s++) {
      const dir = join(building, `pkg${d}`, `mod${s}`);
      mkdirSync(dir, { recursive: true });
      for (let f = 0; f < TREE.filesPerDir; f++) writeFileSync(join(dir, `file${f}.js`), fileText(n++));
    }
  }
  writeFileSync(join(building, ".cairn-bench-tree.json"), JSON.stringify(TREE));
  rmSync(root, { recursive: true, force: true });
  renameSync(building, root);
  return { root, total };
}

function ripgrepOnPath() {
  const found = spawnSync("rg", ["--version"], { encoding: "utf8" });
  return found.status === 0 ? found.stdout.split("\n")[0] : undefined;
}

/** cairn's Grep tool from the build, called in-process as the engine calls it. */
async function loadGrepTool() {
  const path = distFile("tools/index.js");
  if (!existsSync(path)) throw new Error(`${path} is missing: run \`npm run build\` first`);
  const tools = await import(pathToFileURL(path).href);
  return tools.grepTool;
}

/** The arguments the Grep tool gives rg for this search, when the build exposes them. */
async function loadToolArgs(/** @type {string} */ root) {
  const path = distFile("tools/grep-rg.js");
  if (!existsSync(path)) return undefined;
  const { ripgrepArgs } = await import(pathToFileURL(path).href);
  if (typeof ripgrepArgs !== "function") return undefined;
  try {
    return ripgrepArgs({
      root,
      rootIsFile: false,
      pattern: PATTERN,
      ignoreCase: false,
      multiline: false,
      before: 0,
      after: 0,
      globs: [],
      wantLines: false,
      signal: new AbortController().signal,
      env: process.env,
    });
  } catch {
    return undefined;
  }
}

async function timeTool(
  /** @type {{ execute: (input: unknown, ctx: unknown) => Promise<{ isError: boolean, content: string, data?: Record<string, unknown> }> }} */ tool,
  /** @type {string} */ root,
  /** @type {number} */ expected,
) {
  const started = performance.now();
  const outcome = await tool.execute(
    { pattern: PATTERN, path: root, output_mode: "files_with_matches" },
    { cwd: root, signal: new AbortController().signal, toolUseId: "bench" },
  );
  const ms = performance.now() - started;
  if (outcome.isError || outcome.data?.numFiles !== expected) {
    throw new Error(
      `Grep found ${outcome.data?.numFiles} files, expected ${expected}: ${outcome.content.slice(0, 300)}`,
    );
  }
  return { ms, engine: String(outcome.data?.engine) };
}

async function timeRipgrep(
  /** @type {string[]} */ args,
  /** @type {number} */ expected,
  /** @type {boolean} */ json,
) {
  const run = await timeProcess("rg", args, { keepStdout: true });
  if (run.code !== 0) throw new Error(`rg ${args.join(" ")} exited ${run.code}: ${run.stderr}`);
  const files = json
    ? run.stdout.split("\n").filter((line) => line.startsWith('{"type":"begin"')).length
    : run.stdout.split("\n").filter(Boolean).length;
  if (files !== expected) throw new Error(`rg found ${files} files, expected ${expected}`);
  return run.ms;
}

async function series(
  /** @type {Context} */ ctx,
  /** @type {number} */ runs,
  /** @type {() => Promise<number>} */ once,
) {
  for (let i = 0; i < ctx.warmup; i++) await once();
  /** @type {number[]} */
  const times = [];
  for (let i = 0; i < runs; i++) times.push(await once());
  return times;
}

export const grep = {
  id: "grep-100k",
  title: "Grep, 100,000 files (ripgrep engine)",
  /** @param {Context} ctx */
  async run(ctx) {
    const rgVersion = ripgrepOnPath();
    const tool = await loadGrepTool();
    const { root, total } = ensureTree(ctx.log);
    const expected = expectedMatches(total);
    const previous = process.env.CAIRN_GREP;
    /** @type {ReturnType<typeof row>[] | ReturnType<typeof unavailable>[]} */
    const rows = [];
    try {
      if (rgVersion) {
        const direct = await series(ctx, ctx.runs, () => timeRipgrep(["-l", PATTERN, root], expected, false));
        // Where the difference comes from: rg with the very arguments the tool passes it.
        const toolArgs = await loadToolArgs(root);
        const withToolArgs = toolArgs
          ? await series(ctx, ctx.runs, () => timeRipgrep(toolArgs, expected, true))
          : undefined;
        delete process.env.CAIRN_GREP;
        const viaTool = await series(ctx, ctx.runs, async () => {
          const { ms, engine } = await timeTool(tool, root, expected);
          if (engine !== "ripgrep") throw new Error(`Grep used the ${engine} engine although rg is on PATH`);
          return ms;
        });
        rows.push(
          row({
            id: this.id,
            title: this.title,
            unit: "ms",
            values: viaTool,
            target: TARGET,
            details: {
              rgDirectMs: round2(median(direct)),
              rgWithToolArgsMs: withToolArgs ? round2(median(withToolArgs)) : null,
              rgVersion,
              files: total,
              matchingFiles: expected,
            },
            note: `ratio to \`rg -l PATTERN DIR\` measured in the same run (median ${round2(median(direct))} ms)`,
          }),
        );
        // row() only knows ratios to node -e 0; this one is to rg.
        const last = rows[rows.length - 1];
        Object.assign(last, ratioTo(viaTool, direct));
      } else {
        rows.push(unavailable(this.id, this.title, "rg not present: install ripgrep to compare", TARGET));
      }
      process.env.CAIRN_GREP = "js";
      // About 20 s a run: no warm-up (the rg runs above have warmed the page cache), at most 3 runs.
      const js = await series(
        { ...ctx, warmup: 0 },
        Math.min(ctx.runs, 3),
        async () => (await timeTool(tool, root, expected)).ms,
      );
      rows.push(
        row({
          id: "grep-100k-js",
          title: "Grep, 100,000 files (JS fallback, CAIRN_GREP=js)",
          unit: "ms",
          values: js,
          details: { files: total, matchingFiles: expected },
          note: "reported beside ripgrep; no target",
        }),
      );
    } finally {
      if (previous === undefined) delete process.env.CAIRN_GREP;
      else process.env.CAIRN_GREP = previous;
    }
    return rows;
  },
};

function ratioTo(/** @type {number[]} */ values, /** @type {number[]} */ base) {
  const ratio = median(values) / median(base);
  return { ratio: round2(ratio), ratioTo: "rg -l", met: ratio <= TARGET.value };
}
