import { createRequire } from "node:module";

/**
 * DBOS Transact and pg, loaded when first needed: only `cairn serve` and `cairn worker` use them
 * (together about 150–300 ms to load; docs/architecture.md, "Durable runs"). Both are CommonJS
 * packages, required rather than imported: the CLI's bundle runs as a script compiled with a code
 * cache, where `import()` of a package is not available, and the bundles leave both out
 * (scripts/post-build.mjs), so print mode neither loads nor parses them.
 */
const load = createRequire(import.meta.url);

export const loadPg = (): typeof import("pg") => load("pg") as typeof import("pg");

export const loadDbos = (): typeof import("@dbos-inc/dbos-sdk") =>
  load("@dbos-inc/dbos-sdk") as typeof import("@dbos-inc/dbos-sdk");
