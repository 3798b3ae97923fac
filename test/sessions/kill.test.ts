import { spawnSync } from "node:child_process";
import path from "node:path";
import { describe, expect, test } from "vitest";

/**
 * The kill -9 loop (scripts/kill-loop.mjs) with 20 iterations: a writer process appending engine
 * events to a transcript is killed with SIGKILL at a random moment, the transcript is loaded in a
 * fresh process (it must load, with a valid history and no corrupt line), and the next writer
 * resumes it. Run the script alone for more iterations.
 */
describe("kill -9 loop", () => {
  test("20 kills at random moments: every transcript loads, stays valid and resumes", () => {
    const script = path.resolve(import.meta.dirname, "../../scripts/kill-loop.mjs");
    const result = spawnSync(process.execPath, [script, "--iterations", "20", "--sessions", "3", "--json"], {
      encoding: "utf8",
      timeout: 120_000,
    });
    expect(result.stderr).toBe("");
    const summary = JSON.parse(result.stdout.trim().split("\n").at(-1)!);
    expect(summary.failure).toBeNull();
    expect(summary.kills).toBe(20);
    expect(result.status).toBe(0);
  }, 150_000);
});
