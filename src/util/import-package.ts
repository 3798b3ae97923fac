import { lazyRequire } from "./lazy-require.js";

/**
 * Loads a package cairn's build keeps out of its bundles (scripts/post-build.mjs, LOADED_ON_USE) on
 * first use, through src/util/import-from-file.cts (why: there). Every built module sits two folders
 * below the package root (dist/cli/cli.cjs, dist/chunks/…, dist/util/…), so the helper is found at
 * the same relative path from each; run from src/ (tests), a plain `import()` does the same.
 */
const require = lazyRequire(import.meta.url);

export async function importPackage<T>(name: string): Promise<T> {
  let load: (specifier: string) => Promise<unknown>;
  try {
    load = require("../util/import-from-file.cjs") as typeof load;
  } catch {
    load = (specifier) => import(specifier);
  }
  return (await load(name)) as T;
}
