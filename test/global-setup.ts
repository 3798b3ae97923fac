import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { TestProject } from "vitest/node";

const BUILD = fileURLToPath(new URL("../scripts/build.mjs", import.meta.url));

/**
 * Many tests spawn the built CLI or import the built package, so dist/ must match src/ before any test
 * file runs: `npx vitest run <file>` after an edit rebuilds first, a fresh dist/ costs a directory
 * walk (scripts/build.mjs). In watch mode, again before every re-run.
 */
export default function setup(project: TestProject): void {
  buildIfStale();
  project.onTestsRerun(buildIfStale);
}

function buildIfStale(): void {
  const result = spawnSync(process.execPath, [BUILD, "--if-stale"], { stdio: "inherit" });
  if (result.status !== 0)
    throw new Error("dist/ could not be built (see the errors above); no test was run.");
}
