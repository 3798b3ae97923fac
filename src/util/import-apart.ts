import { fileURLToPath } from "node:url";
import { lazyRequire } from "./lazy-require.js";

/**
 * import() of one of cairn's own module files by URL, kept apart from the CLI's bundle: the bundler
 * sees no import() to follow, so the module (and what it imports) is not in dist/cli/cli.cjs, whose
 * every function costs each start its entry in the code cache; it is loaded from tsc's output beside
 * the bundle when a run asks for it. The import() itself is made by dist/util/import-file.cjs, which
 * Node's loader compiles: an import() in the bundle, compiled from its code cache through vm.Script,
 * has no dynamic-import callback on Node 20 ("A dynamic import callback was not specified").
 *
 * `from` is the caller's `import.meta.url` (in the bundle, the bundle's own: both sit two folders
 * below the package root, so `../util/` finds the helper from either).
 */
export function importApart<T>(url: URL, from: string): Promise<T> {
  const helper = fileURLToPath(new URL("../util/import-file.cjs", from));
  const importFile = lazyRequire(from)(helper) as (href: string) => Promise<unknown>;
  return importFile(url.href) as Promise<T>;
}
