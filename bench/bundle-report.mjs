// What the CLI's start-up path loads, from esbuild's metafile:
//
//   CAIRN_BUILD_META=.tmp/build-meta.json node scripts/post-build.mjs
//   node bench/bundle-report.mjs .tmp/build-meta.json
//
// For `--version`, for a run before the first model call, and for a run with the Anthropic client,
// it lists the files read and their bytes by package (source bytes are what V8 must parse).
import { readFileSync } from "node:fs";

const file = process.argv[2];
if (!file) {
  process.stderr.write("usage: node bench/bundle-report.mjs METAFILE\n");
  process.exit(2);
}
/** @type {{ outputs: Record<string, { bytes: number, imports: { path: string, kind: string, external?: boolean }[], inputs: Record<string, { bytesInOutput: number }> }> }} */
const meta = JSON.parse(readFileSync(file, "utf8"));
const outputs = meta.outputs;

/** …/node_modules/<pkg>/… → <pkg>; src/<dir>/… → src/<dir>. @param {string} input */
function packageOf(input) {
  const parts = input.split("/");
  // node_modules may be a link elsewhere (a worktree's), which esbuild reports as ../…/node_modules.
  const at = parts.lastIndexOf("node_modules");
  if (at < 0) return parts.slice(0, 2).join("/");
  return parts.slice(at + 1, parts[at + 1].startsWith("@") ? at + 3 : at + 2).join("/");
}

/** The files loaded from `entry`, following dynamic imports whose chunk name matches `follow`. */
function closure(/** @type {string} */ entry, /** @type {string[]} */ follow) {
  const seen = new Set();
  const stack = [entry];
  while (stack.length > 0) {
    const output = /** @type {string} */ (stack.pop());
    if (seen.has(output)) continue;
    seen.add(output);
    for (const imported of outputs[output].imports) {
      if (imported.external) continue;
      if (imported.kind === "dynamic-import" && !follow.some((name) => imported.path.includes(name)))
        continue;
      stack.push(imported.path);
    }
  }
  return seen;
}

const entry = Object.keys(outputs).find((path) => path.endsWith("cli/main.js"));
if (!entry) throw new Error("no cli/main.js in the metafile");
const paths = [
  ["cairn --version", []],
  ["a run, before the first model call", ["run-cli"]],
  ["a run with the Anthropic client", ["run-cli", "anthropic", "sdk-"]],
];
for (const [label, follow] of /** @type {[string, string[]][]} */ (paths)) {
  const files = closure(entry, follow);
  let bytes = 0;
  /** @type {Record<string, number>} */
  const byPackage = {};
  for (const output of files) {
    bytes += outputs[output].bytes;
    for (const [input, info] of Object.entries(outputs[output].inputs)) {
      byPackage[packageOf(input)] = (byPackage[packageOf(input)] ?? 0) + info.bytesInOutput;
    }
  }
  const top = Object.entries(byPackage)
    .filter(([, size]) => size >= 1024)
    .sort((a, b) => b[1] - a[1])
    .map(([name, size]) => `${name} ${Math.round(size / 1024)}K`);
  process.stdout.write(
    `${label}: ${files.size} files, ${Math.round(bytes / 1024)} kB\n  ${top.join(", ")}\n`,
  );
}
