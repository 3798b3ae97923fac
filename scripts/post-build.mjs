// Runs after `tsc -p tsconfig.build.json` (which emits every module and the .d.ts files into dist/).
//
// It then bundles the package's entry points with esbuild, over tsc's files of the same name, so that
// starting the CLI or importing the SDK reads a handful of files instead of hundreds
// (docs/performance.md has the measurements):
//
//   dist/cli/bin.cjs       the `cairn` bin (tsc's output of src/cli/bin.cts): `--version`, else it
//                          compiles cli.cjs with a V8 code cache; this script stamps the bundle's hash in
//   dist/cli/cli.cjs       the CLI: src/entry/start.ts and everything it imports, one CommonJS file (a
//                          code cache needs a script; Node 20 has none for ES modules)
//   dist/cli/main.js       tsc's output of src/cli/main.ts: a `.js` entry that requires bin.cjs
//   dist/lib/index.js      the root export "cairn" (dist/index.js re-exports it)
//   dist/testing/index.js  "cairn/testing"
//   dist/chunks/*.js       code shared between the two, and every dynamic import() as its own chunk, so
//                          provider clients (@anthropic-ai/sdk, openai) still load only on first use
//
// Every bundled file sits two folders below the package root, like its source under src/, so code
// that finds package.json with new URL("../../package.json", import.meta.url) keeps working.
// The SDK's two entries share their chunks: one copy of each class (instanceof works across them);
// the CLI's process loads only cli.cjs. Optional and peer dependencies stay external (native add-ons
// cannot be bundled).
import { isAscii } from "node:buffer";
import { createHash } from "node:crypto";
import { chmodSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { build } from "esbuild";

// zod is imported as `import * as z from "zod"` everywhere (a lint rule in biome.json enforces it),
// which lets esbuild keep only the parts of zod that are used.

const root = new URL("..", import.meta.url);
const path = (/** @type {string} */ relative) => new URL(relative, root).pathname;
const pkg = JSON.parse(readFileSync(path("package.json"), "utf8"));
// Packages only the network paths load, on first use (a proxy agent, the web tools' HTML, PDF and
// markdown converters): left out of the bundles and imported from node_modules when a run needs
// them, so a run that never does neither reads nor compiles them (docs/performance.md).
// DBOS and pg serve `cairn serve` / `cairn worker` alone, and proxy-chain (with socks and ip-address)
// the sandbox's domain policy alone: kept out for the same reason.
const LOADED_ON_USE = [
  "undici",
  "proxy-chain",
  "turndown",
  "@mozilla/readability",
  "linkedom",
  "unpdf",
  "@dbos-inc/dbos-sdk",
  "pg",
];
const external = [
  ...Object.keys(pkg.optionalDependencies ?? {}),
  ...Object.keys(pkg.peerDependencies ?? {}),
  ...LOADED_ON_USE,
];

// commander requires node:child_process as it loads, for executable subcommands, which cairn has
// none of: the module (with dgram and the child-process internals, about 0.6 ms of every start) is
// required on commander's first spawn instead, as cairn's own spawns do (src/util/spawn.ts).
const COMMANDER_CHILD_PROCESS = "const childProcess = require('node:child_process');";
/** @type {import("esbuild").Plugin} */
const lazyChildProcess = {
  name: "lazy-child-process",
  setup(pluginBuild) {
    pluginBuild.onLoad(
      { filter: /[\\/]node_modules[\\/]commander[\\/]lib[\\/]command\.js$/ },
      async (args) => {
        const contents = await readFile(args.path, "utf8");
        if (!contents.includes(COMMANDER_CHILD_PROCESS))
          throw new Error(`post-build: ${args.path} no longer requires node:child_process as expected`);
        return {
          contents: contents.replace(
            COMMANDER_CHILD_PROCESS,
            "const childProcess = { spawn: (...args) => require('node:child_process').spawn(...args) };",
          ),
          loader: "js",
        };
      },
    );
  },
};

// `import path from "node:path"` becomes `__toESM(require("node:path"))` in a CommonJS bundle: a copy
// of the module with a getter per export, made once per importing module (42 of node:path, 15 of
// node:os, about 1,300 property definitions at every start). In the CLI's build those two resolve to
// one module each that hands out Node's own object, for default and named imports alike.
const SHARED_BUILTINS = ["node:path", "node:os"];
/** @type {import("esbuild").Plugin} */
const sharedBuiltins = {
  name: "shared-builtins",
  setup(pluginBuild) {
    const namespace = "cairn-shared-builtin";
    const names = SHARED_BUILTINS.map((id) => id.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|");
    pluginBuild.onResolve({ filter: new RegExp(`^(${names})$`) }, (args) =>
      args.namespace === namespace ? undefined : { path: args.path, namespace },
    );
    pluginBuild.onLoad({ filter: /.*/, namespace }, async (args) => {
      const real = await import(args.path);
      const named = Object.keys(real).filter((name) => name !== "default" && /^[A-Za-z_$][\w$]*$/.test(name));
      return {
        contents: [
          `const m = require(${JSON.stringify(args.path)});`,
          "export default m;",
          ...named.map((name) => `export const ${name} = m.${name};`),
        ].join("\n"),
        loader: "js",
        resolveDir: path("."),
      };
    });
  },
};

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
    // The Anthropic client maps about 150 API error codes to classes of their own, which it imports
    // from every resource module (organizations, environments, skills, ...): their definitions ran
    // at every start. Each of those classes extends the class of its HTTP status, which the client
    // builds without the map; cairn reads the status and the message (src/providers/errors.ts).
    pluginBuild.onLoad({ filter: /[\\/]@anthropic-ai[\\/]sdk[\\/]core[\\/]error-classes\.mjs$/ }, () => ({
      contents: "export const ERROR_CODE_CLASSES = new Map();\n",
      loader: "js",
    }));
    pluginBuild.onLoad(
      { filter: /[\\/]node_modules[\\/](@anthropic-ai[\\/]sdk|openai)[\\/].*\.mjs$/ },
      async (args) => {
        const contents = await readFile(args.path, "utf8");
        const code = contents.replace(/\/\/.*|\/\*[\s\S]*?\*\//g, "");
        const used = Object.entries(standIns).filter(([name]) =>
          new RegExp(`(?<![.\\w$])${name}\\b`).test(code),
        );
        // `globalThis.ReadableStream && x instanceof globalThis.ReadableStream` reads the global,
        // whose first read loads Node's web streams: isReadableStreamBody answers the same.
        const streamCheck =
          /globalThis\.ReadableStream\s*&&\s*([\w.]+)\s+instanceof\s+globalThis\.ReadableStream/g;
        const checked = contents.replace(streamCheck, "isReadableStreamBody($1)");
        // The OpenAI client names itself in its User-Agent by its class's name, which the CLI's
        // bundle minifies (keepNames is off there): the name it has in the package, always.
        const rewritten = checked.replace(/\$\{this\.constructor\.name\}\/JS/, "OpenAI/JS");
        const imports = [
          ...used.map(([name, standIn]) => `${standIn} as ${name}`),
          ...(checked === contents ? [] : ["isReadableStreamBody"]),
        ];
        if (imports.length === 0 && rewritten === contents) return undefined;
        const header =
          imports.length === 0
            ? ""
            : `import { ${imports.join(", ")} } from ${JSON.stringify(standInModule)};\n`;
        return { contents: header + rewritten, loader: "js" };
      },
    );
  },
};

/** What both builds share. */
const common = /** @type {const} */ ({
  absWorkingDir: path("."),
  bundle: true,
  platform: "node",
  target: "node20",
  external: [...external, ...external.map((name) => `${name}/*`)],
  // Less to parse at start-up; identifiers are kept so stack traces stay readable.
  minifyWhitespace: true,
  minifySyntax: true,
  // Bundling renames clashing top-level names; keep the names functions and classes report.
  keepNames: true,
  legalComments: "eof",
  logLevel: "warning",
  plugins: [clientGlobals, lazyChildProcess],
  // CAIRN_BUILD_META=file keeps esbuild's metafiles (what went where) for bench/bundle-report.mjs.
  metafile: Boolean(process.env.CAIRN_BUILD_META),
});

rmSync(path("dist/chunks"), { recursive: true, force: true });
const built = await build({
  ...common,
  entryPoints: {
    "lib/index": "src/index.ts",
    "testing/index": "src/testing/index.ts",
  },
  outdir: "dist",
  chunkNames: "chunks/[name]-[hash]",
  bundle: true,
  splitting: true,
  format: "esm",
  // Bundled CommonJS dependencies (commander, ...) call require() for Node's built-ins.
  banner: {
    js: 'import { createRequire as __cairnCreateRequire } from "node:module"; const require = __cairnCreateRequire(import.meta.url);',
  },
});

// esbuild hoists every ES module's functions to the top scope of a CommonJS bundle, so each one has
// an entry in the code cache that the bin deserializes at every start, whether a run calls it or
// not; a CommonJS module stays one function until it is first required. The packages below, which
// only some runs load (OpenAI-compatible models, MCP servers, ACP), are bundled apart as CommonJS,
// each group once (one copy of what its entry points share), and enter the CLI's bundle that way.
// (They keep their own copy of zod, used by their own schemas only; Headers stand-ins are duck-typed.)
const WRAPPED_GROUPS = {
  openai: ["openai"],
  mcp: [
    "@modelcontextprotocol/sdk/client/index.js",
    "@modelcontextprotocol/sdk/client/sse.js",
    "@modelcontextprotocol/sdk/client/streamableHttp.js",
    "@modelcontextprotocol/sdk/inMemory.js",
    "@modelcontextprotocol/sdk/server/mcp.js",
    "@modelcontextprotocol/sdk/shared/stdio.js",
  ],
  acp: ["@agentclientprotocol/sdk"],
  // The interactive mode's markdown, diffs, highlighting and widths (src/interactive/render-modules.ts).
  interactive: [
    "marked",
    "diff",
    "string-width",
    "highlight.js/lib/core",
    ...[
      "bash",
      "c",
      "cpp",
      "csharp",
      "css",
      "diff",
      "dockerfile",
      "go",
      "ini",
      "java",
      "javascript",
      "json",
      "kotlin",
      "makefile",
      "markdown",
      "php",
      "python",
      "ruby",
      "rust",
      "shell",
      "sql",
      "swift",
      "typescript",
      "xml",
      "yaml",
    ].map((name) => `highlight.js/lib/languages/${name}`),
  ],
};
const WRAPPED_PACKAGE =
  /^(openai|@modelcontextprotocol\/sdk|@agentclientprotocol\/sdk|marked|diff|highlight\.js|string-width)(\/.*)?$/;
/** @type {import("esbuild").Plugin} */
const wrappedPackages = {
  name: "wrapped-packages",
  setup(pluginBuild) {
    const entry = "cairn-wrapped-entry";
    const group = "cairn-wrapped-group";
    const groupOf = new Map(
      Object.entries(WRAPPED_GROUPS).flatMap(([name, ids]) => ids.map((id) => [id, name])),
    );
    pluginBuild.onResolve({ filter: WRAPPED_PACKAGE }, (args) => {
      const name = groupOf.get(args.path);
      if (name === undefined)
        throw new Error(`post-build: ${args.path} is not in WRAPPED_GROUPS (add it to its package's group)`);
      return { path: args.path, namespace: entry, pluginData: name };
    });
    // Each entry point is its group's bundle's property of that name.
    pluginBuild.onLoad({ filter: /.*/, namespace: entry }, (args) => ({
      contents: `module.exports = require(${JSON.stringify(`${group}:${args.pluginData}`)})[${JSON.stringify(args.path)}];`,
      loader: "js",
    }));
    pluginBuild.onResolve({ filter: new RegExp(`^${group}:`) }, (args) => ({
      path: args.path.slice(group.length + 1),
      namespace: group,
    }));
    pluginBuild.onLoad({ filter: /.*/, namespace: group }, async (args) => {
      if (args.path === "zod") {
        // Only the factories cairn calls (lazyZod below), so zod is tree-shaken as in one bundle.
        const names = [...new Set([...ZOD_FACTORIES, "config"])];
        const contents = [
          `import { ${names.map((name) => `${name} as zod_${name}`).join(", ")} } from "zod";`,
          `export const zod = { ${names.map((name) => `${name}: zod_${name}`).join(", ")} };`,
        ].join("\n");
        return { contents: await wrappedGroup(contents), loader: "js", resolveDir: path(".") };
      }
      const ids = WRAPPED_GROUPS[/** @type {keyof typeof WRAPPED_GROUPS} */ (args.path)];
      // ES imports (not require(), which picks the packages' CommonJS builds, whole): each entry
      // point's exports are all kept, what they import is tree-shaken as in the CLI's bundle.
      const contents = [
        ...ids.map((id, i) => `import * as entry${i} from ${JSON.stringify(id)};`),
        `export { ${ids.map((id, i) => `entry${i} as ${JSON.stringify(id)}`).join(", ")} };`,
      ].join("\n");
      return { contents: await wrappedGroup(contents), loader: "js", resolveDir: path(".") };
    });
  },
};

/** `contents` (an ES module) bundled on its own as CommonJS, to enter the CLI's bundle wrapped. */
async function wrappedGroup(/** @type {string} */ contents) {
  const wrapped = await build({
    ...common,
    metafile: false,
    stdin: { contents, resolveDir: path("."), loader: "js" },
    format: "cjs",
    charset: "ascii",
    minifyIdentifiers: !process.env.CAIRN_BUILD_READABLE,
    keepNames: Boolean(process.env.CAIRN_BUILD_READABLE),
    legalComments: "none",
    write: false,
  });
  return wrapped.outputFiles[0].text;
}

// zod in the CLI: cairn's modules use zod's factories inside functions only (schemas are built on
// first use), yet a static import initialised all of zod at every start (about 2.5 ms). In the CLI's
// build, `zod` is a module of one wrapper per factory cairn calls (`z.object`, `z.string`, …, found
// in src/), which requires zod on the first call; zod itself enters as a wrapped group (above) of
// just those factories, so it is tree-shaken as before. The CLI parses each tool's input a few
// times, so zod interprets schemas rather than compiling a parser for each with `new Function`
// (`jitless`, set when it loads; the SDK leaves zod as it is).
const ZOD_FACTORIES = await (async () => {
  const zod = await import("zod");
  const used = new Set();
  for (const entry of readdirSync(path("src"), { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith(".ts")) continue;
    const text = readFileSync(`${entry.parentPath}/${entry.name}`, "utf8");
    for (const match of text.matchAll(/\bz\.([A-Za-z_$][\w$]*)/g)) used.add(match[1]);
  }
  // Types (z.infer, z.ZodType in annotations) are not values; classes would need the real binding.
  return [...used].filter((name) => typeof zod[name] === "function" && !/^[A-Z]/.test(name)).sort();
})();
/** @type {import("esbuild").Plugin} */
const lazyZod = {
  name: "lazy-zod",
  setup(pluginBuild) {
    const namespace = "cairn-lazy-zod";
    pluginBuild.onResolve({ filter: /^zod$/ }, () => ({ path: "zod", namespace }));
    // Anything else of zod's in the CLI's own bundle would be a second copy beside the wrapped one.
    pluginBuild.onResolve({ filter: /^zod\// }, (args) => {
      throw new Error(`post-build: ${args.importer} imports ${args.path}; the CLI's zod is "zod" (lazyZod)`);
    });
    pluginBuild.onLoad({ filter: /.*/, namespace }, () => ({
      contents: [
        "let zod;",
        "function load() {",
        '  if (zod === undefined) { zod = require("cairn-wrapped-group:zod").zod; zod.config({ jitless: true }); }',
        "  return zod;",
        "}",
        // Local names of their own: some factories are reserved words (z.enum, z.null).
        ...ZOD_FACTORIES.map((name) => `function zod_${name}(...args) { return load().${name}(...args); }`),
        `export { ${ZOD_FACTORIES.map((name) => `zod_${name} as ${name}`).join(", ")} };`,
      ].join("\n"),
      loader: "js",
      resolveDir: path("."),
    }));
  },
};

// The CLI: one CommonJS file, so that src/cli/bin.cts can compile it with a code cache. Its dynamic
// import()s of cairn's own modules become functions inside it (run when first called, as before);
// import() of an external package stays import(). import.meta.url becomes the bundle's own URL:
// dist/cli/cli.cjs sits two folders down like the modules that use it.
const cli = await build({
  ...common,
  entryPoints: { "cli/cli": "src/entry/start.ts" },
  plugins: [...common.plugins, sharedBuiltins, wrappedPackages, lazyZod],
  outdir: "dist",
  outExtension: { ".js": ".cjs" },
  format: "cjs",
  // ASCII only (non-ASCII characters escaped), so the bin reads the bundle as Latin-1, undecoded.
  charset: "ascii",
  // Shorter names: less source to read and keep, a smaller code cache. Nor are the original names
  // of functions and classes restored: keepNames does that with one defineProperty call per
  // function at start-up (about 4,000 here), which cost about 5 ms and 5 MB of heap a run
  // (docs/performance.md). cairn never reads a function's or class's name; stack traces of the
  // CLI name minified functions (CAIRN_DEBUG prints them), so CAIRN_BUILD_READABLE=1 builds
  // one with every name, for reading them and CPU profiles.
  minifyIdentifiers: !process.env.CAIRN_BUILD_READABLE,
  keepNames: Boolean(process.env.CAIRN_BUILD_READABLE),
  define: { "import.meta.url": "__cairnImportMetaUrl" },
  // "use strict" first: the sources are ES modules, strict everywhere, and a directive after the
  // banner's statement would be none.
  banner: {
    js: '"use strict";var __cairnImportMetaUrl = require("node:url").pathToFileURL(__filename).href;',
  },
});
// A name the bundle imports but no module exports is undefined at run time: with lazyZod's
// factories-only `zod` (a class such as z.ZodError used as a value), or any other module, fail here.
const undefinedImports = cli.warnings.filter((warning) => warning.id === "import-is-undefined");
if (undefinedImports.length > 0)
  throw new Error(`post-build: ${undefinedImports.map((warning) => warning.text).join("; ")}`);
if (process.env.CAIRN_BUILD_META)
  writeFileSync(process.env.CAIRN_BUILD_META, JSON.stringify({ sdk: built.metafile, cli: cli.metafile }));
writeFileSync(
  path("dist/index.js"),
  '// The bundled root export (see scripts/post-build.mjs).\nexport * from "./lib/index.js";\n',
);
// The bin's code cache is named after the bundle it was made for (V8 itself compares only the
// source's length): a rebuilt bundle never runs with an old cache.
const cliBundle = readFileSync(path("dist/cli/cli.cjs"));
// esbuild escapes non-ASCII characters in strings, not in regular expression literals: write those
// with \u escapes (the bin reads the bundle as Latin-1).
if (!isAscii(cliBundle))
  throw new Error("post-build: dist/cli/cli.cjs is not ASCII (a regular expression literal?)");
const bundleId = createHash("sha256").update(cliBundle).digest("hex").slice(0, 16);
const binFile = path("dist/cli/bin.cjs");
const bin = readFileSync(binFile, "utf8");
// tsc's output says "unbuilt"; a second run of this script finds the previous hash.
const placeholder = /const BUNDLE_ID = "[^"]*";/;
if (!placeholder.test(bin)) throw new Error("post-build: no BUNDLE_ID constant in dist/cli/bin.cjs");
// The version too, so that neither `--version` nor a run reads package.json.
const versionPlaceholder = /const PACKAGE_VERSION = "[^"]*";/;
if (!versionPlaceholder.test(bin))
  throw new Error("post-build: no PACKAGE_VERSION constant in dist/cli/bin.cjs");
writeFileSync(
  binFile,
  bin
    .replace(placeholder, `const BUNDLE_ID = "${bundleId}";`)
    .replace(versionPlaceholder, `const PACKAGE_VERSION = ${JSON.stringify(pkg.version)};`),
);
chmodSync(binFile, 0o755);
chmodSync(path("dist/cli/main.js"), 0o755);

await import("./prime-code-cache.mjs");
