// A child process of the `interactive-render-jobs` scenario (bench/scenarios/render-jobs.mjs): the
// interactive mode's larger drawing jobs, timed in one process, with V8's optimizing compilers as
// the interactive mode leaves them (`off`: src/interactive/memory-reclaim.ts turns them off) or as
// every other mode has them (`on`). Prints {job: [ms, …]} as JSON.
// usage: node render-jobs.mjs <dist> on|off
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [dist, compilers] = process.argv.slice(2);
const load = (/** @type {string} */ file) => import(pathToFileURL(join(dist, "interactive", file)).href);
const [{ MemoryReclaim }, { loadRenderModules }, { MarkdownStream }, { diffViewRows }, { stylesFor }] =
  await Promise.all(
    ["memory-reclaim.js", "render-modules.js", "markdown-stream.js", "diff-view.js", "style.js"].map(load),
  );
if (compilers === "off") new MemoryReclaim();
const modules = await loadRenderModules();
if (!modules) throw new Error("the render modules did not load");
const styles = stylesFor({ ...process.env, FORCE_COLOR: "1", NO_COLOR: undefined });
const WIDTH = 100;

/** A long answer: 60 sections of heading, paragraph, list and a code fence (about 30 KB). */
const answer = Array.from(
  { length: 60 },
  (_, i) =>
    `## Step ${i}\n\nThe build *fails* in \`src/module${i}.ts\` because the **type** of the export changed; see [the log](http://ci/${i}).\n\n- check the import\n- run \`npm test\`\n\n\`\`\`ts\nexport function step${i}(value: number): number {\n  return value * ${i} + 1; // the fix\n}\n\`\`\`\n`,
).join("\n");
/** An Edit of a 5,000-line file that changes every 50th line. */
const before = Array.from(
  { length: 5000 },
  (_, i) => `  const value${i} = compute(${i}, "a string of ordinary length");`,
).join("\n");
const after = before
  .split("\n")
  .map((line, i) => (i % 50 === 0 ? line.replace("ordinary", "changed") : line))
  .join("\n");
/** 300 lines of TypeScript for the highlighter. */
const code = Array.from(
  { length: 300 },
  (_, i) => `function f${i}(a: number, b: string) { return a + b.length * ${i}; } // note`,
).join("\n");

const jobs = {
  /** The answer streamed in 16-character deltas: each delta's committed blocks and live rows. */
  stream: () => {
    const stream = new MarkdownStream(styles, () => modules);
    for (let at = 0; at < answer.length; at += 16) {
      stream.push(answer.slice(at, at + 16), WIDTH);
      stream.liveRows(WIDTH);
    }
    stream.finish(WIDTH);
  },
  diff: () => diffViewRows({ path: "big.ts", oldText: before, newText: after }, WIDTH, styles, modules),
  highlight: () => modules.highlight(code, "typescript", styles),
};
/** @type {Record<string, number[]>} */
const times = {};
for (const [name, job] of Object.entries(jobs)) {
  times[name] = [];
  for (let i = 0; i < 12; i++) {
    const started = performance.now();
    job();
    times[name].push(performance.now() - started);
  }
}
process.stdout.write(`${JSON.stringify(times)}\n`);
