// What the CLI bundle holds, from esbuild's metafiles:
//
//   CAIRN_BUILD_META=.tmp/build-meta.json node scripts/post-build.mjs
//   node bench/bundle-report.mjs .tmp/build-meta.json
//
// The CLI is one CommonJS file (dist/cli/cli.cjs) compiled with a code cache (src/cli/bin.cts): its
// source bytes are read, and its functions' metadata deserialized, at every start, whichever of its
// modules a run then initialises. This lists its bytes by package, and the SDK entry's for comparison.
import { readFileSync } from "node:fs";

const file = process.argv[2];
if (!file) {
  process.stderr.write("usage: node bench/bundle-report.mjs METAFILE\n");
  process.exit(2);
}
/** @typedef {{ outputs: Record<string, { bytes: number, inputs: Record<string, { bytesInOutput: number }> }> }} Metafile */
/** @type {{ cli: Metafile, sdk: Metafile }} */
const meta = JSON.parse(readFileSync(file, "utf8"));

/** …/node_modules/<pkg>/… → <pkg>; src/<dir>/… → src/<dir>. @param {string} input */
function packageOf(input) {
  const parts = input.split("/");
  // node_modules may be a link elsewhere (a worktree's), which esbuild reports as ../…/node_modules.
  const at = parts.lastIndexOf("node_modules");
  if (at < 0) return parts.slice(0, 2).join("/");
  return parts.slice(at + 1, parts[at + 1].startsWith("@") ? at + 3 : at + 2).join("/");
}

function report(
  /** @type {string} */ label,
  /** @type {Metafile} */ metafile,
  /** @type {string[]} */ names,
) {
  let bytes = 0;
  /** @type {Record<string, number>} */
  const byPackage = {};
  for (const name of names) {
    bytes += metafile.outputs[name].bytes;
    for (const [input, info] of Object.entries(metafile.outputs[name].inputs)) {
      byPackage[packageOf(input)] = (byPackage[packageOf(input)] ?? 0) + info.bytesInOutput;
    }
  }
  const top = Object.entries(byPackage)
    .filter(([, size]) => size >= 1024)
    .sort((a, b) => b[1] - a[1])
    .map(([name, size]) => `${name} ${Math.round(size / 1024)}K`);
  process.stdout.write(
    `${label}: ${names.length} files, ${Math.round(bytes / 1024)} kB\n  ${top.join(", ")}\n`,
  );
}

const cli = Object.keys(meta.cli.outputs).filter((name) => name.endsWith("cli/cli.cjs"));
if (cli.length !== 1) throw new Error("no cli/cli.cjs in the metafile");
report("the CLI bundle (dist/cli/cli.cjs)", meta.cli, cli);
report(
  "the SDK and its chunks (dist/lib, dist/testing, dist/chunks)",
  meta.sdk,
  Object.keys(meta.sdk.outputs).filter((name) => name.endsWith(".js")),
);
