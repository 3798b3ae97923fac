// Runs after `tsc -p tsconfig.build.json` (which emits every module and the .d.ts files into dist/).
//
// It then bundles the package's three entry points with esbuild, over tsc's files of the same name,
// so that starting the CLI or importing the SDK reads a handful of files instead of hundreds
// (docs/performance.md has the measurements):
//
//   dist/cli/bin.cjs       the `cairn` bin (generated below): `--version`, else it imports main.js
//   dist/cli/main.js       the CLI: a few lines; everything else is import()ed when a run starts
//   dist/lib/index.js      the root export "cairn" (dist/index.js re-exports it)
//   dist/testing/index.js  "cairn/testing"
//   dist/chunks/*.js       code shared between them, and every dynamic import() as its own chunk, so
//                          provider clients (@anthropic-ai/sdk, openai) still load only on first use
//
// Every bundled file sits two folders below the package root, like its source under src/, so code
// that finds package.json with new URL("../../package.json", import.meta.url) keeps working.
// The three entries share their chunks: one copy of each class (instanceof works across them).
// Optional and peer dependencies stay external (native add-ons cannot be bundled).
import { chmodSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { build } from "esbuild";

// zod is imported as `import * as z from "zod"` everywhere (a lint rule in biome.json enforces it),
// which lets esbuild keep only the parts of zod that are used.

const root = new URL("..", import.meta.url);
const path = (/** @type {string} */ relative) => new URL(relative, root).pathname;
const pkg = JSON.parse(readFileSync(path("package.json"), "utf8"));
const external = [...Object.keys(pkg.optionalDependencies ?? {}), ...Object.keys(pkg.peerDependencies ?? {})];

// The official clients (@anthropic-ai/sdk, openai) build every request's headers with the global
// `Headers` and check every body with `instanceof FormData`; in Node 20 either global loads all of
// undici (Node's fetch) on first use. cairn gives the clients a fetch over node:http
// (src/providers/node-fetch.ts), so their modules get the stand-ins of
// src/providers/client-globals.ts for those two names and a run never loads undici
// (docs/performance.md).
const standInModule = path("src/providers/client-globals.ts");
const standIns = { Headers: "LightHeaders", FormData: "LazyFormData" };
/** @type {import("esbuild").Plugin} */
const clientGlobals = {
  name: "client-globals",
  setup(pluginBuild) {
    pluginBuild.onLoad(
      { filter: /[\\/]node_modules[\\/](@anthropic-ai[\\/]sdk|openai)[\\/].*\.mjs$/ },
      async (args) => {
        const contents = await readFile(args.path, "utf8");
        const code = contents.replace(/\/\/.*|\/\*[\s\S]*?\*\//g, "");
        const used = Object.entries(standIns).filter(([name]) =>
          new RegExp(`(?<![.\\w$])${name}\\b`).test(code),
        );
        if (used.length === 0) return undefined;
        const names = used.map(([name, standIn]) => `${standIn} as ${name}`).join(", ");
        return {
          contents: `import { ${names} } from ${JSON.stringify(standInModule)};\n${contents}`,
          loader: "js",
        };
      },
    );
  },
};

rmSync(path("dist/chunks"), { recursive: true, force: true });
const built = await build({
  absWorkingDir: path("."),
  entryPoints: {
    "cli/main": "src/cli/main.ts",
    "lib/index": "src/index.ts",
    "testing/index": "src/testing/index.ts",
  },
  outdir: "dist",
  chunkNames: "chunks/[name]-[hash]",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  external: [...external, ...external.map((name) => `${name}/*`)],
  // Bundled CommonJS dependencies (commander, ...) call require() for Node's built-ins.
  banner: {
    js: 'import { createRequire as __cairnCreateRequire } from "node:module"; const require = __cairnCreateRequire(import.meta.url);',
  },
  // Less to parse at start-up; identifiers are kept so stack traces stay readable.
  minifyWhitespace: true,
  minifySyntax: true,
  // Bundling renames clashing top-level names; keep the names functions and classes report.
  keepNames: true,
  legalComments: "eof",
  logLevel: "warning",
  plugins: [clientGlobals],
  // CAIRN_BUILD_META=file keeps esbuild's metafile (what went where) for bench/bundle-report.mjs.
  metafile: Boolean(process.env.CAIRN_BUILD_META),
});
if (process.env.CAIRN_BUILD_META) writeFileSync(process.env.CAIRN_BUILD_META, JSON.stringify(built.metafile));
writeFileSync(
  path("dist/index.js"),
  '// The bundled root export (see scripts/post-build.mjs).\nexport * from "./lib/index.js";\n',
);
// The `cairn` bin is a CommonJS file: Node starts a CommonJS entry about 5 ms sooner than an ES
// module (the ES module loader is set up only when needed), which is most of `--version`'s time
// (docs/performance.md). It answers `--version` itself and hands everything else to dist/cli/main.js.
writeFileSync(
  path("dist/cli/bin.cjs"),
  `#!/usr/bin/env node
"use strict";
// Generated by scripts/post-build.mjs: the \`cairn\` bin (see the comment there).
const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === "-v" || argv[0] === "--version")) {
  process.stdout.write(\`\${require("../../package.json").version}\\n\`);
} else {
  import("./main.js");
}
`,
);
chmodSync(path("dist/cli/bin.cjs"), 0o755);
chmodSync(path("dist/cli/main.js"), 0o755);
