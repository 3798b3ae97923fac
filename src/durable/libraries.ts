import { createRequire } from "node:module";
import { dirname, join } from "node:path";

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

/**
 * DBOS's executor, for the recovery of another executor's pending workflows (what DBOS does for its
 * own executor id at launch; takeover.ts). It is not among the package's exports: it is required by
 * its file's path, beside the package's entry.
 */
export const loadDbosExecutor = (): {
  globalInstance?: { recoverPendingWorkflows(executorIds: string[]): Promise<unknown[]> };
} =>
  (load(join(dirname(load.resolve("@dbos-inc/dbos-sdk")), "dbos-executor.js")) as { DBOSExecutor: never })
    .DBOSExecutor;
