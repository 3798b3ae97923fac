/**
 * `import()` from a file Node loads itself. The CLI's bundle runs as a `vm.Script` compiled with a
 * code cache (src/cli/bin.cts), and an `import()` inside it fails in functions restored from that
 * cache ("A dynamic import callback was not specified"); an `import()` here always works, and
 * resolves packages from cairn's own node_modules. Used through src/util/import-package.ts.
 */
module.exports = (specifier: string): Promise<unknown> => import(specifier);
